"""Chunk shards with deterministic boundaries, and reuse of unchanged shards.

A new shard starts at every `shard_files`-th walk entry (so a partition of that many
entries can be written on its own) and whenever the next record would push it past
`shard_bytes`. Beside its shards a generation keeps `.layout.ndjson`, each shard's
documents as `[digest, bytes]`: a new shard that receives exactly its namesake's
documents is hard-linked from the previous generation, and one that diverges copies
the matching prefix first, so a change costs only the shards it touches.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import anyio
import orjson

from indexer.pipeline.output.staging import MANIFEST, FileInfo, NdjsonFile

log = logging.getLogger(__name__)

SHARD_PATTERN = "chunks-{:05d}.ndjson"
LAYOUT = ".layout.ndjson"
_COPY_AT = 1 << 20


@dataclass(frozen=True, slots=True)
class OldShard:
    """A shard of the previous generation: its file, manifest entry and documents."""

    path: Path
    info: FileInfo
    docs: list[tuple[str, int]]


class PreviousShards:
    """The shards of the generation in `folder`, read in order as the writer needs them.

    Holds one shard's layout at a time, so memory does not grow with the output.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
        self._infos = {s["name"]: FileInfo(**s) for s in manifest["shards"]}
        self._handle: IO[bytes] | None = open(folder / LAYOUT, "rb")  # noqa: SIM115
        self._lines: Iterator[bytes] = iter(self._handle)

    @classmethod
    def open(cls, folder: Path) -> PreviousShards | None:
        """The previous generation's shards, or None when it has no usable layout."""
        try:
            return cls(folder)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.debug("no shard reuse from %s: %s", folder, exc)
            return None

    def get(self, name: str) -> OldShard | None:
        """The old shard called `name`, or None when there is none or it looks altered;
        shards must be asked for in increasing order."""
        try:
            return self._find(name)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # a damaged layout
            log.debug("no shard reuse from %s: %s", self.folder, exc)
            self.close()
            return None

    def _find(self, name: str) -> OldShard | None:
        info = self._infos.get(name)
        for line in self._lines:
            entry = orjson.loads(line)
            if entry["name"] > name:
                return None
            if entry["name"] == name:
                docs = [(str(tag), int(size)) for tag, size in entry["docs"]]
                path = self.folder / name
                if info is None or info.bytes != sum(n for _, n in docs):
                    return None
                if path.stat().st_size != info.bytes:  # truncated or appended to since
                    return None
                return OldShard(path, info, docs)
        return None

    def close(self) -> None:
        """Close the layout file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
            self._lines = iter(())


def layout_line(name: str, docs: Sequence[tuple[str, int]]) -> bytes:
    """One shard's line of `.layout.ndjson`: its name and its documents' `[digest, bytes]`."""
    return orjson.dumps({"name": name, "docs": docs}, option=orjson.OPT_APPEND_NEWLINE)


class _Shard:
    """One shard being written, matched against its old namesake while it can be."""

    def __init__(self, path: Path, old: OldShard | None) -> None:
        self.file = NdjsonFile(path)
        self.old = old
        self.matched = 0
        """How many leading documents are the old shard's, not yet written."""
        self.docs: list[tuple[str, int]] = []

    def matches(self, digest: str, size: int) -> bool:
        old = self.old
        return (
            old is not None
            and self.matched < len(old.docs)
            and (old.docs[self.matched] == (digest, size))
        )

    async def materialise(self) -> None:
        """Copy the matched prefix from the old file and stop matching."""
        old, self.old = self.old, None
        if old is None or not self.matched:
            return
        remaining = sum(size for _, size in old.docs[: self.matched])
        import aiofiles  # as in output.py: not needed by an unchanged re-run

        async with aiofiles.open(old.path, "rb") as handle:
            while remaining:
                block = await handle.read(min(remaining, _COPY_AT))
                if not block:
                    raise OSError(f"{old.path} is shorter than its manifest says")
                await self.file.write_raw(block)
                remaining -= len(block)

    async def close(self) -> FileInfo:
        old = self.old
        if old is not None and self.matched == len(old.docs):
            try:
                await anyio.to_thread.run_sync(os.link, old.path, self.file.path)
                return replace(old.info, name=self.file.path.name)
            except OSError as exc:  # another filesystem, no hard links: copy it
                log.debug("cannot link %s (%s); copying it", old.path, exc)
        await self.materialise()
        return await self.file.close(sync_later=True)


class ShardWriter:
    """Chunk records into `chunks-NNNNN.ndjson` shards (see the module docstring)."""

    def __init__(
        self,
        folder: Path,
        *,
        shard_bytes: int,
        shard_files: int,
        prefix: str = "",
        previous: PreviousShards | None = None,
        layout: bool = False,
    ) -> None:
        self._folder = folder
        self._prefix = prefix
        self._shard_bytes = shard_bytes
        self._shard_files = shard_files
        self._previous = previous
        self._layout = NdjsonFile(folder / LAYOUT) if layout else None
        """Each finished shard's documents, written as it closes, so the parent's memory
        does not hold a list that grows with the corpus."""
        self._next = 0
        self._current: _Shard | None = None
        self.finished: list[FileInfo] = []
        self._syncing: list[NdjsonFile] = []
        """Closed shards whose fsync runs while the next ones are written."""

    async def start_entry(self, seq: int) -> None:
        """Note that walk entry `seq` begins; roll over on a partition boundary."""
        if seq % self._shard_files == 0:
            await self._roll()

    async def write(self, block: bytes, count: int, digest: str) -> None:
        """Append a document's `count` chunk record lines, given as one block."""
        if not count:
            return
        current = self._current or self._open()
        if current.file.size + len(block) <= self._shard_bytes:
            await self._put(current, block, count, digest)
        else:
            await self._split(block, digest)

    async def _split(self, block: bytes, digest: str) -> None:
        """Spread a block over shards, rolling over before a line that would not fit
        (a shard's first line always goes in). Each part is tagged with the index of
        its first line, so an unchanged split document still matches its old parts."""
        lines = block.splitlines(keepends=True)
        i = 0
        while i < len(lines):
            current = self._current or self._open()
            size, j = current.file.size, i
            while j < len(lines) and (
                size + len(lines[j]) <= self._shard_bytes or not (current.file.records or j > i)
            ):
                size += len(lines[j])
                j += 1
            if j > i:
                await self._put(current, b"".join(lines[i:j]), j - i, f"{digest}/{i}")
                i = j
            if i < len(lines):
                await self._roll()

    async def _put(self, current: _Shard, block: bytes, count: int, tag: str) -> None:
        """Add a block to `current`: only counted while it matches the old shard."""
        file = current.file
        if current.matches(tag, len(block)):
            current.matched += 1
            file.records += count
            file.size += len(block)
        else:
            await current.materialise()
            file.append(block, count)
            await file.flush_if_full()
        current.docs.append((tag, len(block)))

    def _open(self) -> _Shard:
        name = self._prefix + SHARD_PATTERN.format(self._next)
        old = self._previous.get(name) if self._previous is not None else None
        self._current = _Shard(self._folder / name, old)
        self._next += 1
        return self._current

    async def _roll(self) -> None:
        current, self._current = self._current, None
        if current is not None:
            info = await current.close()
            self._syncing.append(current.file)
            self.finished.append(info)
            if self._layout is not None:
                await self._layout.write(layout_line(info.name, current.docs))

    async def close(self) -> list[FileInfo]:
        """Close the last shard; return every shard's manifest entry, in order.

        With `layout`, also writes `.layout.ndjson` for the next run to reuse.
        """
        await self._roll()
        if self._previous is not None:
            self._previous.close()
        if self._layout is not None:
            await self._layout.close()
        await self.synced()
        return self.finished

    async def synced(self) -> None:
        """Wait for the closed shards' fsyncs (raises the first one's error) and
        close their files."""
        syncing, self._syncing = self._syncing, []
        errors = []
        for file in syncing:
            try:
                await file.synced()
            except OSError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
