"""Attachments as child documents, expanded inside the worker that parsed the mail.

Every attachment whose extension or content type has an extractor is extracted by
it (attached and forwarded messages and archives recurse, up to `MAX_DEPTH`); one whose
extractor must run isolated (a PDF) is handed back as pending bytes for the
isolated pool; any other gets a `skipped` child naming its type. Nothing is
dropped silently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats.archive import Budget, sniff
from indexer.formats.eml.mime import Attachment, iter_attachments, parse_message
from indexer.pipeline.extract.nest import MAIL_DEPTH, UnitFn, nested
from indexer.pipeline.output.units import Child
from indexer.registry import ExtractorSpec, Registry

MAX_DEPTH = MAIL_DEPTH
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
    "application/vnd.ms-outlook": "x.msg",
    "application/zip": "x.zip",
    "application/x-zip-compressed": "x.zip",
    "application/x-tar": "x.tar",
    "application/gzip": "x.gz",
    "application/x-gzip": "x.gz",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "x.xlsx",
    "application/vnd.ms-excel.sheet.macroenabled.12": "x.xlsm",
    "application/vnd.ms-excel.sheet.binary.macroenabled.12": "x.xlsb",
    "application/vnd.ms-excel": "x.xls",
    "application/vnd.oasis.opendocument.spreadsheet": "x.ods",
    "application/rtf": "x.rtf",
    "application/x-rtf": "x.rtf",
    "text/rtf": "x.rtf",
    **{f"application/{t}": f"x.{ext}" for t, ext in (
        ("vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
        ("vnd.openxmlformats-officedocument.wordprocessingml.template", "dotx"),
        ("vnd.ms-word.document.macroenabled.12", "docm"),
        ("msword", "doc"),
        ("vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"),
        ("vnd.openxmlformats-officedocument.presentationml.slideshow", "ppsx"),
        ("vnd.ms-powerpoint.presentation.macroenabled.12", "pptm"),
        ("vnd.ms-powerpoint", "ppt"),
        ("vnd.oasis.opendocument.text", "odt"),
        ("vnd.oasis.opendocument.presentation", "odp"),
        ("epub+zip", "epub"),
    )},
    "image/png": "x.png",
    "image/jpeg": "x.jpg",
    "image/pjpeg": "x.jpg",
    "image/tiff": "x.tiff",
    "image/gif": "x.gif",
    "image/bmp": "x.bmp",
    "image/x-ms-bmp": "x.bmp",
    "image/webp": "x.webp",
}  # fmt: skip
_CONTEXT = ("subject", "from", "date", "message_id")
_HINTS = (b"attachment", b"name=", b"message/", b"application/", b"image/", b"audio/", b"video/")


def may_have_attachments(data: bytes) -> bool:
    """A cheap test that lets plain single-part mails skip the second parse."""
    head = data.lower()
    return b"multipart/" in head or any(hint in head for hint in _HINTS)


def expand(
    data: bytes,
    doc: Extracted,
    options: Options,
    registry: Registry,
    depth: int = 0,
    *,
    budget: Budget | None = None,
    rel: str = "",
    unit: UnitFn,
) -> tuple[Child, ...]:
    """The children of the mail `data` (already extracted as `doc`, at record path
    `rel`, nested `depth` deep, in an archive with `budget` left); never raises."""
    if not may_have_attachments(data):
        return ()
    context = {k: doc.metadata[k] for k in _CONTEXT if doc.metadata.get(k)}
    options = _unfiltered(options)
    try:
        message = parse_message(data)
        return tuple(
            child
            for attachment in iter_attachments(message)
            for child in _child(attachment, context, options, registry, depth, budget, rel, unit)
        )
    except RecursionError:
        return ()


def _unfiltered(options: Options) -> Options:
    """`options` without the walk's globs: a mail's attachments are part of it, and so is
    what an attached archive holds."""
    limits = options.containers
    if not (limits.include or limits.exclude):
        return options
    return replace(options, containers=replace(limits, include=(), exclude=()))


def _child(
    att: Attachment,
    context: dict[str, Any],
    options: Options,
    registry: Registry,
    depth: int,
    budget: Budget | None,
    rel: str,
    unit: UnitFn,
) -> Iterator[Child]:
    suffix = f"#att/{att.index}/{att.filename}"
    sha = hashlib.sha256(att.data).hexdigest()
    make = partial(Child, suffix=suffix, size=len(att.data), sha256=sha, context=context)
    spec = spec_for(att.filename, att.content_type, registry)
    if spec is not None and spec.kind == "archive" and sniff(att.data) is None:
        # named like an archive (`report.xml.gz`), sent as something else: go by its type
        spec = spec_for("", att.content_type, registry)
    if spec is None:
        yield make(kind=None, skip=f"no extractor for {att.content_type}")
        return
    yield from nested(
        spec, att.filename, att.data, make, options, registry,
        suffix=suffix, rel=rel, depth=depth, budget=budget, context=context, unit=unit,
    )  # fmt: skip


def spec_for(filename: str, content_type: str, registry: Registry) -> ExtractorSpec | None:
    """The extractor for an attachment: by its extension when one claims it, else by type.

    Returns None for types nothing extracts (other files, SVG), so the fallback `text`
    extractor never sees binary attachments. Images go to the `image` extractor, which
    skips them (with the reason) when OCR is off or not installed.
    """
    if registry.handles(filename):
        return registry.for_path(filename)
    by_type = _BY_TYPE.get(content_type)
    if by_type is None and content_type.startswith("text/"):
        by_type = "x.txt"
    return None if by_type is None else registry.for_path(by_type)
