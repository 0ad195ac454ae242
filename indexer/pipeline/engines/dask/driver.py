"""The dask engine: the local engine's partitions, extracted on a `distributed` cluster.

    driver: walk -> partitions of `shard_files` entries -> submit (bounded) -> await in order
                                                                      -> Assembler -> Staged
    worker: worker.run_partition(task): Engine(part=...) -> attempt folder -> PartResult

A partition is a contiguous slice of the walk that starts at a multiple of
`shard_files`, so its shards begin where the local engine's do, and an `Engine`
run on a worker (with its own pools: PDF isolation happens on the worker) writes
the very bytes the local engine would. Every attempt writes into a folder of its
own under `.staging/parts/`; the driver uses only the folder that the successful
attempt reports, so a partition retried after a worker died never mixes files
with the dead attempt. Workers on the driver's machine share its incremental
state: they open the same SQLite file (WAL) and join the driver's run.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from indexer.config import Config
from indexer.errors import ConfigError
from indexer.pipeline.engines.dask.assemble import Assembler, PartResult
from indexer.pipeline.engines.dask.worker import (
    PartTask,
    StateRef,
    machine_id,
    release,
    run_partition,
)
from indexer.pipeline.engines.local import walk_entries
from indexer.pipeline.incremental.state import State
from indexer.pipeline.incremental.tree import Digests
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.walk.walker import Entry
from indexer.registry import Registry

if TYPE_CHECKING:
    from distributed import Client, Future

PARTS = "parts"
RETRIES = 3
"""Extra attempts for a partition whose task raised. A worker that dies is different: its
partitions are rescheduled, up to `distributed.scheduler.allowed-failures` times."""
CLOSE_TIMEOUT = 30.0
"""Seconds that closing the client or the cluster, or releasing the workers, may take."""


async def stage_on_dask(
    source: Path,
    staging: Path,
    config: Config,
    registry: Registry,
    *,
    state: State | None,
    previous: dict[str, int] | None,
) -> Staged:
    """Extract `source` on a dask cluster and stage the output in `staging`; return it.

    Connects to `config.scheduler`, or starts a `LocalCluster` of `config.workers`
    one-thread worker processes (closed at the end). Raises `ConfigError` when
    `distributed` is not installed; any error of a partition that failed all its
    attempts, or of the cluster, propagates (nothing is committed then).
    """
    token = uuid.uuid4().hex
    ref = None
    if state is not None:
        ref = StateRef(path=state.path, run=state.run, reuse=state.reuse, machine=machine_id())
    template = PartTask(
        index=0,
        entries=(),
        source=source,
        parts=staging / PARTS,
        # The pools are the worker's (one process of each kind per worker thread); one
        # partition's engine sizes its queues for one process of each.
        config=replace(config, workers=1, pdf_workers=1),
        registry=registry,
        state=ref,
        token=token,
    )
    template.parts.mkdir()
    assembler = Assembler(staging, previous)
    tree = Digests()
    async with _connect(config) as client:
        try:
            await _run_partitions(client, template, assembler, token, state, tree)
        finally:
            await _release(client, token)
    return replace(await assembler.finish(), tree=tree.value)


async def _run_partitions(
    client: Client,
    template: PartTask,
    assembler: Assembler,
    token: str,
    state: State | None,
    tree: Digests,
) -> None:
    threads = sum((await client.nthreads()).values())  # type: ignore[no-untyped-call]
    send, recv = anyio.create_memory_object_stream["Future[PartResult]"](max(4, 2 * threads))
    async with anyio.create_task_group() as tg, recv:
        tg.start_soon(_submit, client, template, send, token, state, tree)
        async for future in recv:
            await assembler.add(await future)


async def _submit(
    client: Client,
    template: PartTask,
    send: MemoryObjectSendStream[Future[PartResult]],
    token: str,
    state: State | None,
    tree: Digests,
) -> None:
    """Cut the walk into partitions and submit them; the bounded `send` caps those in
    flight. `tree` digests the walk as it is read."""
    config = template.config
    entries = walk_entries(template.source, config, template.registry, tree=tree)
    index = 0
    # A closed receiver means the driver failed: its error is the one to report.
    with contextlib.suppress(anyio.BrokenResourceError):
        async with send:
            while part := await anyio.to_thread.run_sync(_take, entries, config.shard_files, state):
                task = replace(template, index=index, entries=part)
                future = client.submit(
                    run_partition, task, key=f"indexer-{token[:8]}-{index:05d}", retries=RETRIES
                )
                await send.send(future)
                index += 1


def _take(entries: Iterator[Entry], n: int, state: State | None) -> tuple[Entry, ...]:
    part = tuple(islice(entries, n))
    if state is not None and part:  # the workers' connections cannot mark for the sweep
        state.mark_seen([entry.rel for entry in part if entry.skip is None])  # as local.py does
    return part


LOCAL_CLUSTER: dict[str, Any] = {
    "threads_per_worker": 1,
    "processes": True,
    "dashboard_address": None,  # no bokeh dashboard ...
    "scheduler_kwargs": {"dashboard_address": ":0"},  # ... and its HTTP routes on a free port
}
"""`LocalCluster` options of the engine's own cluster (tests and benchmarks use them too)."""

WORKER_CONFIG = {"distributed.worker.profile.enabled": False}
"""Dask settings for the engine's own workers: the sampling profiler costs CPU on every
task. Set the same on the workers of a cluster of your own."""


@asynccontextmanager
async def _connect(config: Config) -> AsyncIterator[Client]:
    """A client of `config.scheduler`, or of a `LocalCluster` that lives as long as it.
    Both are closed even when the run is cancelled.

    Raises `ConfigError` when `distributed` is not installed.
    """
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ConfigError(
            "engine",
            f"engine = 'dask' needs dask[distributed] (pip install 'indexer[dask]'): {exc}",
        ) from exc
    with _quiet_distributed(), dask.config.set(WORKER_CONFIG):
        cluster = None
        if config.scheduler is None:
            cluster = await LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=config.workers, asynchronous=True, **LOCAL_CLUSTER
            )
        try:
            client = await Client(cluster or config.scheduler, asynchronous=True)  # type: ignore[no-untyped-call]
            try:
                yield client
            finally:
                await _unless_slow(client.close())
        finally:
            if cluster is not None:
                await _unless_slow(cluster.close())


async def _unless_slow(closing: Awaitable[Any] | None) -> None:
    """Await `closing` even in a cancelled run, for at most `CLOSE_TIMEOUT` seconds."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT):
        if closing is not None:
            await closing


@contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Let `distributed` log no more than the application does (its INFO lines
    about every worker and connection would break the silence cron expects)."""
    logger = logging.getLogger("distributed")
    old = logger.level
    logger.setLevel(max(old, logging.getLogger().getEffectiveLevel()))
    try:
        yield
    finally:
        logger.setLevel(old)


async def _release(client: Client, token: str) -> None:
    """Close the workers' pools and state connections of this run (best effort, shielded)."""
    with contextlib.suppress(Exception):
        await _unless_slow(client.run(release, token))
