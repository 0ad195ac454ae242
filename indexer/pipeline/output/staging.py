"""Staged NDJSON output and its commit: nothing half-written is ever presented as done.

A run writes every file into `OUT/.staging/`, fsyncs them, and commits by renaming
the staging folder to a new generation folder `OUT/.gen-<n>/` and then the
`OUT/.current` symlink to it, in one atomic rename. The names readers use
(`OUT/manifest.json`, `OUT/chunks-00000.ndjson`, ...) are symlinks through
`.current`, so every reader sees either the whole old output or the whole new one,
whenever the run is killed. `recover()` (after each commit and at the start of
every run) points the names at the current generation and removes old ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import orjson

if TYPE_CHECKING:
    from aiofiles.threadpool.binary import AsyncBufferedIOBase

STAGING = ".staging"
CURRENT = ".current"
GENERATION = ".gen-"
MANIFEST = "manifest.json"
_FLUSH_AT = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class FileInfo:
    """A finished output file, as the manifest lists it."""

    name: str
    records: int
    bytes: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        """The manifest entry for this file."""
        return {
            "name": self.name,
            "records": self.records,
            "bytes": self.bytes,
            "sha256": self.sha256,
        }


class NdjsonFile:
    """An NDJSON file written through a buffer, hashed as it goes, fsynced on close.

    Hashing and writing happen off the event loop, a megabyte at a time.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records = 0
        self.size = 0
        self._hash = hashlib.sha256()
        self._buffer = bytearray()
        self._handle: AsyncBufferedIOBase | None = None
        self._syncing: _Sync | None = None

    def append(self, line: bytes | bytearray, records: int = 1) -> None:
        """Buffer `records` whole lines given as one byte string; `write`/`close` flush."""
        self._buffer += line
        self.records += records
        self.size += len(line)

    async def write(self, line: bytes) -> None:
        """Append one line, flushing the buffer to disk when it is large."""
        self.append(line)
        await self.flush_if_full()

    async def flush_if_full(self) -> None:
        """Write the buffer out once it holds a megabyte or more."""
        if len(self._buffer) >= _FLUSH_AT:
            await self._flush()

    async def write_raw(self, block: bytes) -> None:
        """Write bytes already counted in `records` and `size` (a reused prefix)."""
        await self._flush()
        await self._write_out(block)

    async def _flush(self) -> None:
        # The buffer itself is written (and replaced), not a bytes copy of it: every
        # shard byte passes through here, and a copy would double the memcpy.
        block, self._buffer = self._buffer, bytearray()
        await self._write_out(block)

    async def _write_out(self, block: bytes | bytearray) -> None:
        if self._handle is None:
            import aiofiles  # here: a re-run that re-commits its output writes no file

            self._handle = await aiofiles.open(self.path, "wb")
        if block:
            await anyio.to_thread.run_sync(self._hash.update, block)
            await self._handle.write(block)

    async def close(self, *, sync_later: bool = False) -> FileInfo:
        """Flush, fsync and close; return the file's manifest entry.

        With `sync_later`, the fsync runs in a thread of its own while the caller goes
        on (the writer fills the next shard meanwhile): `synced()` waits for it,
        closes the file and raises what the fsync raised.
        """
        await self._flush()
        assert self._handle is not None
        await self._handle.flush()
        if sync_later:
            self._syncing = _Sync(self._handle.fileno())
        else:
            await anyio.to_thread.run_sync(os.fsync, self._handle.fileno())
            await self._handle.close()
        return FileInfo(
            name=self.path.name,
            records=self.records,
            bytes=self.size,
            sha256=self._hash.hexdigest(),
        )

    async def abandon(self) -> None:
        """Close the file if open, unflushed and unsynced, raising nothing: a failed run's."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                await handle.close()

    async def synced(self) -> None:
        """Wait for the fsync `close(sync_later=True)` started; close the file."""
        syncing, self._syncing = self._syncing, None
        if syncing is None:
            return
        assert self._handle is not None
        try:
            await anyio.to_thread.run_sync(syncing.wait)
        finally:
            await self._handle.close()


class _Sync:
    """An fsync running in a thread of its own; `wait` joins it and raises its error."""

    def __init__(self, fd: int) -> None:
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, args=(fd,), name="fsync", daemon=True)
        self._thread.start()

    def _run(self, fd: int) -> None:
        try:
            os.fsync(fd)
        except OSError as exc:
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def prepare_staging(out: Path) -> Path:
    """Finish any interrupted commit, then return a fresh, empty staging folder in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    recover(out)
    staging = out / STAGING
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    return staging


@contextmanager
def staging_discarded(out: Path) -> Iterator[None]:
    """Delete `out`'s staging folder when the block ends, however it ends (hold `out`'s
    lock): a commit renames it, so one still there was not committed, and a failed or
    interrupted run frees its disk space at once rather than at the next run."""
    try:
        yield
    finally:
        shutil.rmtree(out / STAGING, ignore_errors=True)


def commit(out: Path, manifest: dict[str, Any], files: list[str]) -> str:
    """Atomically replace `out`'s output with the staged `files` and `manifest`; return
    the sha256 (hex) of the manifest written.

    The staging folder becomes a generation folder `.gen-<n>`, and one rename of
    the `.current` symlink switches every reader from the old generation to the
    new one; the names in `out` are symlinks through `.current`. Raises OSError on
    I/O failure; before the rename the previous output is untouched, after it the
    new one is complete, and `recover()` tidies whatever a kill left between.
    """
    staging = out / STAGING
    manifest_bytes = orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n"
    _write_durably(staging / MANIFEST, manifest_bytes)
    for name in files:
        path = staging / name
        # A file linked from a committed generation was made durable by that commit:
        # only its new name is not, and the folder's fsync below covers every name.
        if os.stat(path).st_nlink == 1:
            _fsync_file(path)
    _fsync_dir(staging)
    generation = f"{GENERATION}{_current_generation(out) + 1}"
    os.rename(staging, out / generation)
    _fsync_dir(out)
    link = out / (CURRENT + ".tmp")
    link.unlink(missing_ok=True)
    os.symlink(generation, link)
    os.replace(link, out / CURRENT)  # the commit
    _fsync_dir(out)
    recover(out)
    return hashlib.sha256(manifest_bytes).hexdigest()


def recover(out: Path) -> bool:
    """Point `out`'s names at the current generation and delete older generations.

    Returns True when there was anything to tidy (a run killed around its commit).
    """
    current = out / CURRENT
    if not current.is_symlink():
        return False
    wanted = {p.name for p in current.iterdir() if not p.name.startswith(".")}
    changed = False
    for name in sorted(wanted):
        path = out / name
        if not path.is_symlink() or os.readlink(path) != f"{CURRENT}/{name}":
            tmp = out / f".{name}.link"
            tmp.unlink(missing_ok=True)
            os.symlink(f"{CURRENT}/{name}", tmp)
            os.replace(tmp, path)
            changed = True
    for path in out.iterdir():
        target = os.readlink(path) if path.is_symlink() else ""
        stale_link = target.startswith(f"{CURRENT}/") and path.name not in wanted
        old_generation = path.name.startswith(GENERATION) and path.name != os.readlink(current)
        if stale_link:
            path.unlink()
        elif old_generation:
            shutil.rmtree(path, ignore_errors=True)
        changed = changed or stale_link or old_generation
    _fsync_dir(out)
    return changed


def _current_generation(out: Path) -> int:
    current = out / CURRENT
    if not current.is_symlink():
        return 0
    return int(os.readlink(current).removeprefix(GENERATION) or 0)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
