"""What the office extractors share: the guarded entry, mislabelled files, blocks to chunks.

`run` is every office extractor's body: it sniffs the bytes, hands a file whose
content is another format (a `.docx` that is an OLE `.doc`, a `.doc` that is RTF)
to the extractor registered for what it is, turns every `ContainerError` into one
failed result with its reason, and chunks the blocks a reader returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from indexer._text import gc_paused
from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats.html.mdsyntax import Block, split_block
from indexer.formats.html.tables import text_table
from indexer.formats.office.container import (
    ENCRYPTED,
    ContainerError,
    Package,
    failed,
    ole_kind,
    open_zip,
    sniff,
)

__all__ = [
    "Block",
    "Doc",
    "HeadingPath",
    "run",
    "slide_chunks",
    "sniff_format",
    "table_blocks",
]


@dataclass(slots=True)
class Doc:
    """What a reader made of a document: blocks (or ready chunks) and its properties."""

    sections: list[tuple[str | None, list[Block]]] = field(default_factory=list)
    """Blocks by the part of the document they come from (None: the body; else the
    name that goes in their chunks' `meta` as `part`), in output order."""
    chunks: list[Chunk] | None = None
    """Set by readers that chunk by their own unit (a slide, a chapter) instead of blocks."""
    metadata: dict[str, Any] = field(default_factory=dict)
    degraded: bool = False


Reader = Callable[[bytes, Options], Doc]


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
        return failed(kind, exc.reason)
    except RecursionError:
        return failed(kind, "corrupt: nested too deep")
    return _assemble(kind, doc, opts)


def sniff_format(data: bytes) -> str:
    """The format of `data` by content: an office format's usual extension (`docx`,
    `pptx`, `xlsx`, `odt`, `epub`, `doc`, `ppt`, `xls`, `msg`, `wordml`, ...), else
    what `sniff` says (`zip` and `ole` when the package is of no known kind).

    Raises `ContainerError` `encrypted` for an encrypted OOXML package, `corrupt`
    for an unreadable ZIP or OLE file."""
    found = sniff(data)
    if found == "ole":
        held = ole_kind(data)
        if held == ENCRYPTED:
            raise ContainerError(ENCRYPTED)
        return held
    if found == "zip":
        return _zip_format(open_zip(data))
    if found == "xml" and _WORDML in data[:4096]:
        return "wordml"
    return found


_WORDML = b"schemas.microsoft.com/office/word/2003/wordml"
_ZIP_PARTS = (("word/document.xml", "docx"), ("ppt/presentation.xml", "pptx"),
              ("xl/workbook.xml", "xlsx"), ("xl/workbook.bin", "xlsb"))  # fmt: skip
_MIMETYPES = ((b".text", "odt"), (b".text-template", "odt"), (b".presentation", "odp"),
              (b".presentation-template", "odp"), (b".spreadsheet", "ods"),
              (b"epub+zip", "epub"))  # fmt: skip


def _zip_format(package: Package) -> str:
    for part, name in _ZIP_PARTS:
        if package.has(part):
            return name
    mimetype = (package.read("mimetype") or b"").strip()
    for tail, name in _MIMETYPES:
        if mimetype.endswith(tail):
            return name
    return "zip"


_UNKNOWN = {"zip": "corrupt: not a {kind} file (a ZIP of no known kind)",
            "ole": "corrupt: not a {kind} file (an OLE file of no known kind)",
            "binary": "unrecognised: the content is not a {kind} file"}  # fmt: skip
_EXTENSION = {"wordml": "docx", "text": "txt", "biff4": "xls"}
_READABLE = ("pdf", "rtf", "html", "xml", "text")
"""Formats of no office kind that a mislabelled file is still read as."""


def _reroute(kind: str, actual: str, data: bytes, path: str, opts: Options) -> Extracted:
    from indexer.registry import default_registry  # the registry imports the extractors

    registry = default_registry()
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
            chunks = [c for part, blocks in doc.sections for c in _chunks(blocks, part, opts)]
    if not chunks:
        return failed(kind, "no text", doc.metadata)
    text = "\n\n".join(chunk.text for chunk in chunks)
    return Extracted(
        kind=kind, text=text, chunks=tuple(chunks), degraded=doc.degraded, metadata=doc.metadata
    )


def _chunks(blocks: Iterable[Block], part: str | None, opts: Options) -> list[Chunk]:
    """One chunk per block (a block too long split along its syntax), as the html kind."""
    chunks: list[Chunk] = []
    max_chars = opts.max_chunk_chars
    for block in blocks:
        text, _, headings = block
        if not text.strip():
            continue
        meta: dict[str, Any] = {"headings": list(headings)}
        if part is not None:
            meta["part"] = part
        pieces = [text] if len(text) <= max_chars else split_block(block, max_chars)
        chunks.extend(make_chunk(piece, dict(meta)) for piece in pieces)
    return chunks


def slide_chunks(blocks: list[Block], number: int, opts: Options) -> list[Chunk]:
    """A slide as one chunk, or as few as fit `max_chunk_chars` (split between blocks, a
    block too long alone along its syntax), each with `meta` `{"slide": number}`."""
    max_chars = opts.max_chunk_chars
    texts: list[str] = []
    for block in blocks:
        texts.extend(
            [block.text] if len(block.text) <= max_chars else split_block(block, max_chars)
        )
    pieces: list[str] = []
    for text in texts:
        if pieces and len(pieces[-1]) + 2 + len(text) <= max_chars:
            pieces[-1] += "\n\n" + text
        else:
            pieces.append(text)
    return [make_chunk(piece, {"slide": number}) for piece in pieces if piece.strip()]


class HeadingPath:
    """The headings in force: a heading of level n closes those of level n and deeper."""

    __slots__ = ("_levels", "path")

    def __init__(self) -> None:
        self._levels: list[int] = []
        self.path: tuple[str, ...] = ()

    def enter(self, level: int, text: str) -> tuple[str, ...]:
        """Record a heading; return the new path, which ends with it."""
        keep = 0
        while keep < len(self._levels) and self._levels[keep] < level:
            keep += 1
        self._levels = [*self._levels[:keep], level]
        self.path = (*self.path[:keep], " ".join(text.split())[:200])
        return self.path


def table_blocks(rows: list[list[tuple[str, int]]], headings: tuple[str, ...]) -> list[Block]:
    """A table of text cells (text, column span) as one GFM table block, first row the
    header; a table of one column renders as paragraphs, as the HTML kind does."""
    rows = [row for row in rows if any(text for text, _ in row)]
    return text_table(rows, header=False, layout=False, headings=headings) if rows else []
