"""The dask engine on a worker: one partition of the walk through the local engine's flow.

`run_partition(task)` stages one partition (`flow.stage_stretch`) into a fresh
attempt folder and returns the files' manifest entries and the counts. Per driver
run (a token), each worker process keeps a `WorkerRun`: an event loop in a thread of its own,
the open process pools (so a partition does not pay for starting them; the PDF
pool keeps its timeout, memory cap and recycling) and its connection to the
driver's state database, joined to the driver's run. The driver closes them
with `release(token)` at the end of the run.
"""

from __future__ import annotations

import logging
import socket
import threading
import uuid
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal

from indexer.config import Config
from indexer.pipeline.engines.context import Pools, RunContext, Stretch
from indexer.pipeline.engines.dask.assemble import PartResult
from indexer.pipeline.engines.flow import stage_stretch
from indexer.pipeline.engines.local import make_pools
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.output.staging import FileInfo
from indexer.pipeline.walk.source import Source
from indexer.pipeline.walk.walker import Entry
from indexer.registry import Registry

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class StateRef:
    """How a worker joins the driver's incremental state."""

    path: Path
    run: int
    reuse: bool
    machine: str
    """The driver's `machine_id()`: SQLite WAL is shared only by processes of one machine."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PartTask:
    """One partition, as sent to a worker."""

    index: int
    first: int
    """The walk position of its first entry, which begins a shard."""
    entries: tuple[Entry, ...]
    source: Source
    parts: Path
    """`OUT/.parts` (`driver.PARTS`): every worker must see the same folder."""
    config: Config
    registry: Registry
    state: StateRef | None
    token: str
    """Unique per driver run: a worker keeps one `WorkerRun` per token."""


def run_partition(task: PartTask) -> PartResult:
    """Extract one partition into a fresh attempt folder; return its files and counts.

    Runs in a dask worker thread. Raises what the engine raises: infrastructure
    errors only (disk full, state not writable); a document's failure is a
    record, not an exception.
    """
    folder = task.parts / f"{task.index:05d}-{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    context = _enter(task)
    try:
        staged = _extract(task, folder, context)
    finally:
        _leave(context)
    files: dict[str, Any] = staged.manifest_files
    return PartResult(
        index=task.index,
        folder=folder,
        documents=tuple(FileInfo(**d) for d in files["documents"]),
        shards=tuple(FileInfo(**s) for s in files["shards"]),
        tally=staged.tally,
        redo=staged.redo,
    )


def _extract(task: PartTask, folder: Path, context: WorkerRun) -> Staged:
    """Stage the partition into `folder`: no changes file (the driver writes it), no
    shards linked from an earlier output, its files named after the partition."""
    ctx = RunContext(
        source=task.source, staging=folder, config=task.config, registry=task.registry,
        state=context.state,
    )  # fmt: skip
    stretch = Stretch(
        entries=iter(task.entries),
        first_seq=task.first,
        prefix=f"part-{task.index:05d}-",
    )
    return context.portal.call(stage_stretch, ctx, context.pools, stretch)


def release(token: str) -> None:
    """Close this worker process's context of run `token` (pools, state), if it has one:
    now, or when its last running partition ends (a failed run's partitions may still run)."""
    with _LOCK:
        context = _CONTEXTS.pop(token, None)
        if context is None:
            return
        context.released = True
        idle = context.running == 0
    if idle:
        context.close()


def machine_id() -> str:
    """This machine's identity: its kernel's boot id (containers share it), else its hostname."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return socket.gethostname()


class WorkerRun:
    """What one worker process keeps for one driver run."""

    def __init__(self, task: PartTask, threads: int) -> None:
        self.running = 0
        """Partitions running in it now."""
        self.released = False
        """The driver is done with it: the last partition to end closes it."""
        # One process of each kind per worker thread: the threads are the parallelism.
        self.pools = make_pools(replace(task.config, workers=threads, pdf_workers=threads))
        self._exit = ExitStack()
        try:
            self.portal = self._exit.enter_context(start_blocking_portal())
            pools_exit = self.portal.call(_open, self.pools)
            self._exit.callback(self.portal.call, pools_exit.aclose)
            self.state = _joined(task.state)
        except BaseException:
            self._exit.close()
            raise
        if self.state is not None:
            self._exit.callback(self.state.close)

    def close(self) -> None:
        """Close the state connection, kill the pools' processes, stop the event loop."""
        self._exit.close()


async def _open(pools: Pools) -> AsyncExitStack:
    stack = AsyncExitStack()
    for pool in pools:
        await stack.enter_async_context(pool)
    return stack


_CONTEXTS: dict[str, WorkerRun] = {}
_LOCK = threading.Lock()


def _enter(task: PartTask) -> WorkerRun:
    with _LOCK:
        context = _CONTEXTS.get(task.token)
        if context is None:
            context = _CONTEXTS[task.token] = WorkerRun(task, _threads())
        context.running += 1
        return context


def _leave(context: WorkerRun) -> None:
    with _LOCK:
        context.running -= 1
        last = context.released and context.running == 0
    if last:
        context.close()


def _threads() -> int:
    """This dask worker's thread count (1 outside a worker)."""
    try:
        from distributed import get_worker

        return max(1, get_worker().state.nthreads)
    except (ImportError, ValueError):
        return 1


class _JoinedState(State):
    """A worker's handle on the driver's state database: it joins run `run`, never bumps it,
    so the driver's sweep after the commit keeps every row the workers used or wrote."""

    def __init__(self, path: Path, *, reuse: bool, run: int) -> None:
        self._joined = run
        super().__init__(path, reuse=reuse, shared=True)

    def _next_run(self) -> int:
        return self._joined


def _joined(ref: StateRef | None) -> State | None:
    """A connection to the driver's state, joined to its run; None on another machine
    than the driver's, where the state cannot be shared."""
    if ref is None:
        return None
    if ref.machine != machine_id():
        log.warning("%s: not on the driver's machine, extracting without reuse", ref.path)
        return None
    return _JoinedState(ref.path, reuse=ref.reuse, run=ref.run)
