"""The MIME tree of a mail, shared by the `eml` extractor and the mail-archive readers.

The standard library's `email` parses with the `compat32` policy: faster than
`policy.default`, which also raises on some real delivery-status mails. `compat32`
decodes nothing itself; `indexer.formats.eml.decode` does, with a fallback at every
step (its `decode_bytes` and `header_text` are re-exported here).
"""

from __future__ import annotations

import base64
import binascii
import email
import functools
import mimetypes
import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from email.policy import compat32
from typing import Any

from indexer.formats.eml.decode import decode_bytes, has_raw_bytes, header_text

__all__ = [
    "Attachment",
    "Leaf",
    "MailMessage",
    "decode_bytes",
    "has_raw_bytes",
    "header_text",
    "iter_attachments",
    "message_charset",
    "parse_message",
    "part_text",
    "prepare",
    "walk",
]

_LEADING_BLANK_LINES = re.compile(rb"\A(?:[ \t]*(?:\r\n|\n|\r))+")
_LINE_BREAK = re.compile(r"\r\n|\n|\r")
_UNSAFE_NAME_CHARS = re.compile(r'[<>:"|?*#]+')  # unsafe on Windows, or in a child path
_MAX_FILENAME = 150


def parse_message(data: bytes) -> Message:
    """Parse mail bytes into a `compat32` message; raises only RecursionError on absurd nesting.

    See `prepare` for what is done to the bytes first.
    """
    return email.message_from_bytes(prepare(data), _class=MailMessage, policy=compat32)


def prepare(data: bytes) -> bytes:
    """Return mail bytes as the parsers take them: leading blank lines skipped.

    Input whose first line is indented (a header continuation with nothing to
    continue) is not a mail: a blank line is put first, so all of it becomes the body.
    """
    data = _LEADING_BLANK_LINES.sub(b"", data, count=1)
    if data[:1] in (b" ", b"\t"):
        data = b"\n" + data
    return data


class MailMessage(Message):
    """A `compat32` message whose multipart boundary is unfolded.

    Outlook folds long quoted boundaries (`boundary="----=_NextPart\\r\\n _000_..."`);
    unfolding (RFC 5322: drop the line break, keep the space) makes them match
    the delimiter lines, where the standard library would find no part at all.
    """

    def get_boundary(self, failobj: Any = None) -> Any:
        boundary = super().get_boundary(failobj)
        if isinstance(boundary, str) and ("\n" in boundary or "\r" in boundary):
            return _LINE_BREAK.sub("", boundary)
        return boundary


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaf:
    """A body-text candidate of a message: a `text/plain` or `text/html` part."""

    part: Message
    """The MIME part; decode it with `part_text`."""
    html: bool
    """True for `text/html`; False for `text/plain` (and for a multipart with no boundary)."""


def walk(message: Message) -> Iterator[tuple[Message, Leaf | None]]:
    """Yield every leaf part of `message` in document order, with its body-text role.

    The role is a `Leaf` for inline `text/plain`/`text/html` parts (and for a
    multipart whose boundary is missing, whose raw body is text), None for
    anything else. `message/*` parts are yielded whole and not entered: their
    content belongs to the enclosed message. Iterative, so depth costs no stack.
    """
    stack = [message]
    while stack:
        part = stack.pop()
        content_type = part.get_content_type()
        # is_multipart first: get_payload() of 8-bit text decodes it by its charset
        # parameter, and raises ValueError when a damaged one holds a NUL.
        if part.is_multipart() and not content_type.startswith("message/"):
            parts = part.get_payload()
            assert isinstance(parts, list)  # is_multipart() says so
            stack.extend(p for p in reversed(parts) if isinstance(p, Message))
            continue
        yield part, _leaf(part, content_type)


def _leaf(part: Message, content_type: str) -> Leaf | None:
    if content_type == "text/html":
        html = True
    elif content_type == "text/plain" or content_type.startswith("multipart/"):
        html = False
    else:
        return None
    return None if _is_attachment(part) else Leaf(part=part, html=html)


def _is_attachment(part: Message) -> bool:
    # Parameter parsing is slow; most parts have no disposition and no name at all.
    disposition, content_type = part.get("content-disposition"), part.get("content-type", "")
    if disposition is None and "name" not in str(content_type).lower():
        return False
    return part.get_content_disposition() == "attachment" or _filename(part) is not None


def _filename(part: Message) -> str | None:
    try:
        name = part.get_filename()
    except Exception:  # a broken RFC 2231 parameter
        return None
    return None if name is None else header_text(name)


def message_charset(message: Message) -> str | None:
    """Return the charset declared for the message's text: its own, else its first text part's."""
    for part, _ in walk(message):
        if part.get_content_maintype() == "text" and (charset := _charset(part)):
            return charset
    return None


def _charset(part: Message) -> str | None:
    try:
        return part.get_content_charset()
    except Exception:  # an undecodable RFC 2231 charset parameter
        return None


def part_text(part: Message) -> str:
    """Return a leaf part's text: transfer encoding undone, charset decoded; never raises."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # an undecodable transfer encoding: nothing usable
        return ""
    if not isinstance(payload, bytes):
        return ""
    return decode_bytes(payload, _charset(part))


@dataclass(frozen=True, slots=True, kw_only=True)
class Attachment:
    """A part of a mail that is a document of its own, for child documents."""

    filename: str
    """A safe base name, never empty: the sender's name sanitised, else `part-<index>.<ext>`."""
    content_type: str
    """The part's lower-case `type/subtype` (the default `text/plain` when it names none)."""
    data: bytes
    """The decoded content; for a `message/*` part, the enclosed message's bytes."""
    index: int
    """1-based position among the message's attachments, in document order."""


def iter_attachments(message: Message) -> Iterator[Attachment]:
    """Yield the attachments of `message` in document order; never raises.

    An attachment is every leaf part that is not inline body text: parts marked
    `Content-Disposition: attachment` or carrying a filename, any non-text part
    (images, PDFs, ...), and `message/*` parts (an attached `.eml`, a digest entry,
    a delivery-status report), which are not entered: their own attachments are
    the enclosed message's. The body text (`walk`'s `Leaf` parts) is not repeated.
    """
    index = 0
    for part, leaf in walk(message):
        if leaf is not None:
            continue
        index += 1
        content_type = part.get_content_type()
        yield Attachment(
            filename=_safe_filename(_filename(part), content_type, index),
            content_type=content_type,
            data=_attachment_bytes(part),
            index=index,
        )


def _attachment_bytes(part: Message) -> bytes:
    if not part.is_multipart():
        try:
            data = part.get_payload(decode=True)
        except Exception:  # a broken transfer encoding: keep the bytes as sent
            data = None
        raw = part.__dict__["_payload"]  # as stored: see `walk` on get_payload()
        return data if isinstance(data, bytes) else str(raw).encode("utf-8", "surrogateescape")
    payload = part.get_payload()
    # The enclosed message(s), as they were sent: compat32 writes raw bytes back unchanged.
    data = b"\n".join(_message_bytes(inner) for inner in payload if isinstance(inner, Message))
    encoding = str(part.get("content-transfer-encoding", "")).strip().lower()
    if encoding in ("base64", "quoted-printable"):
        # RFC 2046 forbids encoding message/* parts, but mailers do it: the parser then
        # reads the encoded text as a header-less message. Undo the encoding instead.
        return _undo_transfer_encoding(data.lstrip(b"\r\n"), encoding)
    return data


def _message_bytes(message: Message) -> bytes:
    try:
        return message.as_bytes()
    except Exception:  # a header the generator cannot write: an empty but present child
        return b""


def _undo_transfer_encoding(data: bytes, encoding: str) -> bytes:
    try:
        if encoding == "base64":
            return base64.b64decode(b"".join(data.split()))
        return quopri.decodestring(data)
    except (ValueError, binascii.Error):  # not really encoded: keep it as it is
        return data


def _safe_filename(name: str | None, content_type: str, index: int) -> str:
    if name:
        name = name.replace("\\", "/").rsplit("/", 1)[-1]
        name = "".join(c if c.isprintable() else "_" for c in name)
        name = _UNSAFE_NAME_CHARS.sub("_", name).strip(" .")
        if name:
            return _shorten(name)
    return f"part-{index}{_types().guess_extension(content_type) or '.bin'}"


def _shorten(name: str) -> str:
    if len(name) <= _MAX_FILENAME:
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or len(ext) > 16:
        return name[:_MAX_FILENAME]
    return f"{stem[: _MAX_FILENAME - len(ext) - 1]}.{ext}"


@functools.cache
def _types() -> mimetypes.MimeTypes:
    """Python's built-in table only, the same on every machine; built on first use
    (most mails never need it)."""
    return mimetypes.MimeTypes()
