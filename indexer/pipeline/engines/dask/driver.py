"""The dask engine: the walk's partitions, staged on the workers of a `distributed` cluster.

    driver: walk -> partitions of whole shards -> submit (bounded) -> await in order
                                                                      -> Assembler -> Staged
    worker: worker.run_partition(task): flow.stage_stretch -> attempt folder -> PartResult

A partition is a contiguous slice of the walk made of whole shards (about
`partition_files` entries: `dask.partitions`), so its shards are the local
engine's, and the flow run on a worker (with its own pools: PDF isolation happens on
the worker) writes the very bytes the local engine would. Every attempt writes into
a folder of its own under `OUT/.parts/`, beside the staging folder and never committed; the driver
uses only the folder that the successful attempt reports, so a partition retried
after a worker died never mixes files with the dead attempt. Workers on the
driver's machine share its incremental state: they open the same SQLite file
(WAL) and join the driver's run.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from indexer.pipeline.engines.context import OnProgress, RunContext
from indexer.pipeline.engines.dask.assemble import Assembler, PartResult
from indexer.pipeline.engines.dask.cluster import connect, unless_slow, watch_workers
from indexer.pipeline.engines.dask.partitions import partitions
from indexer.pipeline.engines.dask.worker import (
    PartTask,
    StateRef,
    machine_id,
    release,
    run_partition,
)
from indexer.pipeline.engines.entries import marking_seen, walk_entries
from indexer.pipeline.incremental.tree import Digests
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.walk.walker import Entry

if TYPE_CHECKING:
    from distributed import Client, Future

PARTS = ".parts"
"""The partitions' attempt folders, in OUT beside the staging folder: what is staged
and committed is only what the driver assembles from them."""
RETRIES = 3
"""Extra attempts for a partition whose task raised. A worker that dies is different: its
partitions are rescheduled, up to `distributed.scheduler.allowed-failures` times."""


async def stage(ctx: RunContext) -> Staged:
    """Extract `ctx.source` on a dask cluster and stage the output in `ctx.staging`.

    Connects to `config.scheduler`, or starts a `LocalCluster` of `config.workers`
    one-thread worker processes (closed at the end). Raises `ConfigError` when
    `distributed` is not installed, `NoWorkers` when the cluster has had no worker
    for `config.worker_wait` seconds; any error of a partition that failed all its
    attempts, or of the cluster, propagates (nothing is committed then).
    """
    parts = ctx.staging.parent / PARTS
    await anyio.to_thread.run_sync(_fresh, parts)
    try:
        return await _stage_parts(ctx, parts)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(partial(shutil.rmtree, parts, ignore_errors=True))


async def _stage_parts(ctx: RunContext, parts: Path) -> Staged:
    token = uuid.uuid4().hex
    template = _template(ctx, parts, token)
    previous = None  # the assembler reads every line: none is skipped
    if ctx.previous is not None:
        previous = await anyio.to_thread.run_sync(ctx.previous.load)
    assembler = Assembler(ctx.staging, previous)
    tree = Digests()
    entries = walk_entries(ctx.source, ctx.config, ctx.registry, ctx.walked, tree)
    async with connect(ctx.config) as client:
        try:
            async with anyio.create_task_group() as tg:
                where = ctx.config.scheduler or "a local cluster"
                tg.start_soon(watch_workers, client, ctx.config.worker_wait, where)
                walked = marking_seen(entries, ctx.state)
                await _run_partitions(client, template, assembler, walked, ctx.on_progress)
                tg.cancel_scope.cancel()
        finally:
            await _release(client, token)
    return replace(await assembler.finish(), tree=tree.value)


def _template(ctx: RunContext, parts: Path, token: str) -> PartTask:
    """The task of every partition, but for its index and entries."""
    state, ref = ctx.state, None
    if state is not None:
        state.share()  # the workers open it too
        ref = StateRef(path=state.path, run=state.run, reuse=state.reuse, machine=machine_id())
    return PartTask(
        index=0,
        first=0,
        entries=(),
        source=ctx.source,
        parts=parts,
        # The pools are the worker's (one process of each kind per worker thread); one
        # partition's flow sizes its queues for one process of each.
        config=replace(ctx.config, workers=1, pdf_workers=1),
        registry=ctx.registry,
        state=ref,
        token=token,
    )


async def _run_partitions(
    client: Client,
    template: PartTask,
    assembler: Assembler,
    entries: Iterator[Entry],
    notify: OnProgress | None,
) -> None:
    threads = sum((await client.nthreads()).values())  # type: ignore[no-untyped-call]
    send, recv = anyio.create_memory_object_stream["Future[PartResult]"](ahead(threads))
    async with anyio.create_task_group() as tg, recv:
        tg.start_soon(_submit, client, template, send, entries)
        async for future in recv:
            result = await future
            await assembler.add(result)
            if notify is not None:
                notify("part", result.tally)


async def _submit(
    client: Client,
    template: PartTask,
    send: MemoryObjectSendStream[Future[PartResult]],
    entries: Iterator[Entry],
) -> None:
    """Cut the walk into partitions and submit them; the bounded `send` caps those in
    flight."""
    index, first = 0, 0
    parts = partitions(entries, template.config)
    key = f"indexer-{template.token[:8]}"
    # A closed receiver means the driver failed: its error is the one to report.
    with contextlib.suppress(anyio.BrokenResourceError):
        async with send:
            while part := await anyio.to_thread.run_sync(next, parts, ()):
                task = replace(template, index=index, first=first, entries=part)
                future = client.submit(
                    run_partition, task, key=f"{key}-{index:05d}", retries=RETRIES
                )
                await send.send(future)
                index, first = index + 1, first + len(part)


def ahead(threads: int) -> int:
    """Partitions submitted beyond the one the driver awaits, for a cluster of `threads`
    worker threads: the assembly is in order, so while the oldest partition runs, the
    other threads must find work in the partitions after it. A partition in flight
    costs the driver and the scheduler its walk entries only."""
    return max(8, 4 * threads)


def _fresh(parts: Path) -> None:
    """An empty `parts` folder (a killed run may have left one)."""
    shutil.rmtree(parts, ignore_errors=True)
    parts.mkdir()


async def _release(client: Client, token: str) -> None:
    """Close the workers' pools and state connections of this run (best effort, shielded)."""
    with contextlib.suppress(Exception):
        await unless_slow(client.run(release, token))
