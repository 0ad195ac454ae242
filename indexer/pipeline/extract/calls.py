"""Extraction jobs through the process pools: batched calls, isolated calls a few files
at a time, a failed call retried one job per call, and a mail's attached PDFs.

A failure stays with its file: a job its worker died on becomes that file's failure
record, never an exception of the run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

import anyio

from indexer._extract import failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.config import Config
from indexer.errors import PoolError
from indexer.pipeline.extract.store import pool_failed
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
from indexer.pipeline.incremental.limits import limits_dep
from indexer.pipeline.output.units import Child, Unit
from indexer.procpool.pool import WorkerPool
from indexer.procpool.worker import Shared
from indexer.registry import Registry

log = logging.getLogger(__name__)

ISOLATED_PER_CALL = 4
"""Isolated files (PDFs) sent to a worker in one call, each under its own deadline."""
_BACKSTOP_SECONDS = 5.0
"""Added to a multi-job isolated call's timeout: its jobs' own deadlines come first."""
OnIsolated = Callable[[list[int], list[Finished]], Awaitable[None]]
"""Called with each isolated call's job positions and complete results, as it ends."""


class PoolCalls:
    """Runs extraction jobs in the general and the isolated pool."""

    def __init__(
        self, config: Config, registry: Registry, pools: tuple[WorkerPool, WorkerPool]
    ) -> None:
        self.config = config
        self.registry = registry
        self.general, self.isolated = pools
        self.keys = CacheKeys(config, registry)
        self.options: Options = config.extract_options()
        self._shared = (Shared(self.options), Shared(registry), Shared(self.keys.digests))
        """The arguments every call passes, pickled once (see `Shared`)."""
        self._limits = limits_dep(config)

    async def extract(self, jobs: list[Job], on_isolated: OnIsolated) -> list[Finished]:
        """Extract `jobs`; return their complete results in order. Each isolated call's
        results go to `on_isolated` as soon as it ends, so that a slow PDF does not hold
        the others' results hostage until the whole batch is done."""
        plain = [i for i, job in enumerate(jobs) if not job.spec.isolated]
        alone = [i for i, job in enumerate(jobs) if job.spec.isolated]
        out: dict[int, Finished] = {}

        async def isolated(group: list[int]) -> None:
            await self._run_batch(self.isolated, [jobs[i] for i in group], group, out)
            for i in group:
                out[i] = await self._complete(jobs[i], out[i])
            await on_isolated(group, [out[i] for i in group])

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
            out[i]
            if jobs[i].spec.isolated
            else self._limited(await self._complete(jobs[i], out[i]))
            for i in range(len(jobs))
        ]

    def _limited(self, done: Finished) -> Finished:
        """A general worker's result, depending on its limits when they made it fail."""
        if not any(d.status == "failed" and pool_failed(d) for d in done.docs):
            return done
        return replace(done, deps=(*done.deps, self._limits))

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
        job = _child_job(self.registry, child)
        spec = job.spec
        try:
            timeout = self.config.timeout
            unit = await self.isolated.run(extract_unit, job, *self._shared[:2], timeout=timeout)
            extracted = unit.doc
        except PoolError as exc:
            extracted = self._pool_failure(spec.kind, exc)
        return replace(child, extracted=extracted, pending=None)

    def _pool_failure(self, kind: str, exc: PoolError) -> Extracted:
        detail = exc.reason  # out of memory: the pool names its own cap
        if exc.code == "timeout":
            detail = f"timeout after {self.config.timeout:g} s"
        chunk = Chunk(text=failure_text(kind, detail))
        return Extracted(kind=kind, text="", chunks=(chunk,), degraded=True, error=exc.code)


def _child_job(registry: Registry, child: Child) -> Job:
    """The job of a pending child: named by the last part of its path (its extension)."""
    assert child.pending is not None and child.extractor is not None and child.sha256
    name = child.suffix.rsplit("/", 1)[-1]
    return Job(registry.get(child.extractor), name, child.pending, child.sha256, child.size)
