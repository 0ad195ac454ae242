"""Reuse of an earlier generation's files: only while they hold what its manifest says.

A committed file is reused by the next run (hard-linked, or its prefix copied) only
after its size and sha256 are checked against the manifest entry that committed
it. A file that fails the check is reported in one warning naming it, and what it
held is written again from the records of this run (which come from the state).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from indexer.pipeline.output.staging import FileInfo

log = logging.getLogger(__name__)

_READ = 8 << 20
"""Bytes read and hashed at a time: each block waits for the GIL behind the walk's
thread, so fewer, larger blocks wait less."""
_THREADS = 2
"""Files hashed at once: hashlib releases the GIL, so two cores hash two files."""


def intact(path: Path, info: FileInfo, stop: threading.Event | None = None) -> bool:
    """True when `path` holds exactly `info.bytes` bytes whose sha256 is `info.sha256`.

    Blocking (it reads the whole file); never raises: an unreadable file is not
    intact. Returns False early once `stop` is set.
    """
    digest = hashlib.sha256()
    # No larger than the file (plus a byte, to see one that grew): a fresh 8 MiB buffer
    # costs its page faults, for each of a night's hundreds of small shards.
    buffer = bytearray(min(_READ, info.bytes + 1))
    view = memoryview(buffer)
    size = 0
    try:
        with open(path, "rb", buffering=0) as handle:
            while n := handle.readinto(buffer):
                digest.update(view[:n])
                size += n
                if size > info.bytes or (stop is not None and stop.is_set()):
                    return False
    except OSError:
        return False
    return size == info.bytes and digest.hexdigest() == info.sha256


class Checking:
    """`intact` of the documents and shards a manifest lists, run in threads while the
    caller does something else (compares the walk); `result` waits for them, `cancel`
    stops them soon."""

    def __init__(self, folder: Path, manifest: dict[str, Any]) -> None:
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="verify")
        try:
            infos = [*listed_documents(manifest), *(FileInfo(**f) for f in manifest["shards"])]
        except (KeyError, TypeError):  # a manifest that does not list them vouches for none
            infos = None
        self._listed = infos is not None
        self._checks = [
            self._pool.submit(intact, folder / info.name, info, self._stop) for info in infos or ()
        ]

    def result(self) -> bool:
        """True when every file is intact (blocking; stops at the first that is not)."""
        try:
            return self._listed and all(check.result() for check in self._checks)
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop the checks (a file being read stops at its next block); never waits."""
        self._stop.set()
        self._pool.shutdown(wait=False, cancel_futures=True)


def listed_documents(manifest: dict[str, Any]) -> list[FileInfo]:
    """The document files a manifest lists: shards (a list), or one file in the layout
    before `OUTPUT_FORMAT` 4 (a single entry). Raises KeyError or TypeError for neither."""
    listed = manifest["documents"]
    return [FileInfo(**d) for d in (listed if isinstance(listed, list) else [listed])]


def same_bytes(path: Path, data: bytes | bytearray) -> bool:
    """True when the file at `path` holds exactly `data` (blocking; never raises)."""
    try:
        with open(path, "rb", buffering=0) as handle:
            if os.fstat(handle.fileno()).st_size != len(data):
                return False
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def report_damage(path: Path) -> None:
    """Warn that `path` no longer holds what its manifest committed."""
    log.warning(
        "%s does not match the manifest that committed it (size or sha256); "
        "not reused, written again from the state",
        path,
    )
