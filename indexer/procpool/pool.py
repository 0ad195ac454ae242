"""A process pool owned by its caller, whose workers can be killed and replaced.

    async with WorkerPool(size=2, memory_limit_mb=2048, max_tasks_per_worker=50) as pool:
        result = await pool.run(extract_pdf, path, data, timeout=120)

Each worker is a child process (`indexer.procpool.worker`, started and stopped by
`indexer.procpool.handle`) that runs one call at a time. A call that crashes, hangs
past its timeout or runs out of memory costs only that call and that worker: the
worker is killed, reaped and replaced on the next call, and calls on other workers
carry on. There is no global pool: each
`WorkerPool` starts its own workers lazily and kills them all when its block exits.

Exceptions (each `PoolError` has a `.code` for a document record and a `.reason`):

    PoolError
    ├── WorkerCrashed       code "crashed"        killed by a signal, exited mid-call,
    │                                             or sent a reply that fails its checks
    ├── WorkerTimeout       code "timeout"        still running at the call's timeout
    ├── WorkerOutOfMemory   code "out_of_memory"  MemoryError under `memory_limit_mb`
    └── WorkerError         code "error"          the function raised; worker kept
    WorkerStartError                              a worker could not start: not a
                                                  document's fault, so not a PoolError
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar, cast

import anyio

from indexer.errors import (
    PoolError,
    WorkerCrashed,
    WorkerError,
    WorkerOutOfMemory,
    WorkerStartError,
    WorkerTimeout,
)
from indexer.procpool import handle
from indexer.procpool.frames import ProtocolError, encode_frame
from indexer.procpool.handle import BROKEN, WorkerHandle, describe_exit, kill_group
from indexer.procpool.worker import NOISE_BYTES

log = logging.getLogger(__name__)

T = TypeVar("T")

BUSY: ContextVar[Callable[[bool], None] | None] = ContextVar("BUSY", default=None)
"""Called with True when a worker process takes a call made in this context, and with
False when it gives it back: what is being read now, not what waits for a slot."""

START_TIMEOUT = 60.0
"""Seconds a new worker may take to import and answer the init frame."""

LAST_WORDS = 1000
"""The most of a dead worker's stderr one warning carries (its traceback's end)."""


class WorkerPool:
    """Up to `size` worker processes, started on demand and killed on exit.

    `max_tasks_per_worker` retires a worker after that many calls (bounding leaks);
    `memory_limit_mb` caps each worker's address space (`RLIMIT_AS`).
    """

    def __init__(
        self,
        *,
        size: int,
        name: str = "pool",
        max_tasks_per_worker: int | None = None,
        memory_limit_mb: int | None = None,
    ) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        if max_tasks_per_worker is not None and max_tasks_per_worker < 1:
            raise ValueError(f"max_tasks_per_worker must be >= 1, got {max_tasks_per_worker}")
        if memory_limit_mb is not None and memory_limit_mb < 1:
            raise ValueError(f"memory_limit_mb must be >= 1, got {memory_limit_mb}")
        self.size = size
        self.name = name
        self.max_tasks_per_worker = max_tasks_per_worker
        self.memory_limit_mb = memory_limit_mb
        self._limiter = anyio.CapacityLimiter(size)
        self._workers: set[WorkerHandle] = set()
        self._idle: list[WorkerHandle] = []
        self._open = False

    async def __aenter__(self) -> WorkerPool:
        if self._open:
            raise RuntimeError(f"{self.name}: pool is already open")
        self._open = True
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Kill and reap every worker, busy or idle, whatever the block raised."""
        self._open = False
        self._idle.clear()
        workers = list(self._workers)
        for worker in workers:  # all at once, then reap: no worker waits on another's exit
            kill_group(worker)
        for worker in workers:
            await self._discard(worker, kill=True)

    async def run(
        self,
        func: Callable[..., T],
        *args: object,
        timeout: float | None = None,
    ) -> T:
        """Return `func(*args)` computed in a worker process.

        `func` and `args` are pickled (functions by reference, so `func` must be
        importable at module level); pickling errors are raised here, before any worker
        is involved. At most `size` calls run at once; the rest wait their turn.
        `timeout` counts from when a worker has the call, so waiting for a slot or for
        a worker to start never times a call out.

        Raises `WorkerTimeout` if the call takes longer than `timeout` seconds,
        `WorkerCrashed` if the worker dies or its reply is corrupt (`protocol error`),
        `WorkerOutOfMemory` on `MemoryError`, `WorkerError` if `func` raises,
        `WorkerStartError` if no worker could be started, and `RuntimeError` if the
        pool is not open. If the caller is cancelled mid-call, the worker is killed
        before the cancellation propagates.
        """
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        frame = encode_frame((func, args))
        async with self._limiter:
            if not self._open:
                raise RuntimeError(f"{self.name}: pool is not open")
            worker = await self._checkout()
            started = time.monotonic()
            busy = BUSY.get()
            if busy is not None:
                busy(True)
            try:
                reply = await self._exchange(worker, frame, timeout)
            except BaseException as exc:
                if isinstance(exc, PoolError):
                    _timed(exc, time.monotonic() - started)
                await self._discard(worker, kill=True)
                raise
            finally:
                if busy is not None:
                    busy(False)
            seconds = time.monotonic() - started
            if reply[0] == "oom":
                await self._discard(worker)
                limit = f" (limit {self.memory_limit_mb} MB)" if self.memory_limit_mb else ""
                raise _timed(WorkerOutOfMemory(f"out of memory{limit}"), seconds)
            await self._checkin(worker)
        if reply[-1]:  # what the call wrote on stderr: for -v, never the terminal otherwise
            log.debug("%s: worker %d wrote on stderr: %s", self.name, worker.pid, reply[-1])
        if reply[0] == "error":
            raise _timed(WorkerError(reply[1], reply[2]), seconds)
        return cast(T, reply[1])

    async def _exchange(self, worker: WorkerHandle, frame: bytes, seconds: float | None) -> Any:
        """Send one call and return its reply; raises `WorkerTimeout` or `WorkerCrashed`."""
        try:
            with anyio.fail_after(seconds):
                await worker.send(frame)
                return await worker.receive()
        except TimeoutError:
            await self._discard(worker, kill=True)
            raise WorkerTimeout(f"timed out after {seconds:g} s") from None
        except BROKEN:
            words = worker.last_words(NOISE_BYTES)
            status = await self._discard(worker)
            _report_last_words(self.name, worker.pid, describe_exit(status), words)
            raise WorkerCrashed(describe_exit(status)) from None
        except ProtocolError as exc:  # stray bytes in its reply pipe: never trust it again
            words = worker.last_words(NOISE_BYTES)
            await self._discard(worker, kill=True)
            _report_last_words(self.name, worker.pid, "broke the protocol", words)
            raise WorkerCrashed(f"protocol error: {exc}") from None

    async def _checkout(self) -> WorkerHandle:
        """Return an idle live worker, or a new one."""
        while self._idle:
            worker = self._idle.pop()
            if worker.process.returncode is None:
                return worker
            await self._discard(worker)  # died while idle: nothing of ours was lost
        return await self._spawn()

    async def _checkin(self, worker: WorkerHandle) -> None:
        worker.tasks += 1
        if not self._open:  # a call that outlived the pool's block: its worker goes too
            await self._discard(worker)
        elif self.max_tasks_per_worker and worker.tasks >= self.max_tasks_per_worker:
            log.debug("%s: retiring worker %d after %d calls", self.name, worker.pid, worker.tasks)
            await self._discard(worker)
        else:
            self._idle.append(worker)

    async def _spawn(self) -> WorkerHandle:
        """Start a worker and wait for its handshake; raises `WorkerStartError`."""
        worker = await handle.start(self.name, self.memory_limit_mb)
        self._workers.add(worker)
        try:
            with anyio.fail_after(START_TIMEOUT):
                await worker.send(encode_frame({"sys_path": sys.path}))
                ready = await worker.receive()
        except TimeoutError:
            await self._discard(worker, kill=True)
            raise WorkerStartError(f"{self.name}: worker stalled on start") from None
        except BROKEN:
            status = await self._discard(worker)
            raise WorkerStartError(f"{self.name}: worker {describe_exit(status)}") from None
        except ProtocolError as exc:
            await self._discard(worker, kill=True)
            raise WorkerStartError(f"{self.name}: worker greeted with {exc}") from None
        except BaseException:
            await self._discard(worker, kill=True)
            raise
        log.debug("%s: started worker %d", self.name, ready[1])
        return worker

    async def _discard(self, worker: WorkerHandle, *, kill: bool = False) -> int:
        """Stop `worker` (gracefully unless `kill`), reap it, close its pipes.

        Returns its exit status (negative: the signal number). Shielded, so a cancelled
        caller still leaves no process and no open pipe behind.
        """
        with anyio.CancelScope(shield=True):
            if worker not in self._workers:  # another task (`__aexit__`) is stopping it
                return await worker.process.wait()
            self._workers.discard(worker)
            await handle.stop(worker, kill=kill)
        return cast(int, worker.process.returncode)


def _timed(exc: PoolError, seconds: float) -> PoolError:
    """`exc`, noting that its call had its worker for `seconds`."""
    exc.seconds = seconds
    return exc


def _report_last_words(pool: str, pid: int, how: str, words: str) -> None:
    """Log, as one warning line, what a worker that died wrote on stderr before it did
    (its traceback from faulthandler): the record says only how it ended, since the
    traceback names this machine's paths and lines and would make output differ."""
    text = " | ".join(line.strip() for line in words.splitlines() if line.strip())
    if text:
        log.warning("%s: worker %d %s; its stderr said: %s", pool, pid, how, text[-LAST_WORDS:])
