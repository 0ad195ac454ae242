"""Staging a stretch of the walk on open process pools: what both engines run.

    entries (thread) -> dispatcher -> N async workers -> writer (walk order) -> Staged
                                      | read + hash (thread, batched)
                                      | text formats: general pool, batched
                                      | isolated (pdf): isolated pool, a few files a call

One task group; bounded streams between stages; the dispatcher's window caps how
far the walk may run ahead of the writer, so memory does not grow with the corpus.
The local engine stages the whole walk; a dask worker stages one partition.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from indexer.pipeline.engines.context import Pools, RunContext, Stretch
from indexer.pipeline.engines.dispatch import Batch, Dispatcher
from indexer.pipeline.engines.entries import take
from indexer.pipeline.engines.segmenting import Segmenter, salt
from indexer.pipeline.engines.window import Taken, Window
from indexer.pipeline.engines.writer import Writer
from indexer.pipeline.extract.batch import BatchExtractor
from indexer.pipeline.extract.calls import ISOLATED_PER_CALL
from indexer.pipeline.extract.resolving import WorkItem
from indexer.pipeline.incremental.keys import spec_for
from indexer.pipeline.output.records import FileOutcome, container_outcome, skipped
from indexer.pipeline.output.segments import Whole
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.walk.mailbox import is_container
from indexer.procpool.pool import BUSY

_WALK_BATCH = 256
"""Walk entries read per thread hop."""


async def stage_stretch(ctx: RunContext, pools: Pools, stretch: Stretch) -> Staged:
    """Extract `stretch` on `pools` and write its files into `ctx.staging`; return what
    was staged. Raises only for infrastructure errors: a file's failure is a record."""
    return await _Flow(ctx, pools, stretch).run()


class _Flow:
    """One staging of a stretch: the walk's producer, the workers and the writer."""

    def __init__(self, ctx: RunContext, pools: Pools, stretch: Stretch) -> None:
        self.ctx = ctx
        keys = salt(ctx.config, ctx.registry)
        self.segments = Segmenter(ctx.config, keys, _wholes(ctx), ctx.state)
        self.items = self.segments.items(stretch.entries, stretch.first_seq)
        self.stretch = stretch
        self.extractor = BatchExtractor(ctx.config, ctx.registry, pools, ctx.state, ctx.source)
        self.window = Window(ctx.config.window, stretch.first_seq)
        self.notify = ctx.on_progress or _ignore
        self.producer_failed = False
        """A producer failed: its error is the run's, not the writer's missing entries."""

    async def run(self) -> Staged:
        config = self.ctx.config
        # One queue of batches per pool: a stretch of PDFs waiting on the isolated pool
        # must not hold back the text batches behind it while the general pool idles.
        # The window alone bounds how far the walk runs ahead, so the queues may hold it.
        send_general, recv_general = anyio.create_memory_object_stream[list[WorkItem]](
            config.window
        )
        send_alone, recv_alone = anyio.create_memory_object_stream[list[WorkItem]](config.window)
        send_out, recv_out = anyio.create_memory_object_stream[list[FileOutcome]](config.window)
        writer = await Writer.open(self.ctx, self.stretch, self.window, self.notify, self.segments)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._walk, send_general, send_alone, send_out.clone())
                # Twice the processes, plus one: a batch is read and stored while another
                # is extracted.
                pools = ((recv_general, config.workers), (recv_alone, config.pdf_workers))
                for recv, processes in pools:
                    for _ in range(2 * processes + 1):
                        tg.start_soon(self._work, recv.clone(), send_out.clone())
                    recv.close()
                send_out.close()
                await writer.drain(recv_out)
        except BaseException:  # the writer's files are closed, not left to the collector
            with anyio.CancelScope(shield=True):
                await writer.abandon()
            raise
        if writer.pending and not self.producer_failed:
            raise RuntimeError(f"walk entries never arrived: {writer.pending[:5]}")
        staged = await writer.close()
        await self.extractor.flush()
        return replace(staged, redo=self.extractor.redo)

    async def _walk(
        self,
        send_general: MemoryObjectSendStream[list[WorkItem]],
        send_alone: MemoryObjectSendStream[list[WorkItem]],
        send_out: MemoryObjectSendStream[list[FileOutcome]],
    ) -> None:
        """Walk, settle in the walk's thread what needs no work (skipped entries,
        containers, unchanged files with current output), batch the rest."""
        config = self.ctx.config
        # Isolated (PDF) files go in their own small batches: a batch's outcomes are
        # written together, and one slow PDF must not hold 63 other files hostage.
        per_batch = ISOLATED_PER_CALL * max(1, config.pdf_workers)
        dispatcher = Dispatcher(
            self.window,
            Batch(send_general, config.batch_files, config.batch_bytes),
            Batch(send_alone, per_batch, config.batch_bytes),
            send_out,
            small=config.batch_files,
        )

        async def take_at(seq: int) -> Taken | None:
            taken = await anyio.to_thread.run_sync(self._take, seq)
            if taken is not None:
                self.notify("walked", taken.walked)
            return taken

        async with send_general, send_alone, send_out, self._failing():
            await dispatcher.run(take_at, self.stretch.first_seq)

    def _take(self, seq: int) -> Taken | None:
        """The next entries of the walk from position `seq` (in a thread); None at its end."""
        taken = take(self.items, _WALK_BATCH)
        if not taken:
            return None
        settled: dict[int, FileOutcome] = {}
        items: list[WorkItem] = []
        registry = self.ctx.registry
        walked = len(taken)
        for at, entry in enumerate(taken, seq):
            if isinstance(entry, Whole):
                settled[at] = FileOutcome(seq=at, docs=(), whole=entry)
                walked += entry.entries - 1
            elif entry.skip is not None:
                settled[at] = skipped(at, entry)
            elif is_container(entry):
                settled[at] = container_outcome(at, entry)
            else:
                items.append(WorkItem(at, entry, spec_for(registry, entry)))
        prepared = self.extractor.prepare(items)
        settled.update((outcome.seq, outcome) for outcome in prepared.ready)
        return Taken(len(taken), settled, prepared.work, walked)

    @asynccontextmanager
    async def _failing(self) -> AsyncIterator[None]:
        """Note a failed producer, so the writer does not mistake its missing entries
        for a bug: the producer's own error is the one the run reports."""
        try:
            yield
        except BaseException:
            self.producer_failed = True
            raise

    async def _work(
        self,
        recv_work: MemoryObjectReceiveStream[list[WorkItem]],
        send_out: MemoryObjectSendStream[list[FileOutcome]],
    ) -> None:
        async with recv_work, send_out, self._failing():
            async for work in recv_work:
                paths = tuple(item.entry.rel for item in work)
                self.notify("started", list(paths))
                # The pools say when a process has the batch's call: the progress line
                # names what is being read, not what waits in a queue.
                token = BUSY.set(partial(self._busy, paths))
                try:
                    outcomes = await self.extractor.process(work)
                finally:
                    BUSY.reset(token)
                await send_out.send(outcomes)

    def _busy(self, paths: tuple[str, ...], busy: bool) -> None:
        self.notify("reading" if busy else "read", paths)


def _wholes(ctx: RunContext) -> Path | None:
    """The previous generation to take unchanged segments whole from: only where the
    slow path would reuse their stored outputs (a state that reuses, no --full)."""
    state = ctx.state
    if ctx.previous_output is None or state is None or not state.reuse:
        return None
    return ctx.previous_output


def _ignore(event: str, value: Any) -> None:
    """No progress display."""
