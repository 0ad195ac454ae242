"""The dask engine on real local clusters: the local engine's bytes, through worker deaths too."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

import dask
import hostile
import pytest
from distributed import Client, LocalCluster
from outputs import document_records

import indexer
from indexer._corpusgen import write_corpus
from indexer.cli import main
from indexer.config import Config
from indexer.pipeline.engines.dask.cluster import LOCAL_CLUSTER
from indexer.pipeline.engines.dask.worker import (
    PartTask,
    StateRef,
    machine_id,
    release,
    run_partition,
)
from indexer.pipeline.engines.entries import walk_entries
from indexer.pipeline.incremental.state import State
from indexer.pipeline.run.runner import RunSummary
from indexer.pipeline.walk.source import LocalFolder
from indexer.registry import Registry, default_registry

pytestmark = pytest.mark.slow  # every test starts a local dask cluster


def _files(out: Path) -> dict[str, bytes]:
    """Every committed file but run.json (the only one allowed to differ), by name."""
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name != "run.json" and not p.name.startswith(".")
    }


def _registry(*specs: Any) -> Registry:
    registry = default_registry().copy()
    for spec in specs:
        registry.register(spec)
    return registry


def _local_twin(config: Config) -> Config:
    """The same settings on the local engine."""
    shape = {
        k: getattr(config, k) for k in ("shard_files", "shard_min_files", "shard_boundary_bits")
    }
    return Config(workers=2, pdf_workers=2, **shape)


@pytest.fixture(scope="module", autouse=True)
def no_resource_tracker_left() -> Iterator[None]:
    """Stop the resource tracker that spawning dask workers starts in this process: it
    would outlive the module as a child process, and other tests count children."""
    yield
    resource_tracker._resource_tracker._stop()


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, **LOCAL_CLUSTER) as running:
        yield running


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster) as connected:
        yield connected


def test_dask_output_equals_the_local_engines_byte_for_byte(tmp_path: Path) -> None:
    source = tmp_path / "src"
    write_corpus(source, 400_000, seed=11)
    (source / "empty.txt").write_bytes(b"")
    (source / "tune.mp3").write_bytes(b"ID3\x03\x00\x00")
    (source / "crash.segv").write_bytes(b"dies on the worker")
    (source / "archive.mbox").write_bytes(b"".join(_message(i) for i in range(40)))
    registry = _registry(hostile.SEGFAULT)
    # Shards cut by path hash (of 2 to 16 entries) and by size, in partitions of whole shards.
    shape = {"shard_files": 16, "shard_min_files": 2, "shard_boundary_bits": 2}
    shape |= {"shard_bytes": 30_000, "max_failures": 1, "partition_files": 16}
    local = indexer.run(source, tmp_path / "local", Config(workers=2, **shape), registry=registry)
    dask = indexer.run(
        source, tmp_path / "dask", Config(engine="dask", workers=2, **shape), registry=registry
    )
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")
    layout = ".current/.layout.ndjson"  # what the next run links unchanged shards by
    assert (tmp_path / "dask" / layout).read_bytes() == (tmp_path / "local" / layout).read_bytes()
    assert dask.shards == local.shards > dask.files // 16 + 1  # cuts inside partitions
    docs = document_records(tmp_path / "dask")
    assert sum(str(d["path"]).startswith("archive.mbox#") for d in docs) == 40
    crashed = [d for d in docs if d["path"] == "crash.segv"]
    assert crashed[0]["status"] == "failed" and crashed[0]["reason"] == "crashed"
    assert not (tmp_path / "dask" / ".staging").exists()


def test_any_partition_size_gives_the_local_engines_bytes(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Partitions are sized for speed (`partition_files`, `partition_bytes`): one shard
    each, a few shards, cut by bytes or the whole walk in one, the output is the same."""
    source = tmp_path / "src"
    write_corpus(source, 500_000, seed=13)
    shape = {"shard_files": 8, "shard_min_files": 2, "shard_boundary_bits": 3}
    local = indexer.run(source, tmp_path / "local", Config(workers=2, **shape))
    assert local.shards >= local.files // 8 > 5
    layout = ".current/.layout.ndjson"
    sizes = [{"partition_files": n} for n in (1, 5, 20, 100_000)]
    for size in [*sizes, {"partition_bytes": 50_000}]:
        out = tmp_path / f"dask-{'-'.join(map(str, size.values()))}"
        config = Config(engine="dask", scheduler=cluster.scheduler_address, **shape, **size)
        indexer.run(source, out, config)
        assert _files(out) == _files(tmp_path / "local"), size
        assert (out / layout).read_bytes() == (tmp_path / "local" / layout).read_bytes()


def _message(i: int) -> bytes:
    """One mbox message; 40 of them span partitions, so the driver's walk must expand them."""
    return (
        f"From a@example.com Mon Jan  1 10:00:00 2024\nFrom: a@example.com\n"
        f"Subject: note {i}\nMessage-ID: <{i}@example.com>\n\nBody of note {i}.\n\n"
    ).encode()


def test_a_worker_killed_mid_partition_changes_nothing_in_the_output(
    cluster: LocalCluster, client: Client, tmp_path: Path
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(16):
        (source / f"doc-{i:02d}.slow").write_bytes(f"slow document {i}".encode())
    registry = _registry(hostile.SLOW)
    config = Config(
        engine="dask", scheduler=cluster.scheduler_address, shard_files=2, partition_files=2
    )
    out = tmp_path / "dask"
    run = _Background(lambda: indexer.run(source, out, config, registry=registry))
    attempts = _AttemptWatcher(out / ".parts", run)
    victim, partition = _busy_worker(client, out / ".parts")
    os.kill(victim, signal.SIGKILL)
    summary = run.result()
    assert victim not in client.run(os.getpid).values()
    assert len([a for a in attempts.seen if a.startswith(f"{partition}-")]) >= 2
    local = indexer.run(source, tmp_path / "local", _local_twin(config), registry=registry)
    assert _files(out) == _files(tmp_path / "local")
    assert summary.documents == local.documents == 16
    ids = [
        json.loads(line)["id"]
        for name, data in _files(out).items()
        if name.startswith("chunks-")
        for line in data.splitlines()
    ]
    assert len(ids) == len(set(ids)) == 16


class _Background:
    """`indexer.run` in a thread, with its result or error for the test."""

    def __init__(self, target: Any) -> None:
        self._outcome: list[Any] = []
        self._thread = threading.Thread(target=self._run, args=(target,))
        self._thread.start()

    def _run(self, target: Any) -> None:
        try:
            self._outcome.append(target())
        except BaseException as exc:
            self._outcome.append(exc)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def result(self) -> RunSummary:
        self._thread.join(timeout=180)
        assert self._outcome, "the run did not finish"
        if isinstance(self._outcome[0], BaseException):
            raise self._outcome[0]
        summary: RunSummary = self._outcome[0]
        return summary


class _AttemptWatcher:
    """Records every attempt folder that appears while the run is going."""

    def __init__(self, parts: Path, run: _Background) -> None:
        self.seen: set[str] = set()
        threading.Thread(target=self._watch, args=(parts, run), daemon=True).start()

    def _watch(self, parts: Path, run: _Background) -> None:
        while run.running:
            with contextlib.suppress(FileNotFoundError):
                self.seen.update(os.listdir(parts))
            time.sleep(0.02)


def _executing(dask_worker: Any) -> tuple[int, list[str]]:
    return os.getpid(), [str(ts.key) for ts in dask_worker.state.executing]


def _busy_worker(client: Client, parts: Path) -> tuple[int, str]:
    """The pid of a worker in the middle of a partition, and that partition's number."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for pid, keys in client.run(_executing).values():
            for key in keys:
                match = re.fullmatch(r"indexer-\w+-(\d{5})", key)
                # the attempt folder is made as the task starts; its files appear
                # only when the partition is written out, too late to catch reliably
                if match and parts.exists() and any(parts.glob(f"{match[1]}-*")):
                    return pid, match[1]
        time.sleep(0.05)
    raise AssertionError("no worker ever started a partition")


def test_incremental_runs_on_dask_reuse_and_match_the_local_engine(
    cluster: LocalCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src"
    write_corpus(source, 150_000, seed=3)
    settings = tmp_path / "indexer.toml"
    settings.write_text("[output]\nshard_files = 5\n[run]\npartition_files = 5\n")
    address = cluster.scheduler_address
    config = Config(engine="dask", scheduler=address, shard_files=5, partition_files=5)
    dask_out, local_out = tmp_path / "dask", tmp_path / "local"
    argv = ["run", str(source), "--out", str(dask_out), "--config", str(settings), "--quiet"]
    assert main([*argv, "--engine", "dask", "--scheduler", address, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 17
    indexer.run(source, local_out, _local_twin(config))
    again = indexer.run(source, dask_out, config)
    indexer.run(source, local_out, _local_twin(config))
    assert again.extracted == 0 and again.changes == {"added": 0, "changed": 0, "removed": 0}
    assert json.loads((dask_out / "run.json").read_bytes())["unchanged"] is True
    assert _files(dask_out) == _files(local_out)
    paths = sorted(p for p in source.rglob("*") if p.is_file())
    paths[0].write_bytes(paths[0].read_bytes() + b"\nA new line.\n")
    paths[1].unlink()
    (source / "notes" / "added.txt").write_bytes(b"A file that was not there before.\n")
    third = indexer.run(source, dask_out, config)
    indexer.run(source, local_out, _local_twin(config))
    assert third.extracted == 2
    assert third.changes == {"added": 1, "changed": 1, "removed": 1}
    assert _files(dask_out) == _files(local_out)
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, _local_twin(config))
    changes = "changes.ndjson"
    assert {**_files(dask_out), changes: b""} == {**_files(fresh), changes: b""}


def test_an_unchanged_tree_after_a_dask_run_needs_no_cluster(
    cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dask driver notes its walk as the local engine does, so a night where
    nothing changed re-commits the output without connecting to the cluster."""
    from indexer.pipeline.engines.dask import driver

    source = tmp_path / "src"
    write_corpus(source, 60_000, seed=5)
    config = Config(
        engine="dask", scheduler=cluster.scheduler_address, shard_files=2, partition_files=2
    )
    out = tmp_path / "out"
    first = indexer.run(source, out, config)
    before = _files(out)

    def unreachable(config: Config) -> Any:
        raise AssertionError("an unchanged tree connected to the cluster")

    monkeypatch.setattr(driver, "connect", unreachable)
    again = indexer.run(source, out, config)
    assert json.loads((out / "run.json").read_bytes())["unchanged"] is True
    assert (again.extracted, again.reused) == (0, first.extracted)
    assert _files(out) == {**before, "changes.ndjson": b""}
    # The local engine links the dask output's unchanged shards through its layout.
    assert first.shards >= 2
    inode = (out / "chunks-00000.ndjson").stat().st_ino
    last = source / document_records(out)[-1]["path"]  # in the last shard
    last.write_bytes(last.read_bytes() + b"\nOne more line.\n")
    local = Config(workers=2, pdf_workers=2, shard_files=2)
    indexer.run(source, out, local)
    assert (out / "chunks-00000.ndjson").stat().st_ino == inode
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, local)
    assert {**_files(out), "changes.ndjson": b""} == {**_files(fresh), "changes.ndjson": b""}


def test_a_chunking_change_on_dask_counts_its_re_packed_documents(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    source = tmp_path / "src"
    write_corpus(source, 60_000, seed=7)
    config = Config(
        engine="dask", scheduler=cluster.scheduler_address, shard_files=2, partition_files=2
    )
    out = tmp_path / "out"
    first = indexer.run(source, out, config)
    assert first.extracted > 0 and first.repacked == 0
    blocks = replace(config, chunking="blocks")
    again = indexer.run(source, out, blocks)
    assert (again.extracted, again.reused, again.repacked) == (0, first.extracted, first.extracted)
    assert json.loads((out / "run.json").read_bytes())["repacked"] == first.extracted
    assert indexer.run(source, out, blocks).repacked == 0


def _listing(out: Path) -> list[str]:
    """Every path in OUT, links and hidden ones included, but inside the state folder
    (its outputs files are named by run and process)."""
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.relative_to(out).parts[0] != ".state" or p.name == ".state"
    )


def test_a_dask_out_holds_exactly_the_paths_a_local_out_holds(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """No partition folder, attempt or second copy of the documents is committed."""
    source = tmp_path / "src"
    write_corpus(source, 80_000, seed=9)
    config = Config(
        engine="dask", scheduler=cluster.scheduler_address, shard_files=3, partition_files=3
    )
    dask_out, local_out = tmp_path / "dask", tmp_path / "local"
    for night in range(2):
        indexer.run(source, dask_out, config)
        indexer.run(source, local_out, _local_twin(config))
        assert _listing(dask_out) == _listing(local_out)
        assert not any("part" in name for name in _listing(dask_out)), _listing(dask_out)
        first = sorted(p for p in source.rglob("*") if p.is_file())[night]
        first.write_bytes(first.read_bytes() + b"\nChanged overnight.\n")


@pytest.fixture
def empty_cluster() -> Iterator[LocalCluster]:
    """A scheduler with no worker at all."""
    with LocalCluster(n_workers=0, **LOCAL_CLUSTER) as running:
        yield running


def test_a_cluster_without_workers_fails_the_run_with_exit_3_after_worker_wait(
    empty_cluster: LocalCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_bytes(b"kept")
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=1, pdf_workers=1))
    before = _files(out)
    (source / "b.txt").write_bytes(b"new: work for a cluster that has no worker")
    settings = tmp_path / "indexer.toml"
    settings.write_text("[run]\nworker_wait = 2\n")
    argv = ["run", str(source), "--out", str(out), "--config", str(settings), "--quiet"]
    started = time.monotonic()
    code = main([*argv, "--engine", "dask", "--scheduler", empty_cluster.scheduler_address])
    waited = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 3, err
    assert "NoWorkers" in err and "no worker for 2 s" in err and "nothing was committed" in err
    assert 2 <= waited < 30
    assert _files(out) == before
    assert not (out / ".parts").exists()


def test_the_last_worker_dying_mid_run_fails_the_run_after_worker_wait(
    empty_cluster: LocalCluster, tmp_path: Path
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(16):
        (source / f"doc-{i:02d}.slow").write_bytes(f"slow document {i}".encode())
    out = tmp_path / "out"
    worker = _worker_process(empty_cluster.scheduler_address)
    try:
        # The run waits only `worker_wait` (2 s) for a first worker: on a loaded machine
        # a worker process takes longer than that to start, and the run would fail
        # before it began any partition. Start the run once the worker has joined.
        empty_cluster.wait_for_workers(1, timeout=120)
        config = Config(
            engine="dask", scheduler=empty_cluster.scheduler_address, shard_files=2,
            partition_files=2, worker_wait=2,
        )  # fmt: skip
        registry = _registry(hostile.SLOW)
        run = _Background(lambda: indexer.run(source, out, config, registry=registry))
        deadline = time.monotonic() + 60
        while not list(out.glob(".parts/*")) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert list(out.glob(".parts/*")), "the worker never started a partition"
        worker.kill()
        killed = time.monotonic()
        with pytest.raises(BaseException) as failure:
            run.result()
        assert time.monotonic() - killed < 30
    finally:
        worker.kill()
        worker.wait()
    assert "NoWorkers" in repr(failure.value), repr(failure.value)
    assert not (out / ".current").exists()  # nothing committed
    assert not (out / ".parts").exists()


def _worker_process(address: str) -> subprocess.Popen[bytes]:
    """One dask worker process without a nanny (so that nothing restarts it), which
    imports `hostile` as the test does."""
    tests_dir = str(Path(__file__).parents[1])  # where `hostile` lives
    path = os.pathsep.join([tests_dir, *filter(None, [os.environ.get("PYTHONPATH")])])
    command = [
        sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
        "--no-nanny", "--no-dashboard",
    ]  # fmt: skip
    return subprocess.Popen(
        command, env={**os.environ, "PYTHONPATH": path},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_partition_joins_the_drivers_state_run_only_on_the_drivers_machine(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(3):
        (source / f"note-{i}.txt").write_bytes(f"note {i}".encode())
    parts = tmp_path / "parts"
    parts.mkdir()
    config = Config(workers=1, pdf_workers=1, shard_files=3)
    registry = default_registry()
    state = State(tmp_path / "state.sqlite", shared=True)  # as the driver shares it
    entries = tuple(walk_entries(LocalFolder(source), config, registry))
    task = PartTask(
        index=0, first=0, entries=entries, source=LocalFolder(source), parts=parts, config=config,
        registry=registry, state=None, token="",
    )  # fmt: skip
    for machine, rows in (("another machine", 0), (machine_id(), 3)):
        ref = StateRef(path=state.path, run=state.run, reuse=True, machine=machine)
        result = run_partition(replace(task, state=ref, token=machine))
        release(machine)
        assert result.tally.extracted_now == 3
        with contextlib.closing(sqlite3.connect(state.path)) as db:
            runs = [row[0] for row in db.execute("SELECT run FROM files")]
            (meta_run,) = db.execute("SELECT value FROM meta WHERE name = 'run'").fetchone()
        assert runs == [state.run] * rows and int(meta_run) == state.run
    state.close()


def test_an_unreachable_scheduler_exits_3_and_keeps_the_previous_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_bytes(b"kept")
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=1, pdf_workers=1))
    before = _files(out)
    (source / "b.txt").write_bytes(b"new: work for the cluster (an unchanged tree needs none)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    argv = ["run", str(source), "--out", str(out), "--engine", "dask", "--scheduler", address]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main([*argv, "--quiet"]) == 3
    assert "nothing was committed" in capsys.readouterr().err
    assert _files(out) == before
