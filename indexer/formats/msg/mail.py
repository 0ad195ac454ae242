"""An Outlook message as a MIME mail, so that the `eml` machinery reads it like any mail.

`Mail` is what an Outlook reader (a `.msg` file, a message of a `.pst`) found: the
headers the `eml` extractor shows and threads by, the bodies, the attachments and
the enclosed messages. `render` writes it as RFC 5322 bytes, deterministically:
every part base64 (so no content line can look like a boundary or a header), each
boundary derived from a hash of what it encloses.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from urllib.parse import quote

__all__ = ["Mail", "Part", "render"]

_LINE = 76


@dataclass(frozen=True, slots=True, kw_only=True)
class Part:
    """An attachment: a file, or an enclosed message."""

    filename: str | None
    content_type: str = "application/octet-stream"
    data: bytes = b""
    message: Mail | None = None
    """An enclosed message (its `data` is then unused)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Mail:
    """What a reader found in one message."""

    headers: tuple[tuple[str, str], ...]
    """(name, value) in the order to write them; empty values are left out."""
    plain: str | None = None
    html: str | None = None
    attachments: tuple[Part, ...] = ()


def render(mail: Mail) -> bytes:
    """`mail` as MIME bytes: its headers, then its body and attachments."""
    head = b"".join(_header(name, value) for name, value in mail.headers if value.strip())
    return head + b"MIME-Version: 1.0\r\n" + _body(mail)


def _header(name: str, value: str) -> bytes:
    flat = " ".join(value.split())  # no line break may end the header early
    return f"{name}: {flat}\r\n".encode("utf-8", "surrogateescape")


def _body(mail: Mail) -> bytes:
    texts = [
        _leaf(f"text/{sub}; charset=utf-8", None, text.encode("utf-8", "surrogatepass"))
        for sub, text in (("plain", mail.plain), ("html", mail.html))
        if text
    ]
    body = texts[0] if len(texts) == 1 else _multipart("alternative", texts) if texts else b""
    if not mail.attachments:
        return body or _leaf("text/plain; charset=utf-8", None, b"")
    parts = ([body] if body else []) + [_attachment(part) for part in mail.attachments]
    return _multipart("mixed", parts)


def _attachment(part: Part) -> bytes:
    if part.message is not None:
        inner = render(part.message)
        disposition = _disposition(part.filename)
        return b"Content-Type: message/rfc822\r\n" + disposition + b"\r\n" + inner
    return _leaf(part.content_type, part.filename, part.data)


def _leaf(content_type: str, filename: str | None, data: bytes) -> bytes:
    encoded = base64.b64encode(data)
    lines = b"\r\n".join(encoded[i : i + _LINE] for i in range(0, len(encoded), _LINE))
    return (
        f"Content-Type: {_token(content_type)}\r\n".encode()
        + _disposition(filename)
        + b"Content-Transfer-Encoding: base64\r\n\r\n"
        + lines
        + b"\r\n"
    )


def _disposition(filename: str | None) -> bytes:
    if filename is None:
        return b""
    return (
        f"Content-Disposition: attachment; filename*=utf-8''{quote(filename, safe='')}\r\n".encode()
    )


def _token(content_type: str) -> str:
    """A content type safe to write: the reader's `type/subtype`, else octet-stream."""
    value = content_type.strip()
    if "/" not in value or any(c.isspace() or not c.isprintable() for c in value.split(";")[0]):
        return "application/octet-stream"
    return value


def _multipart(subtype: str, parts: list[bytes]) -> bytes:
    boundary = "=_" + hashlib.sha256(b"".join(parts)).hexdigest()[:32]
    delimiter = f"\r\n--{boundary}\r\n".encode()
    return (
        f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n\r\n'.encode()
        + b"".join(delimiter + part for part in parts)
        + f"\r\n--{boundary}--\r\n".encode()
    )
