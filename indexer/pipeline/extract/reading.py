"""Reading walked files: many small reads in one thread hop, hashed on the way."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

_GROWTH_READ = 1 << 16
"""Bytes asked for at a time once a file turns out longer than its stat said."""


@dataclass(frozen=True, slots=True)
class Content:
    """Bytes already read (an mbox message), to hash instead of reading a path."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Opener:
    """An entry of a source that is not a local folder: read through the source's `open`."""

    open: Callable[[], BinaryIO]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadResult:
    """The bytes of one file and their hash, or why they could not be read."""

    data: bytes = b""
    sha256: str | None = None
    error: str | None = None


def read_files(sources: list[bytes | Content | Opener], limit: int) -> list[ReadResult]:
    """Read each path, or hash content already in hand (blocking; call from a thread).

    Never raises for one file. A file that is no longer regular (replaced by a FIFO
    since the walk), that grew past `limit` bytes or that is gone is reported, not read.
    """
    return [
        read_one(source, limit)
        if isinstance(source, bytes)
        else read_opened(source, limit)
        if isinstance(source, Opener)
        else ReadResult(data=source.data, sha256=hashlib.sha256(source.data).hexdigest())
        for source in sources
    ]


def read_opened(opener: Opener, limit: int) -> ReadResult:
    """Read and hash one entry through its source (blocking); never raises. An entry
    gone since the listing is `vanished`; one longer than `limit` is `too_large`."""
    parts: list[bytes] = []
    total = 0
    try:
        with opener.open() as handle:
            while total <= limit and (part := handle.read(_GROWTH_READ * 16)):
                parts.append(part)
                total += len(part)
    except FileNotFoundError:
        return ReadResult(error="vanished")
    except OSError as exc:
        return ReadResult(error=f"unreadable: {exc.strerror or exc}")
    if total > limit:
        return ReadResult(error="too_large")
    data = b"".join(parts)
    return ReadResult(data=data, sha256=hashlib.sha256(data).hexdigest())


def read_one(path: bytes, limit: int) -> ReadResult:
    """Read and hash one file (blocking); never raises. A file deleted since the walk
    is `vanished`, as the walk says of one deleted while it looked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        gone = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        return ReadResult(error="vanished" if gone else f"unreadable: {exc.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ReadResult(error="not_regular_file")
        if info.st_size > limit:
            return ReadResult(error="too_large")
        data = _read_to_end(fd, info.st_size, limit)
        if len(data) > limit:
            return ReadResult(error="too_large")
        return ReadResult(data=data, sha256=hashlib.sha256(data).hexdigest())
    except OSError as exc:
        return ReadResult(error=f"unreadable: {exc.strerror}")
    finally:
        os.close(fd)


def _read_to_end(fd: int, size: int, limit: int) -> bytes:
    """The bytes of `fd` to its end, expected to be `size`; stops past `limit` (a file
    that grew since its stat).

    Sized reads, not `BufferedReader.read(limit + 1)`: that allocates `limit + 1`
    bytes (256 MiB) for every file and shrinks them.
    """
    parts: list[bytes] = []
    total, want = 0, min(size, limit) + 1  # one byte more than expected: the end, or growth
    while total <= limit:
        part = os.read(fd, max(want - total, _GROWTH_READ))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)
