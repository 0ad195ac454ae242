"""Chunk shards with deterministic boundaries, and reuse of unchanged shards.

A new shard starts at the walk entries `boundaries.Boundaries` picks (by their own path,
so boundaries do not move when files are added or removed elsewhere) and whenever the
next record would push it past `shard_bytes`. Beside its shards a generation keeps
`.layout.ndjson`, each shard's documents as `[digest, bytes]`. A new shard is matched
with the old shard that began with the same document, whatever its number: when it
receives exactly that shard's documents the old file is hard-linked, and when it
diverges the matching prefix is copied first, so a change costs only the shards it
touches (later shards may take new numbers; their files are linked, not written).
An old shard is used only once its size and sha256 match its manifest entry
(`verify.intact`, checked in a thread); a damaged one is reported and written again.
Each shard's document records go to the document shard of the same number
(`docshards`), linked too when unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import orjson

from indexer.pipeline.output.docshards import DOCUMENTS_PATTERN, DocumentShard
from indexer.pipeline.output.previous import LAYOUT, OldShard, PreviousShards
from indexer.pipeline.output.segments import SEG, Whole, link_or_copy
from indexer.pipeline.output.staging import FileInfo, NdjsonFile

log = logging.getLogger(__name__)

SHARD_PATTERN = "chunks-{:05d}.ndjson"
_COPY_AT = 1 << 20


def layout_line(
    name: str, docs: Sequence[tuple[str, int]], seg: dict[str, Any] | None = None
) -> bytes:
    """One shard's line of `.layout.ndjson`: its name and its documents' `[digest, bytes]`;
    on a segment's last shard, maybe the segment's summary (`segments`)."""
    line: dict[str, Any] = {"name": name, "docs": docs}
    if seg is not None:
        line[SEG] = seg
    return orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)


class _Shard:
    """One shard being written, matched against its old namesake while it can be."""

    def __init__(self, path: Path, documents: Path) -> None:
        self.file = NdjsonFile(path)
        self.documents = DocumentShard(documents)
        self.old: OldShard | None = None
        self.matched = 0
        """How many leading documents are the old shard's, not yet written."""
        self.docs: list[tuple[str, int]] = []

    async def matches(self, digest: str, size: int) -> bool:
        """True when the next old document is this one (and, at the first, the old
        file is intact: else it is dropped)."""
        old = self.old
        if old is None or self.matched >= len(old.docs) or old.docs[self.matched] != (digest, size):
            return False
        if not self.matched and not await old.trusted():
            self.old = None
            return False
        return True

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
    """Chunk records into `chunks-NNNNN.ndjson` shards, and document records into the
    `documents-NNNNN.ndjson` beside each (see the module docstring)."""

    def __init__(
        self,
        folder: Path,
        *,
        shard_bytes: int,
        prefix: str = "",
        previous: PreviousShards | None = None,
        layout: bool = False,
    ) -> None:
        self._folder = folder
        self._prefix = prefix
        self._shard_bytes = shard_bytes
        self._previous = previous
        self._layout = NdjsonFile(folder / LAYOUT) if layout else None
        """Each finished shard's documents, written as it closes, so the parent's memory
        does not hold a list that grows with the corpus."""
        self._next = 0
        self._current: _Shard | None = None
        self.finished: list[FileInfo] = []
        self.documents: list[FileInfo] = []
        """Each finished shard's document shard, in order."""
        self._syncing: list[NdjsonFile] = []
        """Closed shards whose fsync runs while the next ones are written."""
        self._segment_from = 0
        """How many shards were finished when the segment being written began."""

    async def start_entry(self, new_shard: bool) -> None:
        """Note that the next walk entry begins; with `new_shard`, it begins a shard
        (`boundaries.Boundaries`)."""
        if new_shard:
            await self.end_segment(None)

    def segment_shards(self) -> int:
        """How many shards the segment being written has (its open one included)."""
        return len(self.finished) + (self._current is not None) - self._segment_from

    async def end_segment(self, seg: dict[str, Any] | None) -> None:
        """End the segment being written: close its last shard, noting `seg` (its
        summary) on that shard's layout line."""
        await self._roll(seg)
        self._segment_from = len(self.finished)

    async def link_whole(self, whole: Whole) -> None:
        """Link a segment's shards from the previous generation (checked already,
        `PreviousSegments.whole`), each under the next number."""
        await self.end_segment(None)
        folder, prefix = self._folder, self._prefix
        for chunks, documents, entry in whole.shards:
            name = prefix + SHARD_PATTERN.format(self._next)
            documents_name = prefix + DOCUMENTS_PATTERN.format(self._next)
            self._next += 1
            await anyio.to_thread.run_sync(link_or_copy, chunks.path, folder / name)
            await anyio.to_thread.run_sync(link_or_copy, documents.path, folder / documents_name)
            self.finished.append(replace(chunks.info, name=name))
            self.documents.append(replace(documents.info, name=documents_name))
            if self._layout is not None:
                line = {**entry, "name": name}
                await self._layout.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
        self._segment_from = len(self.finished)

    async def write(self, block: bytes | bytearray, count: int, digest: str) -> None:
        """Append a document's `count` chunk record lines, given as one block."""
        if not count:
            return
        current = self._current or self._open()
        if current.file.size + len(block) <= self._shard_bytes:
            await self._put(current, block, count, digest)
        else:
            await self._split(block, digest)

    async def document(self, line: bytes) -> None:
        """Append a document record, after its chunks (`write`)."""
        await (self._current or self._open()).documents.write(line)

    async def _split(self, block: bytes | bytearray, digest: str) -> None:
        """Spread a block over shards, rolling over before a line that would not fit
        (a shard's first line always goes in). Each part is tagged with the index of
        its first line, so an unchanged split document still matches its old parts.

        The cuts are found in place: a list of the block's lines cost a document of a
        million chunks more memory than the block itself."""
        at, i, end = 0, 0, len(block)  # `i`: the index of the line that starts at `at`
        while at < end:
            current = self._current or self._open()
            room = self._shard_bytes - current.file.size
            cut = end if end - at <= room else block.rfind(b"\n", at, at + max(room, 0)) + 1
            if cut <= at and not current.file.records:  # a shard's first line always goes in
                cut = block.index(b"\n", at) + 1
            if cut > at:
                count = block.count(b"\n", at, cut)
                await self._put(current, block[at:cut], count, f"{digest}/{i}")
                at, i = cut, i + count
            if at < end:
                await self._roll()

    async def _put(self, current: _Shard, block: bytes | bytearray, count: int, tag: str) -> None:
        """Add a block to `current`: only counted while it matches the old shard."""
        file = current.file
        if not current.docs and self._previous is not None:  # its first: find its old self
            current.old = self._previous.get(tag)
        if await current.matches(tag, len(block)):
            current.matched += 1
            file.records += count
            file.size += len(block)
        else:
            await current.materialise()
            file.append(block, count)
            await file.flush_if_full()
        current.docs.append((tag, len(block)))

    def _open(self) -> _Shard:
        folder, prefix, n = self._folder, self._prefix, self._next
        self._current = _Shard(
            folder / (prefix + SHARD_PATTERN.format(n)),
            folder / (prefix + DOCUMENTS_PATTERN.format(n)),
        )
        self._next += 1
        return self._current

    async def _roll(self, seg: dict[str, Any] | None = None) -> None:
        current, self._current = self._current, None
        if current is not None:
            info = await current.close()
            self.documents.append(await current.documents.close(self._previous))
            self._syncing += (current.file, current.documents.file)
            self.finished.append(info)
            if self._layout is not None:
                await self._layout.write(layout_line(info.name, current.docs, seg))

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

    async def abandon(self) -> None:
        """After a failure: wait for the fsyncs under way and close every file still
        open, raising nothing (the staging folder is discarded)."""
        with contextlib.suppress(OSError):
            await self.synced()
        if self._previous is not None:
            self._previous.close()
        current = self._current
        files = (current.file, current.documents.file) if current is not None else ()
        for file in (*files, self._layout):
            if file is not None:
                await file.abandon()

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
