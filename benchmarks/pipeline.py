"""Suite `pipeline`: `indexer run` end to end against a sequential loop and the machine.

Every run is the `indexer` CLI in a subprocess with a fresh OUT, its process tree's
RSS sampled every 50 ms. The baseline is `_loop` (`python -m benchmarks.pipeline _loop
SRC OUT_FILE`), a plain sequential loop in one process over the same files (read,
`indexer.extract`, orjson lines to a file). Generated corpora are cached under
`--workdir`, keyed by their size and seed. `run_index` is shared with the other suites.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import orjson

import indexer
from benchmarks.common import (
    INDEXER,
    PYTHON,
    ROOT,
    Measured,
    cached_tree,
    fresh_dir,
    measure_quiet,
    report,
    run_command,
    runs_table,
    target,
)
from indexer._corpusgen import write_corpus
from indexer._types import DEFAULT_OPTIONS
from indexer.config import Config
from indexer.pipeline.extract.tasks import Job, extract_jobs
from indexer.pipeline.output.stored import encode
from indexer.registry import default_registry


def corpus(workdir: Path, mb: float, seed: int) -> tuple[Path, int]:
    """The cached mixed corpus of about `mb` MB (generated on first use); its file count."""
    make = partial(_write_corpus, total_bytes=int(mb * 1e6), seed=seed)
    return cached_tree(workdir, f"corpus-{mb:g}mb-seed{seed}", make)


def _write_corpus(root: Path, *, total_bytes: int, seed: int) -> int:
    return write_corpus(root, total_bytes, seed)


def index_command(src: Path, out: Path, workers: int, *flags: str) -> list[str]:
    """`indexer run` with `workers` general and isolated workers, JSON summary, quiet."""
    return [
        INDEXER, "run", str(src), "--out", str(out), "--workers", str(workers),
        "--pdf-workers", str(workers), "--quiet", "--json", *flags,
    ]  # fmt: skip


def run_index(
    src: Path, out: Path, workers: int, *, fresh: bool = True, extra: Sequence[str] = ()
) -> Measured:
    """Index `src` into `out` (emptied first when `fresh`), `extra` flags added; attach
    run.json's facts."""
    if fresh:
        fresh_dir(out)
    measured = run_command(index_command(src, out, workers, *extra))
    report = json.loads((out / "run.json").read_text())
    summary = json.loads(measured.stdout)
    measured.extra = {
        "files": report["files"], "documents": report["documents"],
        "extracted": report["extracted"], "reused": report["reused"],
        "bytes": report["bytes_read"], "pages": report["pages"],
        "failed": summary["failed"], "run_json_peak_rss_mb": report["peak_rss_mb"],
    }  # fmt: skip
    return measured


_HELPER = [PYTHON, "-m", "benchmarks.pipeline"]
"""This module as a process: `_HELPER + [MODE, ARGS...]` runs one of `helper_main`'s modes."""


def _run_bench(mode: str, *args: Path) -> Measured:
    """`python -m benchmarks.pipeline MODE ARGS...` in its own process (so its RSS is
    measured as a run's is); its JSON counts become the measurement's `extra`."""
    measured = run_command([*_HELPER, mode, *map(str, args)])
    measured.extra = json.loads(measured.stdout)
    return measured


def _loop_files(src: Path) -> list[Path]:
    """The files the loop (and `serial_work`) read: every non-hidden file, sorted."""
    return sorted(p for p in src.rglob("*") if p.is_file() and not p.name.startswith("."))


def run_loop(src: Path, out_file: Path) -> Measured:
    """The sequential baseline in its own process."""
    return _run_bench("_loop", src, out_file)


def sequential_loop(src: Path, out_file: Path) -> dict[str, int]:
    """Read, extract and serialise every non-hidden file under `src`, in sorted order."""
    files = total = pages = chunks = 0
    with open(out_file, "wb") as out:
        for path in _loop_files(src):
            rel = path.relative_to(src).as_posix()
            data = path.read_bytes()
            result = indexer.extract(rel, data)
            for i, chunk in enumerate(result.chunks):
                record = {"path": rel, "chunk": i, "text": chunk.text, "meta": chunk.meta}
                out.write(orjson.dumps(record) + b"\n")
            files += 1
            total += len(data)
            pages += int(result.metadata.get("pages", 0) or 0)
            chunks += len(result.chunks)
    return {"files": files, "bytes": total, "pages": pages, "chunks": chunks}


def _rates(name: str, m: Measured) -> dict[str, Any]:
    extra = m.extra
    return {
        "run": name, **m.to_dict(),
        "files_per_s": round(extra["files"] / m.wall, 1),
        "mb_per_s": round(extra["bytes"] / 1e6 / m.wall, 2),
        "pages_per_s": round(extra["pages"] / m.wall, 1),
    }  # fmt: skip


def run_pair(src: Path, workdir: Path) -> Measured:
    """Two sequential loops at once, each over all of `src`, sharing nothing.

    What this machine's cores give a perfectly parallel job with no overhead at all:
    `2 * loop / pair` is the ceiling of any speed-up over the loop measured here.
    Its counts (and rates) are both loops' together.
    """
    return _run_bench("_pair", src, workdir / "pair")


def pair_main(argv: list[str]) -> int:
    """`_pair SRC STEM`: two `_loop`s at once, writing STEM-1 and STEM-2; prints their
    counts added up as JSON."""
    procs = [
        subprocess.Popen(
            [*_HELPER, "_loop", argv[0], f"{argv[1]}-{i}.ndjson"], stdout=subprocess.PIPE, cwd=ROOT
        )
        for i in (1, 2)
    ]
    outputs = [proc.communicate()[0] for proc in procs]
    if any(proc.returncode for proc in procs):
        return 1
    counts = [json.loads(out) for out in outputs]
    print(json.dumps({key: sum(c[key] for c in counts) for key in counts[0]}))
    return 0


def run_serial(src: Path, workdir: Path) -> Measured:
    """`serial_work` in its own process (see there)."""
    out = fresh_dir(workdir / "serial")
    out.mkdir(parents=True)
    return _run_bench("_serial", src, out)


def serial_main(argv: list[str]) -> int:
    """`_serial SRC OUT_DIR`: `serial_work`; prints its counts as JSON."""
    print(json.dumps(serial_work(Path(argv[0]), Path(argv[1]))))
    return 0


def serial_work(src: Path, out: Path) -> dict[str, int]:
    """What `indexer run` must do for each file, done in one process: the loop's files,
    each through the workers' own code (`extract_jobs`: read, sha256, extract, render
    the chunk and document records with their ids and digests), its records written
    and hashed as shards are, and its output encoded and checksummed as the state
    stores it. A floor: no walk filters, no SQLite, no fsync, no worker process, no
    pipe, no event loop. `2 * loop / pair` over `serial / loop` bounds any speed-up."""
    registry = default_registry()
    limit = Config().max_file_bytes
    files = total = pages = chunks = pending = 0
    shard, documents = hashlib.sha256(), hashlib.sha256()
    with (
        open(out / "chunks.ndjson", "wb") as shard_file,
        open(out / "documents.ndjson", "wb") as documents_file,
        open(out / "state.out", "wb") as state_file,
    ):
        for path in _loop_files(src):
            rel, size = path.relative_to(src).as_posix(), path.stat().st_size
            job = Job(registry.for_path(rel), rel, b"", "", size, bytes(path), limit)
            (done,) = extract_jobs([job], DEFAULT_OPTIONS, registry, {})
            pending += done.pending is not None
            for doc in done.docs:
                shard_file.write(doc.block)
                shard.update(doc.block)
                documents_file.write(doc.line)
                documents.update(doc.line)
                chunks += doc.count
                pages += doc.pages
            crc = 0
            # in parts, as the state appends them
            for part in encode(done.docs, "blocks", done.blocks):
                state_file.write(part)
                crc = zlib.crc32(part, crc)
            files += 1
            total += size
    return {"files": files, "bytes": total, "pages": pages, "chunks": chunks, "pending": pending}


_RUN_NAMES = {
    "loop": "sequential loop",
    "pair": "two loops at once",
    "serial": "the run's work, serial",
    "1": "--workers 1",
    "2": "--workers 2",
}


def run(args: Any) -> dict[str, Any]:
    """Loop, two loops at once, `--workers 1` and `--workers 2` over one generated mixed
    corpus; `--rounds` times, interleaved, so each ratio compares runs taken seconds apart."""
    workdir = Path(args.workdir)
    started = time.perf_counter()
    src, count = corpus(workdir, args.mb, args.seed)
    generated = time.perf_counter() - started
    out = workdir / "out-pipeline"
    wanted = [k for k in _RUN_NAMES if k in args.pipeline_runs.split(",")]
    rounds: list[dict[str, Measured]] = []
    for _ in range(max(1, args.rounds)):
        measured: dict[str, Measured] = {}
        for key in wanted:
            if key == "loop":
                run = partial(run_loop, src, workdir / "loop.ndjson")
            elif key == "pair":
                run = partial(run_pair, src, workdir)
            elif key == "serial":
                run = partial(run_serial, src, workdir)
            else:
                run = partial(run_index, src, out, int(key))
            measured[key] = measure_quiet(run, args.tries)
        rounds.append(measured)
    rows = [
        {**_rates(_RUN_NAMES[key], m), "round": i}
        for i, measured in enumerate(rounds, 1)
        for key, m in measured.items()
    ]
    return {
        "corpus": {
            "mb": args.mb,
            "files": count,
            "seed": args.seed,
            "generate_s": round(generated, 1),
        },
        "rows": rows,
        "ratios": [_ratios(i, m) for i, m in enumerate(rounds, 1)],
        "targets": _pipeline_targets(rounds, args.mb),
    }


_RATIOS: dict[str, tuple[tuple[str, ...], Callable[..., float]]] = {
    "ceiling_x": (("loop", "pair"), lambda loop, pair: 2 * loop.wall / pair.wall),
    "serial_over_loop": (("loop", "serial"), lambda loop, serial: serial.wall / loop.wall),
    "best_x": (
        ("loop", "pair", "serial"),
        lambda loop, pair, serial: 2 * loop.wall**2 / (pair.wall * serial.wall),
    ),
    "workers_2_x": (("loop", "2"), lambda loop, two: loop.wall / two.wall),
    "of_ceiling_pct": (
        ("loop", "pair", "2"),
        lambda _loop, pair, two: 100 * pair.wall / (2 * two.wall),
    ),
    "workers_1_slower_pct": (("loop", "1"), lambda loop, one: 100 * (one.wall / loop.wall - 1)),
}
"""Each ratio a round prints, from the runs it needs (by `_RUN_NAMES` key): one
definition for the per-round table and the targets' medians."""


def _ratio(name: str, measured: dict[str, Measured]) -> float | None:
    """Ratio `name` of one round, or None when the round lacks a run it needs."""
    keys, ratio = _RATIOS[name]
    if not all(key in measured for key in keys):
        return None
    return ratio(*(measured[key] for key in keys))


def _ratios(number: int, measured: dict[str, Measured]) -> dict[str, Any]:
    """One round's ratios: the speed-ups over the loop and the machine's ceiling."""
    row: dict[str, Any] = {"round": number}
    for name in _RATIOS:
        value = _ratio(name, measured)
        if value is not None:
            row[name] = round(value, 1 if name.endswith("_pct") else 2)
    return row


def _pipeline_targets(rounds: list[dict[str, Measured]], mb: float) -> list[dict[str, Any]]:
    """The issue's three targets, for the runs that were measured: with several rounds,
    the median of the rounds' ratios (each from runs of the same round).

    Beside the wall-clock ratios (which the machine's other load distorts), the
    CPU-bound bound: the loop's CPU seconds over the run's CPU seconds spread on
    the cores it may use, i.e. the speed-up a quiet machine could show at best.
    And the machine's own ceiling: two loops at once against one (see `run_pair`).
    """

    def median_of(name: str) -> float | None:
        values = [v for r in rounds if (v := _ratio(name, r)) is not None]
        return statistics.median(values) if values else None

    def median_cpu(ratio: Callable[[Measured, Measured], float], key: str) -> float:
        return statistics.median(
            ratio(r["loop"], r[key]) for r in rounds if "loop" in r and key in r
        )

    out = []
    speedup = median_of("workers_2_x")
    if speedup is not None:
        bound = median_cpu(lambda loop, two: loop.cpu / max(two.cpu / 2, two.parent_cpu or 0), "2")
        out.append(target("--workers 2 speed-up vs loop", ">= 1.7x", speedup, speedup >= 1.7, "x"))
        out.append(target("  same, CPU-bound upper bound", ">= 1.7x", bound, bound >= 1.7, "x"))
    ceiling = median_of("ceiling_x")
    if ceiling is not None:
        out.append(target("  machine ceiling: 2 loops at once", ">= 1.7x", ceiling,
                          ceiling >= 1.7, "x"))  # fmt: skip
    best = median_of("best_x")
    if best is not None:
        out.append(target("  best with the run's own work", ">= 1.7x", best, best >= 1.7, "x"))
    slower = median_of("workers_1_slower_pct")
    if slower is not None:
        by_cpu = median_cpu(lambda loop, one: 100 * (one.cpu / loop.cpu - 1), "1")
        out.append(target("--workers 1 slower than loop", "<= 10%", slower, slower <= 10, "%"))
        out.append(target("  same, by CPU seconds", "<= 10%", by_cpu, by_cpu <= 10, "%"))
    peaks = [r["2"].peak_tree_mb for r in rounds if "2" in r]
    if peaks:
        rss = max(peaks)
        wanted = f"< 500 MB (on 2 GB; ran {mb:g} MB)"
        out.append(target("peak RSS, tree (--workers 2)", wanted, rss, rss < 500, "MB"))
    return out


RUN_KEYS = (
    "round", "wall_s", "cpu_s", "parent_cpu_s", "peak_tree_rss_mb", "peak_process_rss_mb",
    "files_per_s", "mb_per_s", "pages_per_s", "extracted", "reused", "load_before", "load_after",
)  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The suite's runs, then (pipeline) each round's ratios, then its targets."""
    text = report(result, RUN_KEYS)
    if result.get("ratios"):
        keys = ("ceiling_x", "serial_over_loop", "best_x", "workers_2_x", "of_ceiling_pct",
                "workers_1_slower_pct")  # fmt: skip
        rows = [{"run": f"round {r['round']}", **r} for r in result["ratios"]]
        runs, targets = text.rsplit("\n\n", 1)
        text = f"{runs}\n\n{runs_table(rows, keys)}\n\n{targets}"
    return text


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--mb", type=float, default=200, help="mixed corpus size")
    parser.add_argument(
        "--pipeline-runs",
        default="loop,pair,serial,1,2",
        help="which of loop,pair,serial,1,2 to run (pair: two loops at once;"
        " serial: the run's per-file work in one process)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of those runs")


def loop_main(argv: list[str]) -> int:
    """`_loop SRC OUT_FILE`: the sequential baseline; prints its counts as JSON."""
    src, out_file = Path(argv[0]), Path(argv[1])
    print(json.dumps(sequential_loop(src, out_file)))
    return 0


def helper_main(argv: list[str]) -> int:
    """`python -m benchmarks.pipeline MODE ARGS...`: the loop, the pair or the serial work."""
    # As `indexer run`'s processes do: the loop gets the allocator setting of the run it
    # is compared with.
    indexer.pad_heap()
    modes = {"_loop": loop_main, "_pair": pair_main, "_serial": serial_main}
    return modes[argv[0]](argv[1:])


if __name__ == "__main__":
    raise SystemExit(helper_main(sys.argv[1:]))
