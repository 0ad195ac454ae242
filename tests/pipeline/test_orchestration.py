"""`run()` and `index()` are one orchestration: same output, and `index()` stops when cancelled."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import anyio
import hostile
import pytest

import indexer
from indexer._corpusgen import write_corpus
from indexer.config import Config
from indexer.pipeline.run.runner import RunSummary
from indexer.registry import default_registry

pytestmark = pytest.mark.slow  # whole runs over a generated tree

CONFIG = Config(workers=1, pdf_workers=1, shard_files=7)


def _committed(out: Path) -> dict[str, str]:
    """Every committed file but run.json, by name, with its hash."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name != "run.json" and not p.name.startswith(".")
    }


def _facts(summary: RunSummary) -> dict[str, object]:
    """The summary without its timing and its OUT."""
    return {k: v for k, v in summary.to_dict().items() if k not in ("seconds", "out")}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("src")
    write_corpus(root, 120_000, seed=4)
    return root


def test_index_from_an_event_loop_commits_what_run_commits(source: Path, tmp_path: Path) -> None:
    first = anyio.run(indexer.index, source, tmp_path / "async", CONFIG)
    synced = indexer.run(source, tmp_path / "sync", CONFIG)
    assert _committed(tmp_path / "async") == _committed(tmp_path / "sync")
    assert _facts(first) == _facts(synced)
    again = anyio.run(indexer.index, source, tmp_path / "async", CONFIG)
    assert (again.extracted, again.reused) == (0, first.extracted)  # the unchanged path


def test_cancelling_index_commits_nothing_and_frees_out(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(12):
        (source / f"doc-{i:02d}.slow").write_bytes(f"slow document {i}".encode())
    registry = default_registry().copy()
    registry.register(hostile.SLOW)
    out = tmp_path / "out"

    async def cancelled() -> float:
        with anyio.move_on_after(1.0):
            await indexer.index(source, out, CONFIG, registry=registry)
            raise AssertionError("the run finished before it was cancelled")
        return time.monotonic()

    started = time.monotonic()
    stopped = anyio.run(cancelled)
    assert stopped - started < 30
    assert not os.path.lexists(out / ".current")  # nothing committed
    summary = indexer.run(source, out, CONFIG, registry=registry)  # the lock was released
    assert summary.documents == 12
