"""The parent's end of one worker process: starting it, its reply pipe, stopping it.

`start` forks a child running `indexer.procpool.worker` in a session of its own;
`WorkerHandle` sends it frames and reads its replies; `stop` ends and reaps it,
with everything it started. `WorkerPool` decides when to do which.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import Process

from indexer.procpool.frames import (
    CHECKS,
    HEAD,
    LENGTH,
    check_head,
    check_payload,
    check_prefix,
    unpickle,
)
from indexer.procpool.worker import PIPE_BYTES

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

EXIT_GRACE = 5.0
"""Seconds a worker that closed its pipe, or was asked to stop, may take to exit."""

BROKEN = (  # the worker is gone, or another task (`__aexit__`) closed its pipes
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    BrokenPipeError,
    ConnectionResetError,
)


@dataclass(slots=True, eq=False)
class WorkerHandle:
    """The parent's handle on one child: mutable, because it counts its calls."""

    process: Process
    replies: int
    """The read end of the child's stdout pipe (non-blocking), owned by this handle.

    Read with `os.read`, up to a pipe's worth at once, not through an asyncio stream,
    which copies each reply several times in 64 KiB pieces; `readv` into a kept
    buffer is slower than fresh reads."""
    stderr: int = -1
    """The parent's descriptor of the file the child's fd 2 writes to (an unlinked memfd),
    or -1: read after a crash (`last_words`), when the child can no longer report it."""
    tasks: int = 0
    closed: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    async def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(frame)

    async def receive(self) -> Any:
        """Return the next reply, unpickled; raises one of `BROKEN` if the child is gone,
        `frames.ProtocolError` if the reply is not a sound frame (stray bytes in the
        pipe), in which case the pipe is out of step for good."""
        head = await self._receive_exactly(HEAD.size)
        size, count = check_head(head)
        lengths = await self._receive_exactly(LENGTH.size * count)
        lengths_of, expected = check_prefix(head, lengths, await self._receive_exactly(CHECKS.size))
        body = await self._receive_exactly(size)
        # Each out-of-band buffer is read into the object it becomes: no copy.
        buffers = [await self._receive_into(n) for n in lengths_of]
        check_payload(expected, body, buffers)
        return unpickle(body, buffers)

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
        if not size:  # a frame with no buffers
            return b""
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
            if self.stderr >= 0:
                os.close(self.stderr)

    def last_words(self, limit: int) -> str:
        """The last `limit` bytes the child wrote on fd 2 since its last reply (a fatal
        error's traceback from `faulthandler`, a C library's abort message), as text."""
        if self.closed or self.stderr < 0:
            return ""
        try:
            size = os.fstat(self.stderr).st_size
            data = os.pread(self.stderr, min(size, limit), max(0, size - limit))
        except OSError:
            return ""
        return data.decode("utf-8", "replace")


async def start(name: str, memory_limit_mb: int | None) -> WorkerHandle:
    """Fork a worker process, not yet greeted (the pool sends the init frame)."""
    command = [sys.executable, "-c", _BOOT, str(os.getpid())]
    command += [str(memory_limit_mb or 0), name]
    env = {**os.environ, _PATH_VARIABLE: os.pathsep.join(sys.path)}
    replies, child_stdout = os.pipe()
    stderr = _stderr_file()
    # Shielded: a cancellation between fork and return would leak the child.
    with anyio.CancelScope(shield=True):
        try:
            # A session of its own: a terminal's Ctrl-C goes to us alone, and killing
            # the group also kills anything the worker started.
            process = await anyio.open_process(
                command,
                stdout=child_stdout,
                stderr=None if stderr < 0 else stderr,
                start_new_session=True,
                env=env,
            )
        except BaseException:
            os.close(replies)
            if stderr >= 0:
                os.close(stderr)
            raise
        finally:
            os.close(child_stdout)
    os.set_blocking(replies, False)
    return WorkerHandle(process=process, replies=replies, stderr=stderr)


def _stderr_file() -> int:
    """An unlinked in-memory file for a child's fd 2, or -1 where there is none (not
    Linux): what libraries write there is the parent's to read, even after the child
    died, and the worker truncates it after each call (`worker._noise`)."""
    try:
        return os.memfd_create("indexer-worker-stderr", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        return -1


async def stop(worker: WorkerHandle, *, kill: bool) -> None:
    """Stop and reap `worker`: SIGKILL at once if `kill`, else after end of input."""
    if not kill:
        assert worker.process.stdin is not None
        await worker.process.stdin.aclose()  # end of input: "exit now"
        with anyio.move_on_after(EXIT_GRACE):
            await worker.process.wait()
    # Exited or stuck: either way, neither it nor anything it started may stay.
    kill_group(worker)
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


def kill_group(worker: WorkerHandle) -> None:
    """SIGKILL `worker` and everything it started (its process group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # gone, group and all
        os.killpg(worker.pid, signal.SIGKILL)
