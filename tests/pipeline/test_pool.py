"""WorkerPool with real child processes that really crash, hang and run out of memory."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import crashy
import psutil
import pytest

from indexer._types import Chunk, Extracted
from indexer.errors import (
    PoolError,
    WorkerCrashed,
    WorkerError,
    WorkerOutOfMemory,
    WorkerStartError,
    WorkerTimeout,
)
from indexer.procpool.cpus import usable_cpus
from indexer.procpool.pool import WorkerPool, describe_exit
from indexer.procpool.worker import Shared, _write

SAFETY = 30  # seconds: a net under calls that should finish at once, not a speed target


def gone(pid: int) -> bool:
    """True if `pid` no longer runs (reaped, or a zombie waiting for init)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def eventually_gone(pid: int) -> bool:
    """True once `pid` is gone: a SIGKILL takes effect when the target is next scheduled."""
    with anyio.move_on_after(SAFETY):
        while not gone(pid):  # noqa: ASYNC110 - no event tells us another process died
            await anyio.sleep(0.02)
    return gone(pid)


@pytest.fixture(autouse=True)
def no_leaked_children() -> Iterator[None]:
    yield
    assert psutil.Process().children(recursive=True) == []


async def test_results_round_trip() -> None:
    doc = Extracted(kind="text", text="hi", chunks=(Chunk(text="hi", meta={"n": 1}),))
    async with WorkerPool(size=1) as pool:
        assert await pool.run(crashy.echo, b"\x00bytes", {"k": [1, 2]}, doc) == (
            b"\x00bytes",
            {"k": [1, 2]},
            doc,
        )
        assert await pool.run(crashy.big, 5 << 20, timeout=SAFETY) == b"y" * (5 << 20)
        assert await pool.run(crashy.pid) != os.getpid()


def test_a_reply_written_in_parts_arrives_whole_through_a_full_pipe() -> None:
    parts = (b"h" * 8, os.urandom(3 << 20), b"", b"tail")
    got = bytearray()
    read_end, write_end = os.pipe()

    def drain() -> None:
        while chunk := os.read(read_end, 1 << 16):
            got.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    _write(write_end, *parts)  # a 64 KiB pipe: many short writes
    os.close(write_end)
    reader.join(SAFETY)
    os.close(read_end)
    assert bytes(got) == b"".join(parts)


async def test_a_shared_argument_is_unpickled_once_per_worker() -> None:
    """Each call gets the value; the worker keeps one copy (the registry is not
    unpickled for every batch)."""
    shared = Shared({"k": [1, 2]})
    async with WorkerPool(size=1) as pool:
        assert await pool.run(crashy.cached, {"k": [1, 2]}) == ({"k": [1, 2]}, False)
        for _ in range(3):
            assert await pool.run(crashy.cached, shared) == ({"k": [1, 2]}, True)


async def test_segfault_fails_only_its_call_while_others_succeed() -> None:
    results: dict[str, object] = {}

    async def call(key: str, func: object, *args: object) -> None:
        try:
            results[key] = await pool.run(func, *args, timeout=SAFETY)  # type: ignore[arg-type]
        except PoolError as exc:
            results[key] = exc

    async with WorkerPool(size=4) as pool, anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(call, f"nap{i}", crashy.nap_then_pid, 1.0)
        tg.start_soon(call, "segv", crashy.segfault)
    crash = results.pop("segv")
    assert isinstance(crash, WorkerCrashed)
    assert (crash.code, crash.reason) == ("crashed", "killed by SIGSEGV")
    pids = list(results.values())
    assert all(isinstance(p, int) for p in pids)
    assert len(set(pids)) == 3


async def test_a_dead_workers_traceback_is_logged_not_lost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """faulthandler writes the crashing thread's stack to fd 2 as the worker dies; the
    parent reads it from the file it handed the worker and logs it as one line."""
    async with WorkerPool(size=1) as pool:
        with pytest.raises(WorkerCrashed):
            await pool.run(crashy.segfault, timeout=SAFETY)
        assert await pool.run(crashy.nap_then_pid, 0.0, timeout=SAFETY) > 0  # a new worker
    [line] = [r.getMessage() for r in caplog.records if "its stderr said" in r.getMessage()]
    assert "killed by SIGSEGV" in line and "Fatal Python error: Segmentation fault" in line
    assert "segfault" in line and "\n" not in line  # the frame that crashed, on one line


@pytest.mark.parametrize(
    ("func", "arg", "reason"),
    [
        (crashy.exit_now, 3, "exited with status 3"),
        (crashy.exit_now, 0, "exited with status 0"),
        (crashy.kill_self, signal.SIGKILL, "killed by SIGKILL"),
        (crashy.kill_self, signal.SIGTERM, "killed by SIGTERM"),
    ],
)
async def test_a_dead_worker_gives_a_stable_reason_and_is_replaced(
    func: object, arg: int, reason: str
) -> None:
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        with pytest.raises(WorkerCrashed) as info:
            await pool.run(func, arg, timeout=SAFETY)  # type: ignore[arg-type]
        assert info.value.reason == reason
        assert gone(first)
        assert await pool.run(crashy.pid) != first


async def test_a_hang_is_killed_at_its_timeout_and_the_next_call_works() -> None:
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        with pytest.raises(WorkerTimeout) as info:
            await pool.run(crashy.hang, timeout=1)
        assert (info.value.code, info.value.reason) == ("timeout", "timed out after 1 s")
        assert info.value.seconds >= 1  # the time it had its worker, for run.json
        assert gone(first)
        assert await pool.run(crashy.pid, timeout=SAFETY) != first


@pytest.mark.slow  # kills a worker and waits out its child
async def test_killing_a_worker_also_kills_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    async with WorkerPool(size=1) as pool:
        with pytest.raises(WorkerTimeout):
            await pool.run(crashy.hang_with_grandchild, str(pid_file), timeout=2)
    assert await eventually_gone(int(pid_file.read_text()))


async def test_unbounded_allocation_under_a_cap_is_out_of_memory() -> None:
    async with WorkerPool(size=1, memory_limit_mb=300) as pool:
        first = await pool.run(crashy.pid)
        with pytest.raises(WorkerOutOfMemory) as info:
            await pool.run(crashy.allocate_forever, timeout=SAFETY)
        assert (info.value.code, info.value.reason) == (
            "out_of_memory",
            "out of memory (limit 300 MB)",
        )
        assert gone(first)
        assert await pool.run(crashy.echo, "after") == ("after",)


async def test_workers_run_this_copy_of_indexer_whatever_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a folder holding another `indexer/` (an old checkout), a worker once
    imported that one: `python -m` puts the current folder first on sys.path."""
    impostor = tmp_path / "indexer"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("raise ImportError('the wrong indexer')\n")
    monkeypatch.chdir(tmp_path)
    async with WorkerPool(size=1, name="here") as pool:
        assert await pool.run(crashy.pid) != os.getpid()


async def test_a_worker_that_cannot_start_is_a_start_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", "/bin/false")  # exits 1 before any handshake
    async with WorkerPool(size=1, name="broken") as pool:
        with pytest.raises(WorkerStartError, match=r"^broken: worker exited with status 1$"):
            await pool.run(crashy.pid)


async def test_printing_and_reading_stdin_do_not_touch_the_protocol() -> None:
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        assert await pool.run(crashy.chatty, "value", timeout=SAFETY) == "value"
        assert await pool.run(crashy.read_stdin, timeout=SAFETY) == ""
        assert await pool.run(crashy.pid) == first


def _stray_frames() -> dict[str, bytes]:
    """Stray bytes that reach the reply pipe, each caught by a different check."""
    from indexer.procpool.frames import CHECKS, HEAD, MAGIC, encode_frame

    real = bytearray(encode_frame(("ok", 42)))
    real[-1] ^= 0xFF
    return {
        "an old-style length prefix": bytes(7) + b"\x08" + bytes(4) + b"garbage!",
        "text": b"DEBUG: opened 3 streams\n" * 4,
        "a magic with wild lengths": HEAD.pack(MAGIC, 1 << 60, 3) + bytes(3 * 8 + CHECKS.size),
        "a magic with a huge buffer count": HEAD.pack(MAGIC, 8, 1 << 31),
        "a frame whose payload is damaged": bytes(real),
    }


@pytest.mark.parametrize("stray", list(_stray_frames().values()), ids=list(_stray_frames()))
async def test_stray_bytes_in_the_reply_pipe_fail_only_that_call(stray: bytes) -> None:
    """A reply that fails its frame's checks is `crashed` (`protocol error`): that
    worker is killed and replaced, and the pool carries on. Before frames were
    checked, the parent raised `UnpicklingError` (the run's end), waited for bytes
    that never came (a timeout), or allocated what a garbage length said."""
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        with pytest.raises(WorkerCrashed, match=r"^protocol error: ") as info:
            await pool.run(crashy.forge_reply, stray, timeout=SAFETY)
        assert info.value.code == "crashed"
        assert await eventually_gone(first)
        assert await pool.run(crashy.pid, timeout=SAFETY) not in (first, os.getpid())


async def test_stray_writes_to_low_descriptors_miss_the_protocol() -> None:
    """The worker's pipes sit far above descriptors 3-11: writes there reach nothing
    of ours, and the call succeeds on the same worker."""
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        assert await pool.run(crashy.scribble_low_fds, b"\x80\x05junk", timeout=SAFETY) == first
        assert await pool.run(crashy.pid) == first


async def test_a_reply_the_parent_cannot_unpickle_fails_only_that_call() -> None:
    async with WorkerPool(size=1) as pool:
        with pytest.raises(WorkerCrashed, match=r"^protocol error: reply could not be unpickled"):
            await pool.run(crashy.unloadable_result, timeout=SAFETY)
        assert await pool.run(crashy.echo, 1) == (1,)


async def test_an_exception_comes_back_as_worker_error_and_the_worker_stays() -> None:
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        with pytest.raises(WorkerError) as info:
            await pool.run(crashy.fail, "bad input")
        error = info.value
        assert (error.type_name, error.message) == ("ValueError", "bad input")
        assert (error.code, error.reason) == ("error", "ValueError: bad input")
        with pytest.raises(WorkerError, match="Can't pickle"):
            await pool.run(crashy.unpicklable_result)
        assert await pool.run(crashy.pid) == first


async def test_an_unpicklable_function_is_refused_before_any_worker_starts() -> None:
    async with WorkerPool(size=1) as pool:
        with pytest.raises((pickle.PicklingError, AttributeError)):
            await pool.run(lambda: None)
        assert psutil.Process().children() == []


async def test_recycling_replaces_the_worker_exactly_every_n_calls() -> None:
    async with WorkerPool(size=1, max_tasks_per_worker=3) as pool:
        pids = [await pool.run(crashy.pid) for _ in range(9)]
    assert pids[0:3] == [pids[0]] * 3
    assert pids[3:6] == [pids[3]] * 3
    assert pids[6:9] == [pids[6]] * 3
    assert len({pids[0], pids[3], pids[6]}) == 3
    assert all(gone(p) for p in pids)


async def test_no_more_than_size_workers_run_at_once() -> None:
    pids: list[int] = []

    async def call() -> None:
        pids.append(await pool.run(crashy.nap_then_pid, 0.2, timeout=SAFETY))

    async with WorkerPool(size=2) as pool, anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(call)
    assert len(pids) == 6
    assert len(set(pids)) == 2


async def test_cancelling_the_caller_kills_its_worker() -> None:
    async with WorkerPool(size=1) as pool:
        first = await pool.run(crashy.pid)
        with anyio.move_on_after(0.5) as scope:
            await pool.run(crashy.hang)
        assert scope.cancelled_caught
        assert gone(first)
        assert psutil.Process().children() == []
        assert await pool.run(crashy.pid) != first


async def test_exit_kills_busy_workers_and_their_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    outcome: list[BaseException] = []

    async def call() -> None:
        try:
            await pool.run(crashy.hang_with_grandchild, str(pid_file))
        except PoolError as exc:
            outcome.append(exc)

    async with anyio.create_task_group() as tg:
        with pytest.raises(RuntimeError, match="body failed"):
            async with WorkerPool(size=2) as pool:
                await pool.run(crashy.pid)  # one idle worker, one busy
                tg.start_soon(call)
                with anyio.fail_after(SAFETY):
                    # Another process writes the file: there is no event to wait on.
                    while not pid_file.exists():  # noqa: ASYNC110
                        await anyio.sleep(0.02)
                raise RuntimeError("body failed")
    assert [str(e) for e in outcome] == ["killed by SIGKILL"]
    assert await eventually_gone(int(pid_file.read_text()))


async def test_a_closed_pool_refuses_calls() -> None:
    async with WorkerPool(size=1) as pool:
        pass
    with pytest.raises(RuntimeError, match="not open"):
        await pool.run(crashy.pid)


PARENT = """
import sys, anyio, crashy
from indexer.procpool.pool import WorkerPool

async def main():
    async with WorkerPool(size=1) as pool:
        await pool.run(crashy.write_pid_then_hang, sys.argv[1])

anyio.run(main)
"""


def test_a_busy_worker_dies_with_a_parent_that_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    here = Path(__file__).parents[1]  # where crashy.py is
    with subprocess.Popen([sys.executable, "-c", PARENT, str(pid_file)], cwd=here) as parent:
        deadline = time.monotonic() + SAFETY
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        worker = int(pid_file.read_text())
        parent.kill()  # no __aexit__, no cleanup: only the kernel can stop the worker now
    while not gone(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gone(worker)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="size"):
        WorkerPool(size=0)
    with pytest.raises(ValueError, match="max_tasks_per_worker"):
        WorkerPool(size=1, max_tasks_per_worker=0)
    with pytest.raises(ValueError, match="memory_limit_mb"):
        WorkerPool(size=1, memory_limit_mb=0)


def test_exit_statuses_read_as_stable_reasons() -> None:
    assert describe_exit(-11) == "killed by SIGSEGV"
    assert describe_exit(-200) == "killed by signal 200"
    assert describe_exit(2) == "exited with status 2"


def test_default_workers_is_the_usable_cpu_count() -> None:
    assert usable_cpus() == len(os.sched_getaffinity(0)) >= 1
