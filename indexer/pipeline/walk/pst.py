"""Outlook `.pst`/`.ost` mailboxes in the walk: the file's own record, then one entry per message.

Message `n` (from 1) of folder `Inbox/Projects` is `box.pst#Inbox/Projects/<n>`, its
MIME bytes in `data` (extracted as `eml`, attachments as children). The messages
are read by a process of their own (`indexer.formats.msg.pst`), streamed through a
pipe a message at a time, so memory stays bounded however large the mailbox; libpff
is C, and a crash, a hang or a memory blow-up on a damaged mailbox ends that
process: the messages read before it are kept, and one `unreadable` record says why.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace

import orjson

from indexer.pipeline.walk.policy import PST_EXTENSIONS
from indexer.pipeline.walk.walker import Entry
from indexer.registry import extension_of

__all__ = ["is_pst", "messages"]

TIMEOUT = 120.0
"""Seconds the reader may take for one message before it is taken for hung."""
MEMORY_MB = 2048
"""The reader process's address-space cap."""
_FRAME = 8


def is_pst(rel: str) -> bool:
    """True for a path the walk treats as an Outlook mailbox."""
    return extension_of(rel) in PST_EXTENSIONS


def messages(entry: Entry) -> Iterator[Entry]:
    """One entry per message of the mailbox `entry`, in folder order (see the module doc);
    none for a file of no bytes (an `empty` mailbox, not a damaged one)."""
    if entry.size == 0:
        return
    command = [sys.executable, "-m", "indexer.formats.msg.pst", os.fsdecode(entry.path)]
    last = (entry.rel, 0)
    with subprocess.Popen(
        [*command, str(MEMORY_MB)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as reader:
        assert reader.stdout is not None
        error = None
        try:
            while (frame := _frame(reader.stdout.fileno())) is not None:
                folder, n, problem, data = frame
                last = (f"{entry.rel}#{folder}/", n)
                if problem is not None:
                    yield replace(_message(entry, *last, b""), skip="unreadable", detail=problem)
                else:
                    yield _message(entry, *last, data)
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
        rel, n = last if last[1] else (f"{entry.rel}#", 0)
        yield replace(_message(entry, rel, n + 1, b""), skip="unreadable", detail=error)


def _message(entry: Entry, prefix: str, n: int, data: bytes) -> Entry:
    return replace(entry, rel=f"{prefix}{n}", size=len(data), data=data)


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
