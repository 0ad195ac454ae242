"""mbox mailboxes: listed by the walk a message at a time (`lists`), memory bounded by
the largest message; read whole by a direct `indexer.extract` call (`extract`).

Message `n` (from 1) is `box.mbox#<n>`. A non-blank file with no `From ` separator at
all is one message, when it is small enough to read whole, so its text is never lost.

A message starts at a `From ` separator line that begins the file or follows a
blank line, and is itself followed by a header line, so a body line beginning
with "From " never starts a message (Python's `mailbox` splits at every line
that starts with "From "). A `Content-Length` header is honoured when the byte
it points at is the end of the file or another separator (mboxcl/mboxcl2);
otherwise the message ends at the next separator and `>From ` quoting is undone
the mboxrd way (one `>` removed from every `>…>From ` line).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import BinaryIO

from indexer._extract import failure
from indexer._spec import Held, Listing
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS

VERSION = VERSIONS["mbox"]  # bumped in indexer/formats/__init__.py

_BLOCK = 1 << 20
_TAIL = 1 << 16
_HEADER_LINE = re.compile(rb"[!-9;-~]+:")
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d{1,12})[ \t]*\r?$")
_QUOTED_FROM = re.compile(rb"(?m)^>(>*From )")


class _More:
    """The buffer ends before the answer: read more."""


_MORE = _More()


def lists(listing: Listing) -> Iterator[Held]:
    """Each message of the mbox, in file order (see the module doc); a read error is one
    last damaged `Held` after the messages read before it."""
    count = 0
    try:
        with listing.open() as handle:
            for count, message in enumerate(split(handle), start=1):
                yield _held(count, message)
        if count == 0 and listing.size <= listing.max_bytes:
            with listing.open() as handle:
                whole = handle.read(listing.max_bytes + 1)
            if whole.strip():
                yield _held(1, whole)
    except OSError as exc:
        n = str(count + 1)
        yield Held(path=n, name=f"{n}.eml", data=None, size=0, problem=str(exc), damaged=True)


def _held(n: int, message: bytes) -> Held:
    return Held(path=str(n), name=f"{n}.eml", data=message, size=len(message))


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """The messages of an mbox read whole, each by the mail extractor, their chunks in
    order (a direct `indexer.extract` call: a run lists them as documents instead)."""
    messages = list(split(io.BytesIO(data))) or ([data] if data.strip() else [])
    whole = read_whole(
        "mbox", ((f"{path}#{n}", m) for n, m in enumerate(messages, start=1)), options
    )
    if not whole.chunks and data.strip():  # no message gave text (no mail at all): the raw text
        from indexer.formats import text as plain

        raw = plain.extract(data, path, options)
        if not raw.chunks:  # bytes that decode to nothing (a byte-order mark): no text
            return failure("mbox", "no_text: no message and no text", {"container": "mbox"})
        return replace(raw, kind="mbox", degraded=True, metadata={"container": "mbox"})
    return whole


def read_whole(kind: str, messages: Iterable[tuple[str, bytes]], options: Options) -> Extracted:
    """A mailbox of `kind` read whole: each (path, bytes) message by the mail extractor,
    their texts and chunks in order."""
    from indexer.formats import eml  # the mail reader, only when a mailbox is read whole

    parts = [eml.extract(data, path, options) for path, data in messages]
    return Extracted(
        kind=kind,
        text="\n\n".join(p.text for p in parts if p.text),
        chunks=tuple(chunk for part in parts for chunk in part.chunks),
        metadata={"container": kind},
    )


def split(handle: BinaryIO) -> Iterator[bytes]:
    """Yield each message of the mbox read from `handle`, without its separator line.

    Text before the first separator is not a message and is dropped; a file with no
    separator at all yields nothing.
    """
    buffer, eof, pos, trimmed = b"", False, None, False
    while True:
        if pos is None:
            # once the file's start is gone, a separator needs its blank line (search from 1)
            pos = _separator(buffer, 1 if trimmed else 0)
        found = None if pos is None else _message_end(buffer, pos, eof)
        if found is None:
            if eof:
                return
            # keep the unfinished message, or a tail long enough to hold a separator, and read on
            if pos is not None:
                buffer, pos = buffer[pos:], 0
            elif len(buffer) > _TAIL:
                buffer, trimmed = buffer[-_TAIL:], True
            more = handle.read(_BLOCK)
            eof = not more
            buffer += more
            continue
        message, after = found
        yield message
        if after >= len(buffer) and eof:
            return
        pos = after


def _message_end(buffer: bytes, start: int, eof: bool) -> tuple[bytes, int] | None:
    """The message starting at `start` (a separator line) and where the next one starts."""
    line_end = buffer.find(b"\n", start)
    if line_end < 0:
        return None
    body_start = line_end + 1
    sized = _by_content_length(buffer, body_start, eof)
    if isinstance(sized, _More):
        return None
    if sized is not None:
        return sized
    following = _separator(buffer, body_start)
    if following is None:
        if not eof:
            return None
        return _unquote(buffer[body_start:]), len(buffer)
    return _unquote(buffer[body_start:following]), following


def _separator(buffer: bytes, pos: int) -> int | None:
    """Where the first separator line at or after `pos` starts, or None.

    A separator is a `From ` line at the very start of the file (`pos` 0) or after a
    blank line, followed by a header line. Found with `bytes.find`, not a regex: a
    pattern that starts with an alternation has no literal to skip ahead with.
    """
    if pos == 0 and buffer.startswith(b"From ") and _header_follows(buffer, 0):
        return 0
    at = pos
    while (at := buffer.find(b"\nFrom ", at)) >= 0:
        start = at + 1
        blank = buffer[at - 1 : at] == b"\n" or buffer[at - 2 : at] == b"\n\r"
        if at - 1 >= pos and blank and _header_follows(buffer, start):
            return start
        at = start
    return None


def _header_follows(buffer: bytes, start: int) -> bool:
    line_end = buffer.find(b"\n", start)
    return line_end >= 0 and _HEADER_LINE.match(buffer, line_end + 1) is not None


def _by_content_length(
    buffer: bytes, body_start: int, eof: bool
) -> tuple[bytes, int] | _More | None:
    """The message by its Content-Length; `_MORE` when the buffer is too short to tell."""
    header_end = _header_end(buffer, body_start)
    if header_end is None:
        return None if eof else _MORE
    length = _CONTENT_LENGTH.search(buffer, body_start, header_end[0])
    if length is None:
        return None
    end = header_end[1] + int(length.group(1))
    if end + 8 > len(buffer) and not eof:
        return _MORE
    if end > len(buffer):
        return None
    rest = buffer[end : end + 6]
    while rest.startswith((b"\n", b"\r\n")):
        end += 1 if rest.startswith(b"\n") else 2
        rest = buffer[end : end + 6]
    if rest.startswith(b"From ") or (end >= len(buffer) and eof):
        return buffer[body_start:end].rstrip(b"\r\n") + b"\n", end
    return None


def _header_end(buffer: bytes, start: int) -> tuple[int, int] | None:
    """Start and end of the blank line that ends the headers (LF or CRLF), or None."""
    lf = buffer.find(b"\n\n", start)
    # look for CRLF only before the first LF pair: never scan the whole buffer per message
    crlf = buffer.find(b"\r\n\r\n", start, lf + 1 if lf >= 0 else len(buffer))
    if crlf >= 0:
        return crlf, crlf + 4
    return None if lf < 0 else (lf, lf + 2)


def _unquote(raw: bytes) -> bytes:
    raw = raw.rstrip(b"\r\n") + b"\n"
    return _QUOTED_FROM.sub(rb"\1", raw) if b">From " in raw else raw
