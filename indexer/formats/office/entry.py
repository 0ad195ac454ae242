"""The guarded entry every office extractor goes through: `run`.

`run` sniffs the bytes, hands a file whose content is another format (a `.docx`
that is an OLE `.doc`, a `.doc` that is RTF) to the extractor registered for what
it is in the registry the run or `indexer.extract` was given (`active_registry`),
turns every `ContainerError` into one failed result with its reason, and chunks the
blocks a reader returns.
"""

from __future__ import annotations

from dataclasses import replace

from indexer._text import gc_paused
from indexer._types import Extracted, Options
from indexer.formats.office.blocks import Doc, Reader, block_chunks
from indexer.formats.office.container import ContainerError, failed
from indexer.formats.office.sniff import sniff_format

__all__ = ["run"]


def run(
    kind: str, accepts: tuple[str, ...], reader: Reader, data: bytes, path: str, opts: Options
) -> Extracted:
    """Extract `data` with `reader` when `sniff_format` finds one of the formats it `accepts`.

    Content of another format goes to the extractor registered for that format, the
    result keeping `kind` and naming the format in `metadata["format"]`. Returns a
    failed result (one marker chunk, `error` set) for an encrypted, corrupt, over-large
    or unrecognised file; never raises for bad input.
    """
    if not data.strip():
        return Extracted(kind=kind, text="")
    try:
        actual = sniff_format(data)
        if actual not in accepts:
            return _reroute(kind, actual, data, path, opts)
        with gc_paused():  # parsers make many acyclic objects: collections only cost
            doc = reader(data, opts)
    except ContainerError as exc:
        if exc.reason.startswith(SKIPPED):  # a format we know and do not read: no failure
            return Extracted(kind=kind, text="", skipped=exc.reason)
        return failed(kind, exc.reason)
    except RecursionError:
        return failed(kind, "corrupt: nested too deep")
    return _assemble(kind, doc, opts)


SKIPPED = ("legacy binary Word format:",)
"""Reason codes that make a document `skipped` rather than `failed`: known, not readable
here (the detail after the code names the version)."""

_UNKNOWN = {"zip": "corrupt: not a {kind} file (a ZIP of no known kind)",
            "ole": "corrupt: not a {kind} file (an OLE file of no known kind)",
            "binary": "unrecognised: the content is not a {kind} file"}  # fmt: skip
_EXTENSION = {"wordml": "docx", "text": "txt", "biff4": "xls"}
_READABLE = ("pdf", "rtf", "html", "xml", "text")
"""Formats of no office kind that a mislabelled file is still read as."""


def _reroute(kind: str, actual: str, data: bytes, path: str, opts: Options) -> Extracted:
    from indexer.registry import active_registry  # the registry imports the extractors

    registry = active_registry()  # the run's, with its plugins
    name = f"x.{_EXTENSION.get(actual, actual)}"
    if actual in _UNKNOWN:
        return failed(kind, _UNKNOWN[actual].format(kind=kind))
    if not (registry.handles(name) or actual in _READABLE):
        return failed(kind, f"mislabelled: the content is {actual}, which nothing here reads")
    spec = registry.for_path(name)
    if spec.kind == kind:  # the same extractor would only send it back here
        return failed(kind, f"corrupt: not a {kind} file")
    result = spec.extract(data, path, opts)
    if not result.chunks:  # blank text under a BOM, say: still not empty input
        return failed(kind, f"mislabelled: the content is {actual} with no text")
    return replace(result, kind=kind, metadata={**result.metadata, "format": spec.kind})


def _assemble(kind: str, doc: Doc, opts: Options) -> Extracted:
    chunks = doc.chunks
    if chunks is None:
        with gc_paused():
            chunks = [c for part, blocks in doc.sections for c in block_chunks(blocks, part, opts)]
    if not chunks:
        return failed(kind, doc.no_text, doc.metadata)
    text = "\n\n".join(chunk.text for chunk in chunks)
    return Extracted(
        kind=kind, text=text, chunks=tuple(chunks), degraded=doc.degraded, metadata=doc.metadata
    )
