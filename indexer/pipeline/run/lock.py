"""One run at a time per output folder: a kernel lock that dies with its holder."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.errors import LockHeld

LOCK_FILE = ".lock"


@contextmanager
def hold(out: Path) -> Iterator[None]:
    """Hold `out`'s lock for the duration of the block; raise `LockHeld` when taken.

    `flock` is released by the kernel when its holder dies, however it dies, so a
    lock left by a killed run never blocks the next one.
    """
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockHeld(
                out / LOCK_FILE, os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
            ) from None
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        os.ftruncate(fd, 0)
        # os.uname, not socket.gethostname: a re-run's start need not import socket.
        host = os.uname().nodename
        os.pwrite(fd, f"pid {os.getpid()} on {host} since {stamp}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
