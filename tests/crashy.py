"""Functions that misbehave in a worker process, importable by reference from the pool.

Each is a module-level function so that it pickles by name; none is meant to be
called in the test runner itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import sys
import time


def pid() -> int:
    """Return the worker's process id."""
    return os.getpid()


def echo(*args: object) -> tuple[object, ...]:
    """Return the arguments unchanged."""
    return args


def cached(value: object) -> tuple[object, bool]:
    """Return `value`, and whether it is the very object this worker keeps for it."""
    from indexer.procpool import worker as _worker

    return value, any(kept is value for kept in _worker._SHARED.values())


def nap_then_pid(seconds: float) -> int:
    """Sleep, then return the worker's process id: a call that is in flight for a while."""
    time.sleep(seconds)
    return os.getpid()


def segfault() -> None:
    """Read address 0: the process dies of SIGSEGV."""
    ctypes.string_at(0)


def exit_now(status: int) -> None:
    """Leave without cleanup, as a C library calling `_exit` would."""
    os._exit(status)


def kill_self(signum: int) -> None:
    """Send ourselves a signal, as the OOM killer or an operator would."""
    os.kill(os.getpid(), signum)
    time.sleep(60)


def hang() -> None:
    """Never return."""
    while True:
        time.sleep(3600)


def hang_with_grandchild(pid_file: str) -> None:
    """Start a long-lived subprocess, record its pid, then never return."""
    child = subprocess.Popen(["sleep", "600"])
    write_pid_then_hang(pid_file, child.pid)


def write_pid_then_hang(pid_file: str, pid: int | None = None) -> None:
    """Record `pid` (default: ours) so the test knows we are busy, then never return."""
    with open(pid_file + ".tmp", "w") as out:
        out.write(str(os.getpid() if pid is None else pid))
    os.rename(pid_file + ".tmp", pid_file)  # the test waits for it: never let it see half
    hang()


def allocate_forever() -> None:
    """Allocate and touch memory in 16 MiB steps until something stops us."""
    hoard = []
    while True:
        hoard.append(b"x" * (16 << 20))


def chatty(value: object) -> object:
    """Print to stdout through Python and straight to fd 1, then return `value`."""
    print("noise " * 1000)
    sys.stdout.flush()
    os.write(1, b"\x00\x00\x00\x00\x00\x00\x00\x10garbage frame!!!")
    return value


def read_stdin() -> str:
    """Return whatever stdin holds: a worker must not hand it the protocol."""
    return sys.stdin.read()


def fail(message: str) -> None:
    """Raise ValueError(message)."""
    raise ValueError(message)


def unpicklable_result() -> object:
    """Return something that cannot be pickled back to the parent."""
    return lambda: None


def big(size: int) -> bytes:
    """Return `size` bytes: a reply larger than a pipe's buffer."""
    return b"y" * size


def scribble_low_fds(stray: bytes) -> int:
    """Write `stray` to descriptors 3 to 11, as a library with a debug log on a guessed
    descriptor would; return the worker's process id."""
    for fd in range(3, 12):
        with contextlib.suppress(OSError):  # not open, or not writable
            os.write(fd, stray)
    return os.getpid()


def write_to_every_pipe(stray: bytes) -> list[int]:
    """Write `stray` to every pipe this process may write to but stderr, wherever it
    lies (the worker's reply pipe among them); return those descriptors."""
    import fcntl

    written = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            writable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
            is_pipe = os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        if fd > 2 and writable and is_pipe:
            os.write(fd, stray)
            written.append(fd)
    return written


def forge_reply(stray: bytes) -> int:
    """Write `stray` into the reply pipe before the real reply; return the process id."""
    write_to_every_pipe(stray)
    return os.getpid()


def _refuse() -> None:
    raise RuntimeError("this object cannot be rebuilt here")


class _Unloadable:
    def __reduce__(self) -> tuple[object, tuple[()]]:
        return _refuse, ()


def unloadable_result() -> object:
    """Return something that pickles in the worker but cannot be unpickled by the parent."""
    return _Unloadable()
