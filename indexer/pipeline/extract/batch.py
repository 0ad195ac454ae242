"""Turning a batch of walk entries into file outcomes: reuse, read, extract, remember.

Unchanged files (same size, mtime, inode and device, current key) are settled in
the walk's thread by `prepare`: their stored output is written as it is. For the
rest, `process` reads and hashes them in one thread hop and looks their key up
among all stored outputs (a copy, a rename, a touch), or, with nothing stored yet
(a first run), lets the worker read them. What is left goes to a process pool
(`calls.PoolCalls`), which sends back rendered output lines; outputs are stored
in the state by `store.Store`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import anyio

from indexer.config import Config
from indexer.pipeline.extract.calls import PoolCalls
from indexer.pipeline.extract.copies import Copies, Made, as_hit, found_among
from indexer.pipeline.extract.reading import Content, Opener, ReadResult, read_files
from indexer.pipeline.extract.resolving import (
    Resolving,
    WorkItem,
    job_of,
    outcome_of,
    size_of,
    to_extract,
)
from indexer.pipeline.extract.reuse import Asker, Reuse, reused
from indexer.pipeline.extract.store import Store
from indexer.pipeline.extract.tasks import Finished
from indexer.pipeline.incremental.state import Known, State
from indexer.pipeline.output.records import FileOutcome, Rendered
from indexer.pipeline.walk.source import Source
from indexer.pipeline.walk.walker import Entry
from indexer.procpool.pool import WorkerPool
from indexer.registry import Registry


@dataclass(frozen=True, slots=True)
class Prepared:
    """Walk entries split by `BatchExtractor.prepare`."""

    ready: list[FileOutcome]
    """Entries whose stored output is current, as finished outcomes."""
    work: list[WorkItem]
    """The rest, in walk order, with what the state knew of each."""


class BatchExtractor:
    """Resolves batches of walk entries into `FileOutcome`s."""

    def __init__(
        self,
        config: Config,
        registry: Registry,
        pools: tuple[WorkerPool, WorkerPool],
        state: State | None,
        source: Source | None = None,
    ) -> None:
        self.config = config
        self.source = source
        """Where the entries come from: None or a local one, read by their path."""
        self.calls = PoolCalls(config, registry, pools)
        self.keys = self.calls.keys
        self.reuse = Reuse(self.keys, self.calls.options)
        self.state = state
        self.store = Store(state, self.keys.tag) if state is not None else None
        self.workers_read = (state is None or state.empty()) and (source is None or source.local)
        """Nothing to find by content, and paths to open: workers read new files themselves."""
        self.copies = Copies()

    @property
    def redo(self) -> int:
        """Files extracted or read with no output stored (`Store.redo`)."""
        return self.store.redo if self.store is not None else 0

    def prepare(self, items: list[WorkItem]) -> Prepared:
        """Split walk entries into those whose stored output is current, as finished
        outcomes, and the work left. Blocking (it queries the state): call it in a thread.

        An unchanged file whose stored output was rendered under today's key and
        packing is written from that output as it is: no read, no decoding, no
        rendering, no trip through a worker. Under another packing it is left to
        `process`, which re-packs its stored blocks.
        """
        if self.state is None:
            return Prepared([], items)
        known = self.state.known([item.entry for item in items])
        ready: list[FileOutcome] = []
        work: list[WorkItem] = []
        for item, k in zip(items, known, strict=True):
            docs = None if k is None else self._current(item, k)
            if docs is not None:
                ready.append(reused(item.seq, item.entry, docs))
            else:
                work.append(item if k is None else WorkItem(item.seq, item.entry, item.spec, k))
        return Prepared(ready, work)

    def _current(self, item: WorkItem, k: Known) -> tuple[Rendered, ...] | None:
        """What the state holds for `item`, when it was rendered under today's key and
        packing and its attachments' keys still hold."""
        if k.output is None or k.key != self.keys.key(k.sha256, item.spec, item.entry):
            return None
        return self.reuse.as_is(k.output) if self.keys.current(k.deps) else None

    async def process(self, work: list[WorkItem]) -> list[FileOutcome]:
        """Return one outcome per entry of `work`, in the same order. Never raises for a file."""
        files = [self._start(item) for item in work]
        await self._find(files)
        # With nothing stored yet (a first run, --full) there is nothing to find by
        # content: the worker reads the file itself, and its bytes skip the pipe.
        if self.workers_read:
            for f in files:
                size = size_of(f.item.entry)
                f.by_worker = f.item.entry.data is None and not f.key
                f.by_worker = f.by_worker and not self.copies.read_here(size)
                if f.by_worker:  # now, before any await: a copy must find it waiting
                    f.slot = self.copies.unread(size)
        reads = [f for f in files if f.hit is None and not f.by_worker]
        await self._read(reads)
        await self._find(reads)
        try:
            await self._extract_once(files)
        finally:  # a copy waiting in another batch must never wait for ever
            for f in files:
                if f.slot is not None:
                    f.slot.finish(None, None)
        outcomes = [outcome_of(f) for f in files]
        await self._remember(files, outcomes)
        return outcomes

    async def _extract_once(self, files: list[Resolving]) -> None:
        """Extract what `files` need, each content once in the run: first the files
        owning their key, then those whose key an earlier file of their size, read by
        its worker, turned out not to have; the copies take their output (`copies`)."""
        for f in files:
            self._claim(f)
        first = [f for f in files if to_extract(f) and not f.waits and f.copy_of is None]
        await self._extract(first)
        self._finished(first)
        later = []
        for f in files:
            if f.waits and f.key and f.slot is not None:
                made = await found_among(f.key, f.waits)
                if made is None or not self._copy(f, made):
                    later.append(f)
                else:
                    self.copies.finished(f.slot, f.key, made, self._claim_size(f))
        await self._extract(later)
        self._finished(later)
        again = []
        for f in files:
            if f.copy_of is not None:
                await f.copy_of.done.wait()
                made = f.copy_of.made
                if made is None or not self._copy(f, made):
                    again.append(f)  # nothing to share (a read error): its own, then
        await self._extract(again)

    def _claim(self, f: Resolving) -> None:
        """Take `f`'s place in this run's table of copies (one its worker reads has it)."""
        if not f.by_worker and f.key and to_extract(f):
            slot, own, f.waits = self.copies.claim(f.key, self._claim_size(f))
            if own:
                f.slot = slot
            else:
                f.copy_of = slot

    def _claim_size(self, f: Resolving) -> int:
        return len(f.read.data) if f.read is not None else size_of(f.item.entry)

    def _copy(self, f: Resolving, made: Made) -> bool:
        """Make `f` a copy of `made` (False when its records do not read back)."""
        f.hit = as_hit(made, f.item.entry.rel)
        f.copied = f.hit is not None
        return f.copied

    def _finished(self, files: list[Resolving]) -> None:
        """Share each extracted file's output with its copies."""
        for f in files:
            if f.slot is None:
                continue
            done = f.fresh
            made = None
            if done is not None and f.key and done.read_error is None:
                made = Made(f.item.entry.rel, done.docs, done.deps, done.blocks)
            size = size_of(f.item.entry) if f.by_worker else self._claim_size(f)
            self.copies.finished(f.slot, f.key, made, size)

    def _start(self, item: WorkItem) -> Resolving:
        known = item.known
        if known is None:
            return Resolving(item, None, None)
        return Resolving(item, known.sha256, self.keys.key(known.sha256, item.spec, item.entry))

    async def _read(self, files: list[Resolving]) -> None:
        """Read and hash `files` in one thread hop; none for nothing (a first run's
        workers read their files: a hop per batch of one PDF is costly)."""
        if not files:
            return
        sources = [self._source(f.item.entry) for f in files]
        reads = await anyio.to_thread.run_sync(read_files, sources, self.config.max_file_bytes)
        for f, read in zip(files, reads, strict=True):
            f.read = read
            if read.sha256 is not None:
                f.sha256 = read.sha256
                f.key = self.keys.key(read.sha256, f.item.spec, f.item.entry)

    async def _find(self, files: list[Resolving]) -> None:
        """Look each file's key up among the stored outputs (`hit`: None for misses)."""
        if self.state is not None and any(f.key for f in files):
            await anyio.to_thread.run_sync(self._hits, files)

    def _hits(self, files: list[Resolving]) -> None:
        """Set each file's `hit`: the output stored under its key, rendered for its path,
        when its attachments' keys are current (blocking)."""
        assert self.state is not None
        stored = iter(self.state.lookup([f.key for f in files if f.key]))
        for f in files:
            found = next(stored) if f.key else None
            f.hit = None
            if found is not None and f.sha256:
                size = None if f.read is None else len(f.read.data)
                asker = Asker(f.item.entry.rel, f.item.spec, f.sha256, size)
                f.hit = self.reuse.hit(found, asker)

    async def _extract(self, todo: list[Resolving]) -> None:
        """Extract `todo` in the pools into each file's `fresh`; a file its worker could
        not read gets that `read` error instead."""
        if not todo:
            return
        jobs = [job_of(f, self.config.max_file_bytes) for f in todo]

        async def stored(group: list[int], done: list[Finished]) -> None:
            await self._store_isolated([todo[i] for i in group], done)

        results = await self.calls.extract(jobs, stored)
        for f, done in zip(todo, results, strict=True):
            if f.by_worker and done.read_error is not None:
                f.read = ReadResult(error=done.read_error)
                continue
            f.fresh = done
            if f.by_worker:
                f.sha256 = done.sha256
                f.key = self.keys.key(done.sha256, f.item.spec, f.item.entry)

    def _source(self, entry: Entry) -> bytes | Content | Opener:
        if entry.data is not None:
            return Content(entry.data)
        if self.source is None or self.source.local:
            return entry.path
        return Opener(partial(self.source.open, entry))

    async def _store_isolated(self, files: list[Resolving], results: list[Finished]) -> None:
        """Buffer isolated files' outputs as their call ends: a slow PDF's batch-mates
        are stored without waiting for it."""
        if self.store is None:
            return
        for f, done in zip(files, results, strict=True):
            key = f.key
            if key is None and done.sha256:  # read by the worker
                key = self.keys.key(done.sha256, f.item.spec, f.item.entry)
            if key is not None and done.read_error is None:
                self.store.add(
                    f.item.entry, done.sha256, key, done.docs, done.deps, f.item.known,
                    done.blocks,
                )  # fmt: skip
                f.stored = True
        await self.store.maybe_flush()

    async def flush(self) -> None:
        """Store every finished result still buffered (call when the last batch is done)."""
        if self.store is not None:
            await self.store.flush()

    async def _remember(self, files: list[Resolving], outcomes: list[FileOutcome]) -> None:
        """Buffer each file's output under its key (isolated ones are buffered already)."""
        store = self.store
        if store is None:
            return
        for f, outcome in zip(files, outcomes, strict=True):
            if f.stored:
                continue
            made = f.hit or f.fresh
            # Not read, or not readable: what the outcome says is about the path, not
            # the content, so it is not stored under the content's key.
            if made is None or not (f.sha256 and f.key):
                store.redo += 1
                continue
            # A stored output found by its key is settled, a failure too (see `RETRY`).
            # A copy's output is stored as its original's was (a crash for a retry).
            store.add(
                f.item.entry, f.sha256, f.key, outcome.docs, made.deps, f.item.known,
                made.blocks, settled=f.hit is not None and not f.copied,
            )  # fmt: skip
        await store.maybe_flush()
