"""A mail's attachments and enclosed messages, yielded for the pipeline to nest (`ChildrenFn`).

Each attachment goes to the extractor its name's extension selects, else the one
its content type does (`ExtractorSpec.mime_types`); one named like an archive whose
bytes are none goes by its type. Its descendants' chunks carry the mail's Subject,
From, Date and Message-ID as `meta.mail`, each cut to `CONTEXT_CHARS`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from indexer._spec import CONTEXT_CHARS, Held, Nesting, extension_of
from indexer._types import Extracted, Options
from indexer.formats import ARCHIVE_EXTENSIONS
from indexer.formats import eml as _eml
from indexer.formats.archive.read import sniff
from indexer.formats.eml.mime import iter_attachments, parse_message

__all__ = ["attachments", "children", "may_have_attachments"]

_CONTEXT = ("subject", "from", "date", "message_id")
_TNEF = b"\x78\x9f\x3e\x22"  # tnef.stream.SIGNATURE (that package imports this one)
_HINTS = (b"attachment", b"name=", b"message/", b"application/", b"image/", b"audio/", b"video/")


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield the attachments of the mail `data`; return the mail's own document."""
    doc = _eml.extract(data, path, options)
    yield from attachments(data, doc)
    return doc


def attachments(mime: bytes, doc: Extracted) -> Iterator[Held]:
    """The attachments of the MIME mail `mime`, extracted already as `doc`; never raises."""
    if not may_have_attachments(mime):
        return
    context = mail_context(doc)
    try:
        message = parse_message(mime)
        found = list(iter_attachments(message))
    except RecursionError:
        return
    for att in found:
        typed = _mislabelled(extension_of(att.filename), att.data)
        yield Held(
            path=f"att/{att.index}/{att.filename}", name=att.filename, data=att.data,
            size=len(att.data), content_type=att.content_type, typed=typed, context=context,
        )  # fmt: skip


def _mislabelled(ext: str, data: bytes) -> bool:
    """True when the name's extension does not say what `data` is, so its type decides:
    a `.zip` that is no archive, a `.dat` that is no TNEF (`.dat` is claimed for
    `winmail.dat`; another `.dat` goes by its type, as it did before)."""
    if ext == "dat":
        return not data.startswith(_TNEF)
    return ext in ARCHIVE_EXTENSIONS and sniff(data) is None


def mail_context(doc: Extracted) -> dict[str, Any]:
    """The headers a mail's descendants carry, each string cut to `CONTEXT_CHARS`."""
    return {
        k: v[:CONTEXT_CHARS] if isinstance(v, str) else v
        for k in _CONTEXT
        if (v := doc.metadata.get(k))
    }


def may_have_attachments(data: bytes) -> bool:
    """A cheap test that lets plain single-part mails skip the second parse."""
    head = data.lower()
    return b"multipart/" in head or any(hint in head for hint in _HINTS)
