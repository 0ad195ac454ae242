"""Turning a batch of walk entries into file outcomes: reuse, read, extract, remember.

Unchanged files (same size, mtime, inode and device, current key) are settled in
the walk's thread by `prepare`: their stored output is written as it is. For the
rest, `process` reads and hashes them in one thread hop and looks their key up
among all stored outputs (a copy, a rename, a touch), or, with nothing stored yet
(a first run), lets the worker read them. What is left goes to a process pool (the
isolated one for extractors that ask for it, and a mail's attached PDFs), which
sends back rendered output lines. Outputs are stored every half second, in one
transaction (`_FLUSH_EVERY`), so a killed run loses only what was in flight and
the last half second.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import anyio
import orjson

from indexer._extract import failed, failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.config import Config
from indexer.errors import PoolError
from indexer.pipeline.extract.reading import Content, ReadResult, read_files
from indexer.pipeline.extract.tasks import (
    Finished,
    Job,
    extract_jobs,
    extract_unit,
    extract_units,
    finish,
    keyed,
    read_job,
)
from indexer.pipeline.extract.timed import extract_timed
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import FileRow, Known, State
from indexer.pipeline.output.records import (
    DocOutcome,
    FileOutcome,
    Rendered,
    pack,
    rebase,
    render,
    unit_docs,
    unpack,
)
from indexer.pipeline.output.units import POOL_FAILURES, Child, Unit
from indexer.pipeline.walk.walker import Entry
from indexer.procpool.pool import WorkerPool
from indexer.procpool.worker import Shared
from indexer.registry import ExtractorSpec, Registry

log = logging.getLogger(__name__)

_FLUSH_EVERY = 0.5
"""Seconds between stores of finished results: one transaction per half second, not
per batch, because each commit rewrites every index page its random keys touch. A
killed run loses at most this much finished work."""
ISOLATED_PER_CALL = 4
"""Isolated files (PDFs) sent to a worker in one call, each under its own deadline."""
_BACKSTOP_SECONDS = 5.0
"""Added to a multi-job isolated call's timeout: its jobs' own deadlines come first."""
_FLUSH_BYTES = 32 << 20
"""Store sooner when the buffered outputs reach this size (memory bound)."""

WorkItem = tuple[int, Entry, ExtractorSpec, Known | None]
"""A walk entry to resolve: its position, the entry, its extractor, and what the
state knew of it when its size, mtime, inode and device were unchanged."""
Work = list[WorkItem]


@dataclass(frozen=True, slots=True)
class Hit:
    """A stored output found by key, rendered for the path that asked."""

    docs: tuple[Rendered, ...]
    deps: tuple[str, ...]


class BatchExtractor:
    """Resolves batches of walk entries into `FileOutcome`s."""

    def __init__(
        self,
        config: Config,
        registry: Registry,
        general: WorkerPool,
        isolated: WorkerPool,
        state: State | None,
    ) -> None:
        self.config = config
        self.registry = registry
        self.options: Options = config.extract_options()
        self.general = general
        self.isolated = isolated
        self.state = state
        self._rows: list[FileRow] = []
        """Finished results not stored yet (see `_FLUSH_EVERY`)."""
        self._row_bytes = 0
        self._flushed = time.monotonic()
        self.redo = 0
        """Files extracted or read with no output stored (failures from the isolation
        limits, read errors): the next run does them again, so a tree holding one is
        never re-committed as unchanged (`unchanged.py`)."""
        self.workers_read = state is None or state.empty()
        """Nothing to find by content: workers read new files themselves."""
        self.keys = CacheKeys(config, registry)
        self._shared = (Shared(self.options), Shared(registry), Shared(self.keys.digests))
        """The arguments every call passes, pickled once (see `Shared`)."""

    def prepare(
        self, items: list[tuple[int, Entry, ExtractorSpec]]
    ) -> tuple[list[FileOutcome], Work]:
        """Split walk entries into those whose stored output is current, as finished
        outcomes, and the work left. Blocking (it queries the state): call it in a thread.

        An unchanged file whose stored output was rendered under today's key is
        written from that output as it is: no read, no decoding, no rendering, no
        trip through a worker.
        """
        known = self.state.known([e for _, e, _ in items]) if self.state else [None] * len(items)
        ready: list[FileOutcome] = []
        work: Work = []
        for (seq, entry, spec), k in zip(items, known, strict=True):
            if (
                k is not None
                and k.output is not None
                and k.key == self.keys.key(k.sha256, spec, entry)
                and self.keys.current(k.deps)
            ):
                ready.append(_reused(seq, entry, unpack(k.output)))
            else:
                work.append((seq, entry, spec, k))
        return ready, work

    async def process(self, work: Work) -> list[FileOutcome]:
        """Return one outcome per entry of `work`, in the same order. Never raises for a file."""
        entries = [entry for _, entry, _, _ in work]
        hashes = [k.sha256 if k else None for _, _, _, k in work]
        keys = [
            self.keys.key(h, spec, entry) if h else None
            for h, (_, entry, spec, _) in zip(hashes, work, strict=True)
        ]
        found = await self._lookup(keys, entries)
        # With nothing stored yet (a first run, --full) there is nothing to find by
        # content: the worker reads the file itself, and its bytes skip the pipe.
        by_worker = {
            i for i, e in enumerate(entries) if self.workers_read and e.data is None and not keys[i]
        }
        to_read = [i for i, hit in enumerate(found) if hit is None and i not in by_worker]
        reads = dict(zip(to_read, await self._read([entries[i] for i in to_read]), strict=True))
        for i, read in reads.items():
            if read.sha256 is not None:
                hashes[i] = read.sha256
                keys[i] = self.keys.key(read.sha256, work[i][2], entries[i])
        second = await self._lookup([keys[i] for i in reads], [entries[i] for i in reads])
        for i, hit in zip(reads, second, strict=True):
            found[i] = hit
        todo = sorted(
            [i for i, read in reads.items() if read.error is None and found[i] is None]
            + list(by_worker)
        )
        limit = self.config.max_file_bytes
        jobs = [
            Job(work[i][2], entries[i].rel, b"", "", _size(entries[i]), entries[i].path, limit)
            if i in by_worker
            else Job(work[i][2], entries[i].rel, reads[i].data, hashes[i] or "", _size(entries[i]))
            for i in todo
        ]
        stored = [(entries[i], keys[i], work[i][3]) for i in todo]
        fresh = dict(zip(todo, await self._extract(jobs, stored), strict=True))
        for i in by_worker:
            done = fresh[i]
            if done.read_error is not None:
                reads[i] = ReadResult(error=done.read_error)
                del fresh[i]
            else:
                hashes[i] = done.sha256
                keys[i] = self.keys.key(done.sha256, work[i][2], entries[i])
        outcomes = [
            self._outcome(seq, e, spec, hashes[i], reads.get(i), found[i], fresh.get(i))
            for i, (seq, e, spec, _) in enumerate(work)
        ]
        await self._remember(work, hashes, keys, found, fresh, outcomes)
        return outcomes

    async def _read(self, entries: list[Entry]) -> list[ReadResult]:
        """Read and hash `entries` in one thread hop; none for nothing (a first run's
        workers read their files, sparing the parent a hop per batch of one PDF)."""
        if not entries:
            return []
        sources = [_source(entry) for entry in entries]
        return await anyio.to_thread.run_sync(read_files, sources, self.config.max_file_bytes)

    async def _lookup(self, keys: Sequence[str | None], entries: list[Entry]) -> list[Hit | None]:
        """Stored outputs under each key, rendered for each entry's path; None for misses."""
        wanted = [k for k in keys if k]
        if self.state is None or not wanted:
            return [None] * len(keys)
        return await anyio.to_thread.run_sync(self._hits, keys, entries)

    def _hits(self, keys: Sequence[str | None], entries: list[Entry]) -> list[Hit | None]:
        assert self.state is not None
        stored = iter(self.state.lookup([k for k in keys if k]))
        out: list[Hit | None] = []
        for key, entry in zip(keys, entries, strict=True):
            found = next(stored) if key else None
            if found is None or not self.keys.current(found.deps):
                out.append(None)
                continue
            docs = unpack(found.output)
            if found.path != entry.rel:  # a copy or a rename: the records name the path
                rebased = rebase(docs, found.path, entry.rel)
                if rebased is None:
                    out.append(None)
                    continue
                docs = rebased
            out.append(Hit(docs, found.deps))
        return out

    async def flush(self) -> None:
        """Store every finished result still buffered (call when the last batch is done)."""
        if self.state is not None:
            await self._flush_rows()

    async def _remember(
        self,
        work: Work,
        hashes: list[str | None],
        keys: list[str | None],
        found: list[Hit | None],
        fresh: dict[int, Finished],
        outcomes: list[FileOutcome],
    ) -> None:
        """Buffer each file's output under its key (isolated ones are buffered already)."""
        if self.state is None:
            return
        for i, ((_, entry, _, before), h, k, o) in enumerate(
            zip(work, hashes, keys, outcomes, strict=True)
        ):
            if i in fresh and fresh[i].stored:
                continue
            if not (h and k):  # not even read: nothing to store
                self.redo += 1
                continue
            hit = found[i]
            deps = hit.deps if hit is not None else fresh[i].deps if i in fresh else ()
            # A stored output found by its key is settled, a failure too (see `RETRY`).
            self._buffer(entry, h, k, o.docs, deps, before, settled=hit is not None)
        await self._maybe_flush()

    def _buffer(
        self,
        entry: Entry,
        sha256: str,
        key: str,
        docs: tuple[Rendered, ...],
        deps: tuple[str, ...],
        before: Known | None,
        *,
        settled: bool = False,
    ) -> None:
        """Add a file's row to those stored at the next flush. A failure from the
        isolation limits is stored under its key only when `settled` (found stored
        under it) or when `before`, what the state held for the file, is the same
        failure stored once (see `RETRY`)."""
        output = pack(docs)
        if not (settled or _cacheable(docs) or _failed_alike(before, key, output)):
            key += RETRY
            self.redo += 1
        self._rows.append((entry, sha256, key, output, deps))
        self._row_bytes += len(output)

    async def _maybe_flush(self) -> None:
        if time.monotonic() - self._flushed >= _FLUSH_EVERY or self._row_bytes >= _FLUSH_BYTES:
            await self._flush_rows()

    async def _flush_rows(self) -> None:
        """Store the buffered results, in one thread hop and one transaction."""
        assert self.state is not None
        rows, self._rows, self._row_bytes = self._rows, [], 0
        self._flushed = time.monotonic()
        if rows:
            await anyio.to_thread.run_sync(self.state.record, rows)

    async def _extract(
        self, jobs: list[Job], stored: list[tuple[Entry, str | None, Known | None]]
    ) -> list[Finished]:
        plain = [i for i, job in enumerate(jobs) if not job.spec.isolated]
        alone = [i for i, job in enumerate(jobs) if job.spec.isolated]
        out: dict[int, Finished] = {}

        async def isolated(group: list[int]) -> None:
            # The batch's isolated jobs go to the pool's processes a few per call, each
            # under its own deadline (`timed`). A call's finished work is not held
            # hostage until the whole batch is done: it joins a buffer that is stored
            # every half second (a thread hop per file cost more than a parse).
            await self._run_batch(self.isolated, [jobs[i] for i in group], group, out)
            for i in group:
                done = out[i] = await self._complete(jobs[i], out[i])
                entry, key, before = stored[i]
                if key is None and done.sha256:  # read by the worker
                    key = self.keys.key(done.sha256, jobs[i].spec, entry)
                if self.state is not None and key is not None and done.read_error is None:
                    self._buffer(entry, done.sha256, key, done.docs, done.deps, before)
                    out[i] = replace(done, stored=True)
            if self.state is not None:
                await self._maybe_flush()

        async with anyio.create_task_group() as tg:
            if plain:
                tg.start_soon(self._run_batch, self.general, [jobs[i] for i in plain], plain, out)
            # One call per process, of at most `ISOLATED_PER_CALL` files (and never more
            # than a worker may take before it is recycled).
            cap = min(ISOLATED_PER_CALL, self.config.recycle_after)
            per_call = min(cap, max(1, -(-len(alone) // self.isolated.size)))
            for at in range(0, len(alone), per_call):
                tg.start_soon(isolated, alone[at : at + per_call])
        return [
            out[i] if jobs[i].spec.isolated else await self._complete(jobs[i], out[i])
            for i in range(len(jobs))
        ]

    async def _run_batch(
        self, pool: WorkerPool, jobs: list[Job], slots: list[int], out: dict[int, Finished]
    ) -> None:
        """Extract `jobs` in one call into `out` at `slots`; when the call fails, each
        job again in a call of its own, so that the failure stays with its file.

        Several isolated jobs run each under its own deadline in the worker (`timed`):
        the call's own timeout, a multiple of it, is only a backstop.
        """
        seconds = self.config.timeout
        try:
            if pool is self.isolated and len(jobs) > 1:
                backstop = seconds * len(jobs) + _BACKSTOP_SECONDS
                call = pool.run(extract_timed, jobs, *self._shared, seconds, timeout=backstop)
            else:
                call = pool.run(extract_jobs, jobs, *self._shared, timeout=seconds)
            out.update(zip(slots, await call, strict=True))
            return
        except PoolError as exc:
            if len(jobs) == 1:
                out[slots[0]] = await self._failed_job(jobs[0], exc)
                return
            log.debug("batch of %d failed (%s); retrying one by one", len(jobs), exc.reason)
        for slot, job in zip(slots, jobs, strict=True):
            await self._run_batch(pool, [job], [slot], out)

    async def _failed_job(self, job: Job, exc: PoolError) -> Finished:
        """The failure record of a job its worker died on. A job the worker was to read
        is read here, so the record carries the file's hash as any other run's would."""
        if job.path is not None:
            loaded = await anyio.to_thread.run_sync(read_job, job)
            if isinstance(loaded, Finished):
                return loaded
            job = loaded
        unit = Unit(doc=self._pool_failure(job.spec.kind, exc))
        return finish(job, unit, 0.0, self.options, len(job.data))

    async def _complete(self, job: Job, done: Finished) -> Finished:
        """Extract a unit's pending (isolated) children, then render it here."""
        unit = done.pending
        if unit is None:
            return done
        children = await self._resolve(unit.children)
        complete = keyed(replace(unit, children=children), self.keys.digests)
        job = replace(job, sha256=done.sha256)  # the worker may have read and hashed it
        return finish(job, complete, done.seconds, self.options, done.bytes_read)

    async def _resolve(self, children: tuple[Child, ...]) -> tuple[Child, ...]:
        """`children` with the pending ones extracted: isolated ones a call each in the
        isolated pool, the others (an archive's members) in batches in the general pool,
        their own children spliced in after them and, if pending, resolved in turn."""
        found: list[list[Child]] = [[child] for child in children]
        general = [
            i
            for i, c in enumerate(children)
            if c.pending is not None and not self.registry.get(str(c.extractor)).isolated
        ]

        async def one(i: int) -> None:
            found[i] = [await self._isolated_child(children[i])]

        async def batch(group: list[int]) -> None:
            units = await self._general_children([children[i] for i in group])
            for i, unit in zip(group, units, strict=True):
                parent = replace(children[i], extracted=unit.doc, pending=None)
                inner = [replace(c, suffix=parent.suffix + c.suffix) for c in unit.children]
                found[i] = [parent, *inner]

        async with anyio.create_task_group() as tg:
            for i, child in enumerate(children):
                if child.pending is not None and i not in general:
                    tg.start_soon(one, i)
            size = self.config.batch_files
            for at in range(0, len(general), size):
                tg.start_soon(batch, general[at : at + size])
        flat = tuple(c for group in found for c in group)
        if any(c.pending is not None for c in flat):  # a PDF attached to a mail in a zip
            return await self._resolve(flat)
        return flat

    async def _general_children(self, children: list[Child]) -> list[Unit]:
        """The units of pending children extracted in the general pool in one call; when
        it fails, each in a call of its own, so that the failure stays with its child."""
        jobs = [_child_job(self.registry, child) for child in children]
        try:
            call = self.general.run(
                extract_units, jobs, *self._shared[:2], timeout=self.config.timeout
            )
            return list(await call)
        except PoolError as exc:
            if len(jobs) == 1:
                return [Unit(doc=self._pool_failure(jobs[0].spec.kind, exc))]
        return [(await self._general_children([child]))[0] for child in children]

    async def _isolated_child(self, child: Child) -> Child:
        assert child.pending is not None and child.extractor is not None and child.sha256
        spec = self.registry.get(child.extractor)
        name = child.suffix.rsplit("/", 1)[-1]
        job = Job(spec, name, child.pending, child.sha256, child.size)
        try:
            timeout = self.config.timeout
            unit = await self.isolated.run(extract_unit, job, *self._shared[:2], timeout=timeout)
            extracted = unit.doc
        except PoolError as exc:
            extracted = self._pool_failure(spec.kind, exc)
        return replace(child, extracted=extracted, pending=None)

    def _pool_failure(self, kind: str, exc: PoolError) -> Extracted:
        detail = exc.reason
        if exc.code == "timeout":
            detail = f"timeout after {self.config.timeout:g} s"
        elif exc.code == "out_of_memory":
            detail = f"out of memory (limit {self.config.max_memory_mb} MB)"
        chunk = Chunk(text=failure_text(kind, detail))
        return Extracted(kind=kind, text="", chunks=(chunk,), degraded=True, error=exc.code)

    def _outcome(
        self,
        seq: int,
        entry: Entry,
        spec: ExtractorSpec,
        sha256: str | None,
        read: ReadResult | None,
        cached: Hit | None,
        fresh: Finished | None,
    ) -> FileOutcome:
        in_archive = entry.data is not None
        if read is not None and read.error in ("not_regular_file", "too_large"):
            doc = DocOutcome(
                path=entry.rel, kind=None, size=entry.size, sha256=None, skip=read.error
            )
            return FileOutcome(seq=seq, docs=(render(doc),), in_archive=in_archive)
        if fresh is not None:
            extracted = sum(d.status != "skipped" for d in fresh.docs)
            return FileOutcome(
                seq=seq, docs=fresh.docs, extracted_now=extracted, in_archive=in_archive,
                bytes_read=fresh.bytes_read,
            )  # fmt: skip
        if cached is not None:
            return _reused(seq, entry, cached.docs)
        assert read is not None and read.error is not None
        unit = Unit(doc=failed(spec, b"", read.error, Options()))
        docs = unit_docs(entry.rel, spec.kind, spec.name, None, _size(entry), unit)
        return FileOutcome(seq=seq, docs=tuple(render(d) for d in docs), in_archive=in_archive)


def _reused(seq: int, entry: Entry, docs: tuple[Rendered, ...]) -> FileOutcome:
    reused = sum(d.status != "skipped" for d in docs)
    return FileOutcome(seq=seq, docs=docs, reused=reused, in_archive=entry.data is not None)


RETRY = "/retry"
"""Suffix of the key under which a failure from the isolation limits (a crash, a
timeout, out of memory) is first stored. No lookup asks for such a key, so the
next run extracts the file again, as a fresh run would: a failure of a loaded
machine may not come back. When it fails the same way, with the same output,
under the same key, the failure is stored under its key and reused like any
output, until the file, the extractor or the limits change (a `--timeout` or
`--max-memory` of its own gives another key), or `--full`. A "/" never occurs in
a key: the extension it ends with is part of a file name."""


def _cacheable(docs: tuple[Rendered, ...]) -> bool:
    """False for outputs with failures from the isolation limits (see `RETRY`)."""
    return not any(d.status == "failed" and _pool_failed(d) for d in docs)


def _failed_alike(before: Known | None, key: str, output: bytes) -> bool:
    """True when the state held this very failure for the file, stored once (`RETRY`)."""
    return before is not None and before.key == key + RETRY and before.output == output


def _pool_failed(doc: Rendered) -> bool:
    reason = orjson.loads(doc.line)["reason"]
    return reason in POOL_FAILURES


def _child_job(registry: Registry, child: Child) -> Job:
    """The job of a pending child: named by the last part of its path (its extension)."""
    assert child.pending is not None and child.extractor is not None and child.sha256
    name = child.suffix.rsplit("/", 1)[-1]
    return Job(registry.get(child.extractor), name, child.pending, child.sha256, child.size)


def _size(entry: Entry) -> int:
    return entry.size if entry.data is None else len(entry.data)


def _source(entry: Entry) -> bytes | Content:
    return entry.path if entry.data is None else Content(entry.data)
