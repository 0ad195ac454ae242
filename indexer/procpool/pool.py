"""A process pool owned by its caller, whose workers can be killed and replaced.

    async with WorkerPool(size=2, memory_limit_mb=2048, max_tasks_per_worker=50) as pool:
        result = await pool.run(extract_pdf, path, data, timeout=120)

Each worker is a child process (`indexer.procpool.worker`) that runs one
call at a time. A call that crashes, hangs past its timeout or runs out of memory
costs only that call and that worker: the worker is killed, reaped and replaced on
the next call, and calls on other workers carry on. There is no global pool: each
`WorkerPool` starts its own workers lazily and kills them all when its block exits.

Exceptions (each `PoolError` has a `.code` for a document record and a `.reason`):

    PoolError
    ├── WorkerCrashed       code "crashed"        killed by a signal or exited mid-call
    ├── WorkerTimeout       code "timeout"        still running at the call's timeout
    ├── WorkerOutOfMemory   code "out_of_memory"  MemoryError under `memory_limit_mb`
    └── WorkerError         code "error"          the function raised; worker kept
    WorkerStartError                              a worker could not start: not a
                                                  document's fault, so not a PoolError
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import anyio
from anyio.abc import Process

from indexer.errors import (
    WorkerCrashed,
    WorkerError,
    WorkerOutOfMemory,
    WorkerStartError,
    WorkerTimeout,
)
from indexer.procpool.worker import HEADER, LENGTH, PIPE_BYTES, encode_frame

log = logging.getLogger(__name__)

_PATH_VARIABLE = "INDEXER_WORKER_PATH"
_BOOT = f"""\
import os, sys
sys.path[:] = os.environ.pop("{_PATH_VARIABLE}").split(os.pathsep)
from indexer.procpool.worker import main
sys.exit(main(sys.argv[1:]))
"""
"""A worker's first lines: this process's `sys.path` before any import of `indexer`,
so that it runs this very copy. `python -m` put the current folder first: run from a
folder holding another `indexer/`, a worker imported that one instead."""

T = TypeVar("T")

START_TIMEOUT = 60.0
"""Seconds a new worker may take to import and answer the init frame."""

EXIT_GRACE = 5.0
"""Seconds a worker that closed its pipe, or was asked to stop, may take to exit."""

_BROKEN = (  # the worker is gone, or another task (`__aexit__`) closed its pipes
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    BrokenPipeError,
    ConnectionResetError,
)


@dataclass(slots=True, eq=False)
class _Worker:
    """The parent's handle on one child: mutable, because it counts its calls."""

    process: Process
    replies: int
    """The read end of the child's stdout pipe (non-blocking), owned by this handle.

    Read with `os.read`, up to a pipe's worth at once, not through an asyncio stream,
    which copies each reply several times in 64 KiB pieces; `readv` into a kept
    buffer is slower than fresh reads."""
    tasks: int = 0
    closed: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    async def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(frame)

    async def receive(self) -> Any:
        """Return the next reply, unpickled; raises one of `_BROKEN` if the child is gone."""
        size, count = HEADER.unpack(await self._receive_exactly(HEADER.size))
        lengths = [LENGTH.unpack(await self._receive_exactly(LENGTH.size))[0] for _ in range(count)]
        body = await self._receive_exactly(size)
        # Each out-of-band buffer is read into the object it becomes: no copy.
        return pickle.loads(body, buffers=[await self._receive_into(n) for n in lengths])

    async def _receive_into(self, size: int) -> bytearray:
        """`_receive_exactly`, into one buffer of `size` bytes (a large document's block)."""
        buffer = bytearray(size)
        with memoryview(buffer) as view:
            done = 0
            while done < size:
                if self.closed:
                    raise anyio.ClosedResourceError
                try:
                    n = os.readv(self.replies, [view[done : done + PIPE_BYTES]])
                except BlockingIOError:
                    await anyio.wait_readable(self.replies)
                    continue
                if not n:
                    raise anyio.EndOfStream
                done += n
        return buffer

    async def _receive_exactly(self, size: int) -> bytes:
        """Return the next `size` bytes of the reply pipe; raises `anyio.EndOfStream` if
        the child closed it first, `anyio.ClosedResourceError` if `close` was called."""
        parts: list[bytes] = []
        missing = size
        while missing:
            if self.closed:
                raise anyio.ClosedResourceError
            try:
                part = os.read(self.replies, min(missing, PIPE_BYTES))
            except BlockingIOError:
                await anyio.wait_readable(self.replies)
                continue
            if not part:
                raise anyio.EndOfStream
            parts.append(part)
            missing -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        """Close the reply pipe, waking a task that waits on it (idempotent)."""
        if not self.closed:
            self.closed = True
            anyio.notify_closing(self.replies)
            os.close(self.replies)


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
        self._workers: set[_Worker] = set()
        self._idle: list[_Worker] = []
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
            _signal_group(worker, signal.SIGKILL)
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
        `WorkerCrashed` if the worker dies, `WorkerOutOfMemory` on `MemoryError`,
        `WorkerError` if `func` raises, `WorkerStartError` if no worker could be
        started, and `RuntimeError` if the pool is not open. If the caller is
        cancelled mid-call, the worker is killed before the cancellation propagates.
        """
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        frame = encode_frame((func, args))
        async with self._limiter:
            if not self._open:
                raise RuntimeError(f"{self.name}: pool is not open")
            worker = await self._checkout()
            try:
                reply = await self._exchange(worker, frame, timeout)
            except BaseException:
                await self._discard(worker, kill=True)
                raise
            if reply[0] == "oom":
                await self._discard(worker)
                limit = f" (limit {self.memory_limit_mb} MB)" if self.memory_limit_mb else ""
                raise WorkerOutOfMemory(f"out of memory{limit}")
            await self._checkin(worker)
        if reply[0] == "error":
            raise WorkerError(reply[1], reply[2])
        return cast(T, reply[1])

    async def _exchange(self, worker: _Worker, frame: bytes, seconds: float | None) -> Any:
        """Send one call and return its reply; raises `WorkerTimeout` or `WorkerCrashed`."""
        try:
            with anyio.fail_after(seconds):
                await worker.send(frame)
                return await worker.receive()
        except TimeoutError:
            await self._discard(worker, kill=True)
            raise WorkerTimeout(f"timed out after {seconds:g} s") from None
        except _BROKEN:
            status = await self._discard(worker)
            raise WorkerCrashed(describe_exit(status)) from None

    async def _checkout(self) -> _Worker:
        """Return an idle live worker, or a new one."""
        while self._idle:
            worker = self._idle.pop()
            if worker.process.returncode is None:
                return worker
            await self._discard(worker)  # died while idle: nothing of ours was lost
        return await self._spawn()

    async def _checkin(self, worker: _Worker) -> None:
        worker.tasks += 1
        if not self._open:  # a call that outlived the pool's block: its worker goes too
            await self._discard(worker)
        elif self.max_tasks_per_worker and worker.tasks >= self.max_tasks_per_worker:
            log.debug("%s: retiring worker %d after %d calls", self.name, worker.pid, worker.tasks)
            await self._discard(worker)
        else:
            self._idle.append(worker)

    async def _spawn(self) -> _Worker:
        """Start a worker and wait for its handshake; raises `WorkerStartError`."""
        command = [sys.executable, "-c", _BOOT, str(os.getpid())]
        command += [str(self.memory_limit_mb or 0), self.name]
        env = {**os.environ, _PATH_VARIABLE: os.pathsep.join(sys.path)}
        replies, child_stdout = os.pipe()
        # Shielded: a cancellation between fork and return would leak the child.
        with anyio.CancelScope(shield=True):
            try:
                # A session of its own: a terminal's Ctrl-C goes to us alone, and killing
                # the group also kills anything the worker started.
                process = await anyio.open_process(
                    command, stdout=child_stdout, stderr=None, start_new_session=True, env=env
                )
            except BaseException:
                os.close(replies)
                raise
            finally:
                os.close(child_stdout)
        os.set_blocking(replies, False)
        worker = _Worker(process=process, replies=replies)
        self._workers.add(worker)
        try:
            with anyio.fail_after(START_TIMEOUT):
                await worker.send(encode_frame({"sys_path": sys.path}))
                ready = await worker.receive()
        except TimeoutError:
            await self._discard(worker, kill=True)
            raise WorkerStartError(f"{self.name}: worker stalled on start") from None
        except _BROKEN:
            status = await self._discard(worker)
            raise WorkerStartError(f"{self.name}: worker {describe_exit(status)}") from None
        except BaseException:
            await self._discard(worker, kill=True)
            raise
        log.debug("%s: started worker %d", self.name, ready[1])
        return worker

    async def _discard(self, worker: _Worker, *, kill: bool = False) -> int:
        """Stop `worker` (gracefully unless `kill`), reap it, close its pipes.

        Returns its exit status (negative: the signal number). Shielded, so a cancelled
        caller still leaves no process and no open pipe behind.
        """
        with anyio.CancelScope(shield=True):
            if worker not in self._workers:  # another task (`__aexit__`) is stopping it
                return await worker.process.wait()
            self._workers.discard(worker)
            await self._stop(worker, kill=kill)
        return cast(int, worker.process.returncode)

    @staticmethod
    async def _stop(worker: _Worker, *, kill: bool) -> None:
        """Stop and reap `worker`: SIGKILL at once if `kill`, else after end of input."""
        if not kill:
            assert worker.process.stdin is not None
            await worker.process.stdin.aclose()  # end of input: "exit now"
            with anyio.move_on_after(EXIT_GRACE):
                await worker.process.wait()
        # Exited or stuck: either way, neither it nor anything it started may stay.
        _signal_group(worker, signal.SIGKILL)
        worker.close()
        await worker.process.aclose()


def describe_exit(status: int) -> str:
    """Return a stable reason for a worker's exit status: `killed by SIGSEGV`, ..."""
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exited with status {status}"


def _signal_group(worker: _Worker, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # gone, group and all
        os.killpg(worker.pid, signum)
