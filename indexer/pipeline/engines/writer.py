"""The writer: outcomes arrive in any order and are written in walk order.

Each entry's chunks and documents go to the shards (`ShardWriter`: `chunks-NNNNN` and
`documents-NNNNN`, linked from a previous generation when unchanged) and, against the
previous commit, their changes to `changes.ndjson`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from indexer.pipeline.engines.context import OnProgress, RunContext, Stretch
from indexer.pipeline.engines.segmenting import Segmenter, add_whole, summary
from indexer.pipeline.engines.window import Window
from indexer.pipeline.output.changes import CHANGES, Deferred, Previous
from indexer.pipeline.output.previous import LAYOUT, PreviousShards
from indexer.pipeline.output.records import FileOutcome
from indexer.pipeline.output.segments import Whole
from indexer.pipeline.output.shards import ShardWriter
from indexer.pipeline.output.staged import Staged, Tally
from indexer.pipeline.output.staging import NdjsonFile


class Writer:
    """Writes a stretch's outcomes in walk order into the staging folder."""

    def __init__(
        self,
        ctx: RunContext,
        stretch: Stretch,
        window: Window,
        notify: OnProgress,
        shards: ShardWriter,
        segments: Segmenter,
    ) -> None:
        self.window = window
        self.notify = notify
        self.shards = shards
        self.changes = NdjsonFile(ctx.staging / CHANGES) if ctx.previous is not None else None
        self.deferred = Deferred(Previous() if ctx.previous is None else ctx.previous)
        self.tally = Tally()
        self._waiting: dict[int, FileOutcome] = {}
        self._next = stretch.first_seq
        self._starts = segments.starts
        """Positions that begin a shard (`Segmenter` adds them)."""
        self._digests = segments.digests
        self._segment = _Segment(self._next)

    @classmethod
    async def open(
        cls,
        ctx: RunContext,
        stretch: Stretch,
        window: Window,
        notify: OnProgress,
        segments: Segmenter,
    ) -> Writer:
        """A writer into `ctx.staging`, linking unchanged shards of `ctx.previous_output`."""
        old = ctx.previous_output
        previous = None if old is None else await anyio.to_thread.run_sync(PreviousShards.open, old)
        shards = ShardWriter(
            ctx.staging,
            shard_bytes=ctx.config.shard_bytes,
            prefix=stretch.prefix,
            previous=previous,
            layout=True,  # a partition's is renamed and joined by the dask driver
        )
        return cls(ctx, stretch, window, notify, shards, segments)

    @property
    def pending(self) -> list[int]:
        """Positions that arrived but could not be written: an earlier one never came."""
        return sorted(self._waiting)

    async def drain(self, recv_out: MemoryObjectReceiveStream[list[FileOutcome]]) -> None:
        """Write the outcomes from `recv_out` in walk order, until it is closed."""
        window, waiting = self.window, self._waiting
        async with recv_out, _syncs_waited(self.shards):
            async for outcomes in recv_out:  # a whole batch per message: fewer loop turns
                self.notify("arrived", outcomes)
                for outcome in outcomes:
                    waiting[outcome.seq] = outcome
                    window.arrived(outcome)
                while self._next in waiting:
                    await self._write(waiting.pop(self._next))
                    window.wrote(self._next)
                    self._next += 1

    async def _write(self, ready: FileOutcome) -> None:
        shards, changes, deferred = self.shards, self.changes, self.deferred
        if self._next in self._starts:
            self._starts.discard(self._next)
            await self._end_segment()
            self._segment = _Segment(self._next)
        if ready.whole is not None:
            await self._take_whole(ready.whole)
            self.notify("done", ready)
            return
        segment = self._segment
        chunks = 0
        for doc in ready.docs:
            await shards.write(doc.block, doc.count, doc.digest)
            chunks += doc.count
            await shards.document(doc.line)
            segment.paths.append(doc.path)
            if changes is not None and deferred.hold(doc.path, doc.doc_id, doc.line):
                await self._flush(changes)
        self.tally.add(ready, chunks)
        segment.tally.add(ready, chunks)
        self.notify("done", ready)

    async def _take_whole(self, whole: Whole) -> None:
        """Link a segment of the previous generation as it is: its documents are the
        previous commit's, unchanged."""
        await self.shards.link_whole(whole)
        add_whole(self.tally, whole.seg)
        documents = [old.path.name for _, old, _ in whole.shards]
        self.deferred.taken_whole(documents, whole.seg["paths"])
        self._segment = _Segment(None)  # summarised already

    async def _flush(self, changes: NdjsonFile) -> None:
        """Write the held documents' changes (`Deferred.flush`: the previous records read
        first when they are still to be)."""
        for line in await anyio.to_thread.run_sync(self.deferred.flush):
            await changes.write(line)

    async def _end_segment(self) -> None:
        """Close the segment being written, noting its summary when it has one."""
        segment, count = self._segment, self.shards.segment_shards()
        digest = None if segment.first is None else self._digests.pop(segment.first, None)
        seg = None
        if digest is not None and count:
            seg = summary(digest, count, segment.tally, segment.paths)
        await self.shards.end_segment(seg)

    async def abandon(self) -> None:
        """After a failure: close every file still open, unsynced, raising nothing (the
        staging folder is discarded)."""
        await self.shards.abandon()
        self.deferred.close()
        if self.changes is not None:
            await self.changes.abandon()

    async def close(self) -> Staged:
        """Close every file; return what is staged (the layout and changes included)."""
        await self._end_segment()
        shard_infos = await self.shards.close()
        doc_infos = self.shards.documents
        files = [*(d.name for d in doc_infos), *(s.name for s in shard_infos), LAYOUT]
        if self.changes is not None:
            await self._flush(self.changes)
            tracker = self.deferred.tracker
            assert tracker is not None
            for line in tracker.removed():
                await self.changes.write(line)
            self.deferred.close()
            files.append((await self.changes.close()).name)
            self.tally.changes = dict(tracker.counts)
        manifest_files = {
            "documents": [d.to_dict() for d in doc_infos],
            "shards": [s.to_dict() for s in shard_infos],
        }
        return Staged(files=files, manifest_files=manifest_files, tally=self.tally)


class _Segment:
    """What the writer gathers of the segment it writes, for its summary."""

    __slots__ = ("first", "paths", "tally")

    def __init__(self, first: int | None) -> None:
        self.first = first
        """Its first position, where `Segmenter` notes its digest; None when taken whole."""
        self.tally = Tally()
        self.paths: list[str] = []


@asynccontextmanager
async def _syncs_waited(shards: ShardWriter) -> AsyncIterator[None]:
    """On a failure, wait for the shards' background fsyncs and close their files
    (their errors give way to the failure's own)."""
    try:
        yield
    except BaseException:
        with anyio.CancelScope(shield=True), contextlib.suppress(OSError):
            await shards.synced()
        raise
