"""Outlook `.pst`/`.ost` mailboxes, listed by the walk a message at a time (`lists`).

Message `n` (from 1) of folder `Inbox/Projects` is `box.pst#Inbox/Projects/<n>`, its
MIME bytes extracted as `eml` (attachments as children). The messages are read by a
process of their own (`indexer.formats.msg.pst`), streamed through a pipe a message at
a time, so memory stays bounded however large the mailbox; libpff is C, and a crash, a
hang or a memory blow-up on a damaged mailbox ends that process: the messages read
before it are kept, and one `unreadable` record says why. libpff reads a path, so a
mailbox of a source that is not local is one `unreadable` record.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from functools import partial
from typing import BinaryIO

import orjson

from indexer._spec import Held, Listing
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS

__all__ = ["extract", "lists"]

VERSION = VERSIONS["pst"]  # bumped in indexer/formats/__init__.py

MAGIC = b"!BDN"
"""How every `.pst` and `.ost` file begins."""
TIMEOUT = 120.0
"""Seconds the reader may take for one message before it is taken for hung."""
MEMORY_MB = 2048
"""The reader process's address-space cap."""
_FRAME = 8


def lists(listing: Listing) -> Iterator[Held]:
    """Each message of the mailbox, in folder order (see the module doc); none for a
    file of no bytes (an `empty` mailbox, not a damaged one)."""
    if listing.size == 0:
        return
    if listing.path is None:
        yield _unreadable("", 1, "the mailbox reader needs a local file")
        return
    command = [sys.executable, "-m", "indexer.formats.msg.pst", os.fsdecode(listing.path)]
    last = ("", 0)
    with subprocess.Popen(
        [*command, str(MEMORY_MB)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as reader:
        assert reader.stdout is not None
        error = None
        try:
            while (frame := _frame(reader.stdout.fileno())) is not None:
                folder, n, problem, data = frame
                last = (f"{folder}/", n)
                if problem is not None:
                    yield _unreadable(*last, problem)
                else:
                    yield Held(path=f"{folder}/{n}", name=f"{n}.eml", data=data, size=len(data))
        except TimeoutError:
            error = f"the mailbox reader gave nothing for {TIMEOUT:g} s"
        except ValueError as exc:
            error = f"the mailbox reader wrote a broken frame: {exc}"
        finally:
            reader.kill()
        code = reader.wait()
    if error is None and code != 0:
        error = f"the mailbox reader ended with {_ended(code)}"
    if error is not None:
        prefix, n = last if last[1] else ("", 0)
        yield _unreadable(prefix, n + 1, error)


def _reopen(name: str) -> BinaryIO:
    return open(name, "rb")


def _unreadable(prefix: str, n: int, problem: str) -> Held:
    return Held(
        path=f"{prefix}{n}", name=f"{n}.eml", data=None, size=0, problem=problem, damaged=True
    )


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """The messages of a mailbox read whole, each by the mail extractor, their chunks in
    order (a direct `indexer.extract` call: a run lists them as documents instead);
    `failed` when the reader can read none of it."""
    from indexer._extract import failure
    from indexer.formats.mbox import read_whole

    if not data.strip():
        return Extracted(kind="pst", text="")
    if not data.startswith(MAGIC):  # not worth a reader process
        return failure("pst", "corrupt: no PST header")
    with tempfile.NamedTemporaryFile(suffix=".pst") as handle:
        handle.write(data)
        handle.flush()
        listing = Listing(
            rel=path, path=os.fsencode(handle.name), size=len(data),
            open=partial(_reopen, handle.name), max_bytes=len(data),
        )  # fmt: skip
        held = list(lists(listing))
    messages = [(f"{path}#{h.path}", h.data) for h in held if h.data is not None]
    if not messages:
        problems = [h.problem for h in held if h.problem]
        return failure("pst", f"corrupt: {problems[-1] if problems else 'no messages'}")
    return read_whole("pst", messages, options)


def _frame(fd: int) -> tuple[str, int, str | None, bytes] | None:
    """The next frame: `[folder, n, error]` and the message; None at the end."""
    head = _read(fd, _FRAME)
    if not head:
        return None
    sizes = int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")
    body = _read(fd, sizes[0] + sizes[1])
    if len(head) < _FRAME or len(body) < sum(sizes):
        raise ValueError("the stream ended inside a frame")
    header = orjson.loads(body[: sizes[0]])
    match header:
        case [str(folder), int(n), str() | None as problem]:
            return folder, n, problem, body[sizes[0] :]
    raise ValueError(f"unexpected header {header!r}"[:200])


def _read(fd: int, size: int) -> bytes:
    """Up to `size` bytes (fewer only at the end); raises TimeoutError when none come."""
    parts: list[bytes] = []
    left = size
    while left:
        ready, _, _ = select.select([fd], [], [], TIMEOUT)
        if not ready:
            raise TimeoutError
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _ended(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"exit status {code}"
