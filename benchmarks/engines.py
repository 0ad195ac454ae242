"""Suite `engines`: the local and the dask engine on one generated corpus, on this machine.

One corpus (`indexer._corpusgen.write_corpus` of `--mb`, or with `--files N` suite
`scale`'s tree of N small files; cached under `--workdir`), one config,
three fresh runs into empty output folders, then an unchanged re-run of the local and
the warm dask engine:

| row                | what runs                                                     |
|--------------------|---------------------------------------------------------------|
| local              | the local engine                                              |
| dask (own cluster) | `--engine dask`: starts and closes a `LocalCluster` itself    |
| dask (warm)        | `--engine dask --scheduler ADDR` on a cluster started before  |
| ... re-run         | the same OUT again: everything reused from the state          |

Overhead is the wall time over the local engine's same run, in percent; "CPU vs local"
the CPU seconds' ratio. CPU seconds add up every process involved (driver, scheduler,
workers and their pools); other load on the machine moves them much less than wall
time. Every output is checked byte for byte against the local engine's first one
(run.json and changes.ndjson excepted). The dask engine distributes partitions of whole
shards holding `partition_files` files or `partition_bytes` bytes (`[run]`; the flags
set the first), so the corpus needs several times `partition_files` x workers files to
keep every worker busy. Needs the `dask` extra.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import psutil

from benchmarks.common import load, table
from benchmarks.pipeline import corpus
from benchmarks.scale import scale_tree
from indexer.config import Config
from indexer.pipeline.engines.dask.cluster import LOCAL_CLUSTER, WORKER_CONFIG
from indexer.pipeline.run import runner


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One timed run (the fastest of `--repeat`)."""

    engine: str
    files: int
    extracted: int
    seconds: float
    cpu_seconds: float
    """CPU time of every process involved (driver, scheduler, workers, pools)."""
    files_per_s: float
    overhead_pct: float | None
    """Wall time over the local engine's same run, in percent."""
    cpu_vs_local: float | None
    """CPU seconds over the local engine's same run."""
    identical: bool


def _outputs(out: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file()
        and not p.name.startswith(".")
        and p.name not in ("run.json", "changes.ndjson")
    }


def _cpu_seconds() -> float:
    """CPU time of this process and its descendants, live or reaped."""
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
    return total


def _run(name: str, source: Path, out: Path, config: Config, args: argparse.Namespace) -> Row:
    """The fastest of `args.repeat` runs into `out` (emptied first unless `args` says re-run)."""
    best: Row | None = None
    for _ in range(args.repeat):
        if "re-run" not in name:
            shutil.rmtree(out, ignore_errors=True)
        wall, cpu = time.perf_counter(), _cpu_seconds()
        summary = runner.run(source, out, config)
        wall, cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
        row = Row(
            engine=name,
            files=summary.files,
            extracted=summary.extracted,
            seconds=round(wall, 2),
            cpu_seconds=round(cpu, 1),
            files_per_s=round(summary.files / wall, 1),
            overhead_pct=None,
            cpu_vs_local=None,
            identical=True,
        )
        best = row if best is None or row.seconds < best.seconds else best
    assert best is not None
    return best


def bench(source: Path, work: Path, args: argparse.Namespace) -> list[Row]:
    """Run every row of the table over `source`, writing into `work`; return the rows."""
    import dask
    from distributed import LocalCluster

    shape = {"shard_files": args.shard_files, "partition_files": args.partition_files}
    local = Config(workers=args.workers, **shape)
    rows = [_run("local", source, work / "local", local, args)]
    reference = _outputs(work / "local")
    own = Config(engine="dask", workers=args.workers, **shape)
    rows.append(_run("dask (own cluster)", source, work / "dask-own", own, args))
    with (
        dask.config.set(WORKER_CONFIG),
        LocalCluster(n_workers=args.workers, **LOCAL_CLUSTER) as cluster,  # type: ignore[no-untyped-call]
    ):
        warm = Config(engine="dask", scheduler=cluster.scheduler_address, **shape)
        rows.append(_run("dask (warm)", source, work / "dask-warm", warm, args))
        rows.append(_run("local re-run", source, work / "local", local, args))
        rows.append(_run("dask (warm) re-run", source, work / "dask-warm", warm, args))
    outs = ["local", "dask-own", "dask-warm", "local", "dask-warm"]
    bases = [None, rows[0], rows[0], None, rows[3]]
    return [
        replace(
            row,
            identical=_outputs(work / out) == reference,
            overhead_pct=None if base is None else round(100 * (row.seconds / base.seconds - 1), 1),
            cpu_vs_local=None if base is None else round(row.cpu_seconds / base.cpu_seconds, 2),
        )
        for row, out, base in zip(rows, outs, bases, strict=True)
    ]


def run(args: Any) -> dict[str, Any]:
    """Every row of the table over the cached corpus; "ok" is whether every output matched."""
    if args.files:
        source, files = scale_tree(Path(args.workdir), args.files, args.seed, 2), args.files
    else:
        source, files = corpus(Path(args.workdir), args.mb, args.seed)
    work = Path(args.workdir) / "out-engines"
    shutil.rmtree(work, ignore_errors=True)
    rows = [asdict(row) for row in bench(source, work, args)]
    shape = {"files": files, "seed": args.seed, "partition_files": args.partition_files}
    return {"corpus": {"mb": None if args.files else args.mb, **shape}, "rows": rows,
            "load_after": load(), "ok": all(row["identical"] for row in rows)}  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The suite's table."""
    headers = ("engine", "files", "extracted", "wall s", "cpu s", "files/s", "overhead",
               "CPU vs local", "same")  # fmt: skip
    rows = [
        (r["engine"], r["files"], r["extracted"], r["seconds"], r["cpu_seconds"],
         r["files_per_s"], "" if r["overhead_pct"] is None else f"{r['overhead_pct']:+.0f}%",
         "" if r["cpu_vs_local"] is None else f"{r['cpu_vs_local']:.2f}x",
         "yes" if r["identical"] else "NO")
        for r in result["rows"]
    ]  # fmt: skip
    return f"corpus: {result['corpus']}\n{table(headers, rows)}"


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--mb", type=float, default=30.0, help="corpus size in MB (engines)")
    parser.add_argument(
        "--files",
        type=int,
        default=0,
        help="suite scale's tree of this many small files instead of --mb",
    )
    parser.add_argument("--shard-files", type=int, default=250, help="files per shard")
    parser.add_argument("--partition-files", type=int, default=Config().partition_files,
                        help="files per dask partition (whole shards)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="workers of each engine")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row; the fastest counts")
