"""Attachments as child documents, expanded inside the worker that parsed the mail.

Every attachment whose extension or content type has an extractor is extracted by
it (attached and forwarded messages recurse, up to `MAX_DEPTH`); one whose
extractor must run isolated (a PDF) is handed back as pending bytes for the
isolated pool; any other gets a `skipped` child naming its type. Nothing is
dropped silently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from functools import partial
from typing import Any

from indexer._extract import run_extractor
from indexer._types import Extracted, Options
from indexer.formats.eml.mime import Attachment, iter_attachments, parse_message
from indexer.pipeline.output.units import Child
from indexer.registry import ExtractorSpec, Registry

MAX_DEPTH = 4
"""How deep attached messages are followed (a message in a message in a message...)."""

_BY_TYPE = {
    "message/rfc822": "x.eml",
    "message/global": "x.eml",
    "application/pdf": "x.pdf",
    "text/html": "x.html",
    "application/xhtml+xml": "x.xhtml",
    "text/csv": "x.csv",
    "text/tab-separated-values": "x.tsv",
    "application/json": "x.json",
    "application/x-ndjson": "x.ndjson",
    "message/delivery-status": "x.txt",
    "image/png": "x.png",
    "image/jpeg": "x.jpg",
    "image/pjpeg": "x.jpg",
    "image/tiff": "x.tiff",
    "image/gif": "x.gif",
    "image/bmp": "x.bmp",
    "image/x-ms-bmp": "x.bmp",
    "image/webp": "x.webp",
}
_CONTEXT = ("subject", "from", "date", "message_id")
_HINTS = (b"attachment", b"name=", b"message/", b"application/", b"image/", b"audio/", b"video/")


def may_have_attachments(data: bytes) -> bool:
    """A cheap test that lets plain single-part mails skip the second parse."""
    head = data.lower()
    return b"multipart/" in head or any(hint in head for hint in _HINTS)


def expand(
    data: bytes, doc: Extracted, options: Options, registry: Registry, depth: int = 0
) -> tuple[Child, ...]:
    """The children of the mail `data` (already extracted as `doc`); never raises."""
    if not may_have_attachments(data):
        return ()
    context = {k: doc.metadata[k] for k in _CONTEXT if doc.metadata.get(k)}
    try:
        return tuple(_children(parse_message(data), context, options, registry, depth))
    except RecursionError:
        return ()


def _children(
    message: Any, context: dict[str, Any], options: Options, registry: Registry, depth: int
) -> Iterator[Child]:
    for attachment in iter_attachments(message):
        yield from _child(attachment, context, options, registry, depth)


def _child(
    att: Attachment, context: dict[str, Any], options: Options, registry: Registry, depth: int
) -> Iterator[Child]:
    suffix = f"#att/{att.index}/{att.filename}"
    sha = hashlib.sha256(att.data).hexdigest()
    make = partial(Child, suffix=suffix, size=len(att.data), sha256=sha, context=context)
    spec = spec_for(att.filename, att.content_type, registry)
    if spec is None:
        yield make(
            kind=None,
            skip=f"no extractor for {att.content_type}",
        )
        return
    if spec.kind == "eml" and depth + 1 > MAX_DEPTH:
        yield make(
            kind=spec.kind,
            extractor=spec.name,
            skip="depth_limit",
        )
        return
    if spec.isolated:
        yield make(
            kind=spec.kind,
            extractor=spec.name,
            pending=att.data,
        )
        return
    extracted = run_extractor(spec, att.filename, att.data, options)
    yield make(
        kind=spec.kind,
        extractor=spec.name,
        extracted=extracted,
    )
    if spec.kind == "eml":
        for inner in expand(att.data, extracted, options, registry, depth + 1):
            yield Child(
                suffix=suffix + inner.suffix, kind=inner.kind, size=inner.size,
                sha256=inner.sha256, extractor=inner.extractor, extracted=inner.extracted,
                skip=inner.skip, context=inner.context, pending=inner.pending,
            )  # fmt: skip


def spec_for(filename: str, content_type: str, registry: Registry) -> ExtractorSpec | None:
    """The extractor for an attachment: by its extension when one claims it, else by type.

    Returns None for types nothing extracts (office files, archives, SVG), so the
    fallback `text` extractor never sees binary attachments. Images go to the `image`
    extractor, which skips them (with the reason) when OCR is off or not installed.
    """
    if registry.handles(filename):
        return registry.for_path(filename)
    by_type = _BY_TYPE.get(content_type)
    if by_type is None and content_type.startswith("text/"):
        by_type = "x.txt"
    return None if by_type is None else registry.for_path(by_type)
