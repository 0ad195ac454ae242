"""The child side of `WorkerPool`: a loop that runs pickled calls sent over a pipe.

Started by `handle._BOOT` (or `python -m indexer.procpool.worker`) with the arguments
`PARENT_PID MEMORY_LIMIT_MB NAME`. Both directions carry checked frames (`frames`):
a prefix, then a pickle and its out-of-band buffers. The parent sends
an init frame (`{"sys_path": [...]}`), the child answers `("ready", pid)`; then each
call frame `(func, args)` gets exactly one reply:

- `("ok", result, noise)`
- `("error", type_name, message, noise)`: `func` raised; the worker stays usable
- `("oom",)`: `MemoryError`; the worker exits after sending it

End of input means "exit now, status 0"; a call frame that fails its checks, exit
status `PROTOCOL_EXIT`. Anything else the child does (printing, reading stdin,
writing to descriptors it does not own, crashing) must not be able to desynchronise
this protocol unnoticed: the pipes sit at `PROTOCOL_FDS` and up, away from the
descriptors code guesses at, and a reply that is corrupt all the same fails its
frame's checks in the parent.

`noise` is what the call wrote on fd 2 (a native library's panic message, a C
parser's warnings), at most `NOISE_BYTES`: the worker's fd 2 is a file of its own, so
third-party noise never reaches the terminal; the parent logs it at debug level.

This module is imported by the parent too (for `Shared`, `PIPE_BYTES`), so it imports
nothing heavy.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import pickle
import resource
import signal
import sys
from collections.abc import Callable
from typing import Any

from indexer._malloc import pad_heap
from indexer.procpool.frames import (
    CHECKS,
    HEAD,
    LENGTH,
    ProtocolError,
    check_head,
    check_payload,
    check_prefix,
    encode_frame,
    frame_parts,
)

PROTOCOL_FDS = 200
"""The lowest descriptor the worker's pipes may move to (fewer under a low
`RLIMIT_NOFILE`): far above the few a process opens, so a library writing to "its"
fd 3 or 5 writes to nothing of ours."""
PROTOCOL_EXIT = 4
"""The worker's exit status when a frame from the parent fails its checks."""

MESSAGE_CHARS = 1000
"""An error message is cut to this length: some exceptions quote their whole input."""

NOISE_BYTES = 4000
"""What a call wrote on fd 2 is kept up to this many bytes."""

_PR_SET_PDEATHSIG = 1


class Shared:
    """A call argument that is the same for every call of a run (the options, the
    registry): pickled once here, unpickled once per worker process, then taken from
    that process's cache, so no call pickles the registry anew on either side."""

    __slots__ = ("_blob",)

    def __init__(self, value: object) -> None:
        self._blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    def __reduce__(self) -> tuple[Callable[[bytes], Any], tuple[bytes]]:
        return _shared, (self._blob,)


_SHARED: dict[bytes, Any] = {}
_SHARED_KEPT = 16


def _shared(blob: bytes) -> Any:
    """The value pickled in `blob`, unpickled at most once while it stays in use."""
    value = _SHARED.get(blob)
    if value is None:
        if len(_SHARED) >= _SHARED_KEPT:
            _SHARED.clear()
        value = _SHARED[blob] = pickle.loads(blob)
    return value


# Built before any call runs: after a MemoryError there may be no memory left to pickle.
_OOM_FRAME = encode_frame(("oom",))


PIPE_BYTES = 1 << 20
"""The pipe buffer size the worker asks for, both ways (see `_widen_pipe`)."""


def main(argv: list[str]) -> int:
    """Serve calls until the parent closes our stdin; return the exit status."""
    parent_pid, memory_limit_mb = int(argv[0]), int(argv[1])
    _die_with_parent(parent_pid)
    pad_heap()  # a worker extracts document after document (see `indexer._malloc`)
    if memory_limit_mb > 0:
        limit = memory_limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # The parent decides when to stop us: a Ctrl-C reaches it, not the call in flight.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _capture_stderr()
    # A segfault leaves a Python traceback in the captured stderr, which the parent
    # reads after the crash (`WorkerHandle.last_words`).
    faulthandler.enable()
    # Parsers log a warning per malformed object; with no handler Python would print each
    # to stderr. Failures reach the parent as replies, so the child's log stays quiet.
    logging.getLogger().addHandler(logging.NullHandler())
    inp, out = _claim_protocol_fds()
    init = _read_checked(inp)
    if init is None:
        return 0
    sys.path[:] = pickle.loads(init[0])["sys_path"]
    _write(out, encode_frame(("ready", os.getpid())))
    while (frame := _read_checked(inp)) is not None:
        reply = _serve(*frame)
        del frame
        if reply is None:
            _write(out, _OOM_FRAME)
            return 0
        _write(out, *reply)
    return 0


def _serve(frame: bytearray, buffers: list[bytearray]) -> tuple[bytes | memoryview, ...] | None:
    """Run one call; return its reply frame (see `frame_parts`), or None when it ran
    out of memory."""
    try:
        func, args = pickle.loads(frame, buffers=buffers)
        frame.clear()  # the call's arguments are unpickled: their bytes need not stay twice
        return frame_parts(("ok", _call(func, args), _noise()))
    except MemoryError:
        return None
    except Exception as exc:
        return frame_parts(("error", type(exc).__qualname__, _message(exc), _noise()))


def _capture_stderr() -> None:
    """Make fd 2 a file of our own: what libraries write there (Rust panics, C warnings)
    is read back after each call (`_noise`), not shown. The parent normally passes one
    it can read after a crash (`handle.start`); a worker started otherwise (by hand,
    not on Linux) makes an unlinked one."""
    import stat

    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.fstat(2).st_mode):
            return
    try:
        fd = os.memfd_create("indexer-worker-stderr")
    except (AttributeError, OSError):  # not Linux: an unlinked temporary file
        import tempfile

        with tempfile.TemporaryFile() as f:
            fd = os.dup(f.fileno())
    os.dup2(fd, 2)
    os.close(fd)


def _noise() -> str:
    """What was written on fd 2 since the last call (at most `NOISE_BYTES`), then empty it."""
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    try:
        size = os.lseek(2, 0, os.SEEK_CUR)
        data = os.pread(2, min(size, NOISE_BYTES), 0) if size else b""
        os.ftruncate(2, 0)
        os.lseek(2, 0, os.SEEK_SET)
    except OSError:  # fd 2 is not a file we own (a worker started by hand)
        return ""
    return data.decode("utf-8", "replace")


def _call(func: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return func(*args)


def _message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # a hostile __str__ must not take the worker down
        text = "<unprintable message>"
    return text[:MESSAGE_CHARS]


def _claim_protocol_fds() -> tuple[int, int]:
    """Move the protocol off fds 0 and 1 to `PROTOCOL_FDS` and up; return the new
    (input, output) fds.

    Extractors that print, or libraries that write to fd 1 from C, then write to
    /dev/null instead of into a reply; one that reads stdin reads nothing.
    """
    import fcntl

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    floor = PROTOCOL_FDS if soft == resource.RLIM_INFINITY else min(PROTOCOL_FDS, soft - 8)
    # Close-on-exec, as os.dup's would be: a program an extractor runs gets neither.
    inp, out = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, max(floor, 3)) for fd in (0, 1))
    for fd in (inp, out):
        _widen_pipe(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    return inp, out


def _widen_pipe(fd: int) -> None:
    """Grow a pipe's buffer from 64 KiB to 1 MiB where Linux allows it: batches of
    files and their rendered output then cross in far fewer writes and wake-ups."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except OSError:  # not a pipe, or above /proc/sys/fs/pipe-max-size: keep the default
        pass


def _die_with_parent(parent_pid: int) -> None:
    """Ask Linux to SIGKILL us when the parent dies, so a killed run leaves no workers."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def _read_checked(fd: int) -> tuple[bytearray, list[bytearray]] | None:
    """`_read_frame`, exiting with `PROTOCOL_EXIT` (and the check on stderr) when the
    frame fails its checks: the parent then sees a worker that died mid-call."""
    try:
        return _read_frame(fd)
    except ProtocolError as exc:
        print(f"indexer worker: {exc}", file=sys.stderr)
        sys.exit(PROTOCOL_EXIT)


def _read_frame(fd: int) -> tuple[bytearray, list[bytearray]] | None:
    """Return the next frame's body and out-of-band buffers, or None at end of input;
    raises `ProtocolError` if it fails its checks."""
    head = _read_exactly(fd, HEAD.size)
    if head is None:
        return None
    size, count = check_head(bytes(head))
    lengths, expected = check_prefix(
        bytes(head), _read_or_fail(fd, LENGTH.size * count), _read_or_fail(fd, CHECKS.size)
    )
    body = _read_or_fail(fd, size)
    buffers = [_read_or_fail(fd, length) for length in lengths]
    check_payload(expected, body, buffers)
    return body, buffers


def _read_or_fail(fd: int, size: int) -> bytearray:
    data = _read_exactly(fd, size)
    if data is None:
        raise EOFError("parent closed the pipe mid-frame")
    return data


def _read_exactly(fd: int, size: int) -> bytearray | None:
    """Return exactly `size` bytes, or None at end of input.

    Read in place: a document of N bytes must not cost several N under a memory cap.
    """
    buf = bytearray(size)
    view, done = memoryview(buf), 0
    while done < size:
        n = os.readv(fd, [view[done:]])
        if n == 0:
            return None
        done += n
    return buf


def _write(fd: int, *parts: bytes | memoryview) -> None:
    """Write all of `parts`, in order, however few bytes each `writev` takes."""
    views = [memoryview(part) for part in parts if part]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views.pop(0))
        if written:
            views[0] = views[0][written:]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
