"""Extraction jobs through the process pools: batched calls, isolated calls a few files
at a time, a failed call retried one job per call; children left pending (an archive's
members, a mail's attached PDFs) go to `pending.PendingChildren`.

A failure stays with its file: a job its worker died on becomes that file's failure
record, never an exception of the run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

import anyio

from indexer._types import Options
from indexer.config import Config
from indexer.errors import PoolError
from indexer.pipeline.extract.pending import PendingChildren, pool_failure
from indexer.pipeline.extract.store import pool_failed
from indexer.pipeline.extract.tasks import (
    Finished,
    Job,
    extract_jobs,
    finish,
    read_job,
)
from indexer.pipeline.extract.timed import extract_timed
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.output.units import Unit
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
        self.pending = PendingChildren(config, registry, pools, self._shared, self.keys.digests)
        self._limits = self.keys.limits_dep()

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
        unit = Unit(doc=pool_failure(job.spec.kind, exc, self.config.timeout))
        return finish(job, unit, exc.seconds, self.options, len(job.data))

    async def _complete(self, job: Job, done: Finished) -> Finished:
        """Extract a unit's pending children (`pending.PendingChildren`); render it."""
        if done.pending is None:
            return done
        return await self.pending.complete(job, done)
