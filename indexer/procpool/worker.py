"""The child side of `WorkerPool`: a loop that runs pickled calls sent over a pipe.

Started by `handle._BOOT` (or `python -m indexer.procpool.worker`) with the arguments
`PARENT_PID MEMORY_LIMIT_MB NAME`. Both directions carry frames: a header (`HEADER`),
then a pickle and its out-of-band buffers (`frame_parts`). The parent sends
an init frame (`{"sys_path": [...]}`), the child answers `("ready", pid)`; then each
call frame `(func, args)` gets exactly one reply:

- `("ok", result, noise)`
- `("error", type_name, message, noise)`: `func` raised; the worker stays usable
- `("oom",)`: `MemoryError`; the worker exits after sending it

`noise` is what the call wrote on fd 2 (a native library's panic message, a C
parser's warnings), at most `NOISE_BYTES`: the worker's fd 2 is a file of its own, so
third-party noise never reaches the terminal; the parent logs it at debug level.

End of input means "exit now, status 0". Anything else the child does (printing,
reading stdin, crashing) must not be able to desynchronise this protocol.

This module is imported by the parent too (for the frame helpers), so it imports
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
import struct
import sys
from collections.abc import Callable
from typing import Any

from indexer._malloc import pad_heap

HEADER = struct.Struct(">QI")
"""Frame header: the pickle's length in bytes, and how many out-of-band buffers follow
it; then each buffer's length (`LENGTH`), the pickle, and the buffers."""
LENGTH = struct.Struct(">Q")

MESSAGE_CHARS = 1000
"""An error message is cut to this length: some exceptions quote their whole input."""

NOISE_BYTES = 4000
"""What a call wrote on fd 2 is kept up to this many bytes."""

_PR_SET_PDEATHSIG = 1


def encode_frame(obj: object) -> bytes:
    """Return `obj` pickled (by reference, like multiprocessing) and length-prefixed.

    Raises whatever `pickle.dumps` raises for an object that cannot be pickled.
    """
    return b"".join(frame_parts(obj))


def frame_parts(obj: object) -> tuple[bytes | memoryview, ...]:
    """`encode_frame(obj)` as its header, its body and its out-of-band buffers, to write
    without joining them (a reply is megabytes: joining copied each one into fresh
    pages). A `pickle.PickleBuffer` in `obj` (a large document's block) is such a
    buffer: it is written from where it lies, and read into the object it becomes."""
    buffers: list[pickle.PickleBuffer] = []
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL, buffer_callback=buffers.append)
    raws = [buffer.raw() for buffer in buffers]
    lengths = b"".join(LENGTH.pack(raw.nbytes) for raw in raws)
    return HEADER.pack(len(body), len(raws)) + lengths, body, *raws


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
    # A segfault leaves a Python traceback in the captured stderr (see `_noise`).
    faulthandler.enable()
    # Parsers log a warning per malformed object; with no handler Python would print each
    # to stderr. Failures reach the parent as replies, so the child's log stays quiet.
    logging.getLogger().addHandler(logging.NullHandler())
    inp, out = _claim_protocol_fds()
    init = _read_frame(inp)
    if init is None:
        return 0
    sys.path[:] = pickle.loads(init[0])["sys_path"]
    _write(out, encode_frame(("ready", os.getpid())))
    while (frame := _read_frame(inp)) is not None:
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
    """Point fd 2 at an unlinked file of this process's own: what libraries write there
    (Rust panics, C warnings) is read back after each call (`_noise`), not shown."""
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
    """Move the protocol off fds 0 and 1; return the new (input, output) fds.

    Extractors that print, or libraries that write to fd 1 from C, then write to
    /dev/null instead of into a reply; one that reads stdin reads nothing.
    """
    inp, out = os.dup(0), os.dup(1)
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


def _read_frame(fd: int) -> tuple[bytearray, list[bytearray]] | None:
    """Return the next frame's body and out-of-band buffers, or None at end of input."""
    header = _read_exactly(fd, HEADER.size)
    if header is None:
        return None
    size, count = HEADER.unpack(header)
    lengths = [LENGTH.unpack(_read_or_fail(fd, LENGTH.size))[0] for _ in range(count)]
    body = _read_or_fail(fd, size)
    return body, [_read_or_fail(fd, length) for length in lengths]


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
