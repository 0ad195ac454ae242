"""The local engine: walk, extract on all cores, restore walk order, write, commit.

    walk (thread, sorted) -> batches -> N async workers -> reorder -> writer -> commit
                                         | read + hash (thread, batched)
                                         | text formats: general process pool, batched
                                         | isolated (pdf): isolated pool, one file a call,
                                         |   timeout, memory cap, recycling

One task group; bounded streams between stages; a window semaphore caps how far
the walk may run ahead of the writer, so memory does not grow with the corpus.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from indexer.config import Config
from indexer.pipeline.engines.dispatch import Batch, Dispatcher, Taken, Window
from indexer.pipeline.extract.batch import ISOLATED_PER_CALL, BatchExtractor, Work
from indexer.pipeline.incremental.keys import spec_for
from indexer.pipeline.incremental.state import State
from indexer.pipeline.incremental.tree import Digests
from indexer.pipeline.output.changes import CHANGES, ChangeTracker
from indexer.pipeline.output.records import FileOutcome, container_outcome, skipped
from indexer.pipeline.output.shards import LAYOUT, PreviousShards, ShardWriter
from indexer.pipeline.output.staged import Staged, Tally
from indexer.pipeline.output.staging import DOCUMENTS, NdjsonFile
from indexer.pipeline.walk.mailbox import expand_archives, is_container
from indexer.pipeline.walk.walker import Entry, policy_for, walk
from indexer.procpool.pool import WorkerPool
from indexer.registry import ExtractorSpec, Registry

log = logging.getLogger(__name__)

_WALK_BATCH = 256
_HELD_BYTES = 64 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Part:
    """A contiguous slice of the walk, processed on its own (the distributed engine's unit).

    `first_seq` must be a multiple of `shard_files`, so that its shards start where
    the local engine's would; its files are named with `prefix`.
    """

    entries: list[Entry]
    first_seq: int
    prefix: str


class Engine:
    """One run of the local engine over `source` (or one `Part` of it) into `staging`."""

    def __init__(
        self,
        source: Path,
        staging: Path,
        config: Config,
        registry: Registry,
        on_progress: Callable[[str, Any], None] | None = None,
        state: State | None = None,
        previous: dict[str, int] | None = None,
        part: Part | None = None,
        pools: tuple[WorkerPool, WorkerPool] | None = None,
        previous_output: Path | None = None,
        walked: Iterator[Entry] | None = None,
    ) -> None:
        self.source = source
        self.pools = pools
        """Open (general, isolated) pools owned by the caller, else the run opens its own."""
        self.staging = staging
        self.part = part
        self.config = config
        self.registry = registry
        self.state = state
        self.previous = previous
        self.previous_output = previous_output
        """The committed generation folder whose unchanged shards may be linked, if any."""
        self.walked = walked
        """The walk of `source`, when the caller has begun it (else the engine walks)."""
        self.tree = Digests()
        """The digests of the walk, for the state to note with the commit (`tree.py`)."""
        self.window = Window(config.window, 0 if part is None else part.first_seq)
        self._notify = on_progress or (lambda event, value: None)
        self._producer_failed = False

    async def run(self) -> Staged:
        """Extract and stage everything; return what was staged (nothing is committed)."""
        if self.pools is not None:
            return await self._run(*self.pools)
        general, isolated = make_pools(self.config)
        async with general, isolated:
            return await self._run(general, isolated)

    async def _run(self, general: WorkerPool, isolated: WorkerPool) -> Staged:
        config = self.config
        extractor = BatchExtractor(config, self.registry, general, isolated, self.state)
        # One queue of batches per pool: a stretch of PDFs waiting on the isolated pool
        # must not hold back the text batches behind it while the general pool idles.
        # The window alone bounds how far the walk runs ahead, so the queues may hold it.
        send_general, recv_general = anyio.create_memory_object_stream[Work](config.window)
        send_alone, recv_alone = anyio.create_memory_object_stream[Work](config.window)
        send_out, recv_out = anyio.create_memory_object_stream[list[FileOutcome]](config.window)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._walk, send_general, send_alone, send_out.clone(), extractor)
            # Twice the processes, plus one: a batch is read and stored while another
            # is extracted.
            for recv, processes in (
                (recv_general, config.workers),
                (recv_alone, config.pdf_workers),
            ):
                for _ in range(2 * processes + 1):
                    tg.start_soon(self._work, recv.clone(), send_out.clone(), extractor)
                recv.close()
            send_out.close()
            staged = await self._write(recv_out)
        await extractor.flush()
        return replace(staged, tree=self.tree.value, redo=extractor.redo)

    # -- walking ---------------------------------------------------------------------------

    async def _walk(
        self,
        send_general: MemoryObjectSendStream[Work],
        send_alone: MemoryObjectSendStream[Work],
        send_out: MemoryObjectSendStream[list[FileOutcome]],
        extractor: BatchExtractor,
    ) -> None:
        """Walk, settle in the walk's thread what needs no work (skipped entries,
        containers, unchanged files with current output), batch the rest."""
        config, registry = self.config, self.registry
        if self.part is None:
            entries = walk_entries(self.source, config, registry, self.walked, self.tree)
            seq = 0
        else:
            entries, seq = iter(self.part.entries), self.part.first_seq
        # Isolated (PDF) files go in their own small batches: a batch's outcomes are
        # written together, and one slow PDF must not hold 63 other files hostage.
        # One call per process, of four PDFs, each under its own deadline (`timed`).
        per_batch = ISOLATED_PER_CALL * max(1, config.pdf_workers)
        dispatcher = Dispatcher(
            self.window,
            Batch(send_general, config.batch_files, config.batch_bytes),
            Batch(send_alone, per_batch, config.batch_bytes),
            send_out,
            small=config.batch_files,
        )

        async def take(at: int) -> Taken | None:
            taken = await anyio.to_thread.run_sync(self._take, entries, at, extractor)
            if taken is not None:
                self._notify("walked", taken[0])
            return taken

        async with send_general, send_alone, send_out, self._failing():
            await dispatcher.run(take, seq)

    def _take(self, entries: Iterator[Entry], seq: int, extractor: BatchExtractor) -> Taken | None:
        """The next entries of the walk from position `seq` (in a thread), as a `Taken`;
        None at the end of the walk."""
        taken = _take(entries, _WALK_BATCH)
        if not taken:
            return None
        settled: dict[int, FileOutcome] = {}
        items: list[tuple[int, Entry, ExtractorSpec]] = []
        for at, entry in enumerate(taken, seq):
            if entry.skip is not None:
                settled[at] = skipped(at, entry)
            elif is_container(entry):
                settled[at] = container_outcome(at, entry)
            else:
                items.append((at, entry, spec_for(self.registry, entry)))
        ready, work = extractor.prepare(items)
        settled.update((outcome.seq, outcome) for outcome in ready)
        if self.state is not None and self.part is None:
            # A skipped entry is not seen: the sweep drops its row, so that an output
            # stored before it was skipped (an unreadable night; chmod keeps the mtime)
            # never passes for current once it is readable again.
            self.state.mark_seen([entry.rel for entry in taken if entry.skip is None])
        return len(taken), settled, work

    @asynccontextmanager
    async def _failing(self) -> AsyncIterator[None]:
        """Note a failed producer, so the writer does not mistake its missing entries
        for a bug: the producer's own error is the one the run reports."""
        try:
            yield
        except BaseException:
            self._producer_failed = True
            raise

    # -- extracting ------------------------------------------------------------------------

    async def _work(
        self,
        recv_work: MemoryObjectReceiveStream[Work],
        send_out: MemoryObjectSendStream[list[FileOutcome]],
        extractor: BatchExtractor,
    ) -> None:
        async with recv_work, send_out, self._failing():
            async for work in recv_work:
                self._notify("started", [entry.rel for _, entry, _, _ in work])
                await send_out.send(await extractor.process(work))

    # -- writing ---------------------------------------------------------------------------

    async def _write(self, recv_out: MemoryObjectReceiveStream[list[FileOutcome]]) -> Staged:
        prefix = "" if self.part is None else self.part.prefix
        old = self.previous_output
        shards = ShardWriter(
            self.staging,
            shard_bytes=self.config.shard_bytes,
            shard_files=self.config.shard_files,
            prefix=prefix,
            previous=None
            if old is None
            else await anyio.to_thread.run_sync(PreviousShards.open, old),
            layout=True,  # a partition's, renamed and joined by the dask driver
        )
        documents = NdjsonFile(self.staging / (prefix + DOCUMENTS))
        changes = NdjsonFile(self.staging / CHANGES) if self.previous is not None else None
        tracker = ChangeTracker(self.previous or {})
        tally = Tally()
        window = self.window
        pending: dict[int, FileOutcome] = {}
        next_seq = 0 if self.part is None else self.part.first_seq
        async with recv_out, _syncs_waited(shards):
            async for outcomes in recv_out:  # a whole batch per message: fewer loop turns
                for outcome in outcomes:
                    pending[outcome.seq] = outcome
                    window.arrived(outcome)
                while next_seq in pending:
                    ready = pending.pop(next_seq)
                    await shards.start_entry(next_seq)
                    chunks = 0
                    for doc in ready.docs:
                        await shards.write(doc.block, doc.count, doc.digest)
                        chunks += doc.count
                        await documents.write(doc.line)
                        change = tracker.see(doc.path, doc.doc_id, doc.line)
                        if change is not None and changes is not None:
                            await changes.write(change)
                    tally.add(ready, chunks)
                    self._notify("done", ready)
                    window.wrote(next_seq)
                    next_seq += 1
        if pending and not self._producer_failed:
            raise RuntimeError(f"walk entries never arrived: {sorted(pending)[:5]}")
        shard_infos = await shards.close()
        doc_info = await documents.close()
        files = [doc_info.name, *(s.name for s in shard_infos)]
        if self.part is None:
            files.append(LAYOUT)
        if changes is not None:
            for line in tracker.removed():
                await changes.write(line)
            files.append((await changes.close()).name)
            tally.changes = dict(tracker.counts)
        manifest_files = {
            "documents": doc_info.to_dict(),
            "shards": [s.to_dict() for s in shard_infos],
        }
        return Staged(files=files, manifest_files=manifest_files, tally=tally)


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


def make_pools(config: Config) -> tuple[WorkerPool, WorkerPool]:
    """The (general, isolated) process pools `config` asks for, not yet open."""
    general = WorkerPool(size=config.workers, name="extract")
    # A call takes up to ISOLATED_PER_CALL files: recycle after `recycle_after` files.
    per_call = min(ISOLATED_PER_CALL, config.recycle_after)
    isolated = WorkerPool(
        size=config.pdf_workers,
        name="isolated",
        max_tasks_per_worker=max(1, config.recycle_after // per_call),
        memory_limit_mb=config.max_memory_mb,
    )
    return general, isolated


def walk_entries(
    source: Path,
    config: Config,
    registry: Registry,
    walked: Iterator[Entry] | None = None,
    tree: Digests | None = None,
) -> Iterator[Entry]:
    """The entries a run processes, in order: the walk (`walked` if given, else a new
    one), digested into `tree` if given, each mbox followed by its messages."""
    if walked is None:
        walked = walk(source, policy_for(config, registry.handles))
    if tree is not None:
        walked = tree.follow(walked)
    return expand_archives(walked, config.max_file_bytes)


def _take(entries: Iterator[Entry], n: int) -> list[Entry]:
    taken: list[Entry] = []
    held = 0
    for entry in islice(entries, n):  # mbox messages carry their bytes: bound them too
        taken.append(entry)
        held += len(entry.data or b"")
        if held > _HELD_BYTES:
            break
    return taken
