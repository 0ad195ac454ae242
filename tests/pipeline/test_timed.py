"""Several isolated files per worker call, each under its own deadline: real workers, real hangs."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import anyio
import hostile
import pytest
from outputs import document_lines

import indexer
from indexer._corpusgen import MAKERS
from indexer._types import Options
from indexer.config import Config
from indexer.errors import WorkerCrashed
from indexer.pipeline.extract.tasks import Job
from indexer.pipeline.extract.timed import extract_timed
from indexer.procpool.pool import WorkerPool
from indexer.registry import default_registry

_PDF = next(make for _, ext, make in MAKERS if ext == "pdf")


def _job(spec: object, rel: str, data: bytes) -> Job:
    return Job(spec, rel, data, "0" * 64, len(data))  # type: ignore[arg-type]


def test_a_job_past_its_deadline_ends_the_worker_at_once() -> None:
    registry = default_registry()
    jobs = [_job(registry.get("text"), "a.txt", b"fine"), _job(hostile.HANG, "b.hang", b"x")]

    async def main() -> tuple[type[BaseException], str, float]:
        async with WorkerPool(size=1, name="isolated") as pool:
            started = time.monotonic()
            with pytest.raises(WorkerCrashed) as caught:
                await pool.run(extract_timed, jobs, Options(), registry, {}, 0.5, timeout=60)
            return caught.type, str(caught.value), time.monotonic() - started

    kind, message, seconds = anyio.run(main)
    assert kind is WorkerCrashed and message == "killed by SIGALRM"
    assert seconds < 10  # the job's deadline (0.5 s), not the call's backstop (60 s)


def test_jobs_within_their_deadline_come_back_in_order() -> None:
    registry = default_registry()
    jobs = [_job(registry.get("text"), f"{i}.txt", f"text {i}".encode()) for i in range(3)]

    async def main() -> list[str]:
        async with WorkerPool(size=1, name="isolated") as pool:
            done = await pool.run(extract_timed, jobs, Options(), registry, {}, 30.0, timeout=60)
        return [doc.path for finished in done for doc in finished.docs]

    assert anyio.run(main) == ["0.txt", "1.txt", "2.txt"]


@pytest.mark.slow
def test_a_hang_among_pdfs_of_one_call_fails_alone(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    rng = random.Random(3)
    for name in ("a.pdf", "c.pdf", "d.pdf"):
        (source / name).write_bytes(_PDF(rng, 0))
    (source / "b.hang").write_bytes(b"payload")
    registry = default_registry().copy()
    registry.register(hostile.HANG)
    out = tmp_path / "out"
    # One isolated process: all four files go to it in one call.
    config = Config(workers=1, pdf_workers=1, timeout=2, max_failures=10)
    indexer.run(source, out, config, registry=registry)
    lines = document_lines(out)
    docs = {d["path"]: (d["status"], d["reason"]) for d in map(json.loads, lines)}
    assert docs == {
        "a.pdf": ("ok", ""),
        "b.hang": ("failed", "timeout"),
        "c.pdf": ("ok", ""),
        "d.pdf": ("ok", ""),
    }
