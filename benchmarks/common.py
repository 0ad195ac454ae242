"""Shared measuring tools of `scripts/bench`: timed subprocesses, process-tree RSS, tables.

Every measurement records the 1-minute load average before and after it, because
the machine is shared: a number taken under load is marked, and the suites re-run
it (`measure_quiet`) when the load was high.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
"""The interpreter `scripts/bench` runs (its venv's), for every measured subprocess."""
INDEXER = str(Path(sys.executable).with_name("indexer"))
SHARED = Path(os.environ.get("INDEXER_SHARED") or ROOT.parent / "shared")
"""The read-only shared data, beside the checkout unless INDEXER_SHARED names it."""
SHARED_CORPUS = SHARED / "corpus"
BUSY_LOAD = 2.5
"""A 1-minute load average above this (on 2 cores) marks a number as taken while busy."""


def load() -> float:
    """The 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def machine() -> dict[str, Any]:
    """The facts about this machine that every report carries."""
    return {
        "nproc": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": sys.version.split()[0],
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
        "commit": _git("rev-parse", "--short", "HEAD"),
        "library_modified": bool(_git("status", "--porcelain", "indexer")),
    }


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


@dataclass(slots=True)
class Measured:
    """One timed run of a command or a function."""

    wall: float
    cpu: float
    """User + system CPU seconds of the run (the process tree, for a subprocess)."""
    peak_tree_mb: float = 0.0
    """Largest sum of RSS over the process and all its descendants at one sample."""
    peak_proc_mb: float = 0.0
    """Largest RSS of any single process of the tree."""
    parent_cpu: float | None = None
    """CPU seconds of the top process alone (last sample, so up to 50 ms short)."""
    load_before: float = 0.0
    load_after: float = 0.0
    returncode: int = 0
    stdout: str = ""
    root_peak_mb: float = 0.0
    """Peak RSS of the top process alone (a subprocess run)."""
    other_peaks_mb: list[float] = field(default_factory=list)
    """Peak RSS of each other process of the tree, largest first (not in `to_dict`)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def busy(self) -> bool:
        """True when the machine was loaded by others around this run."""
        return max(self.load_before, self.load_after) > BUSY_LOAD

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stdout left out)."""
        return {
            "wall_s": round(self.wall, 3),
            "cpu_s": round(self.cpu, 3),
            "peak_tree_rss_mb": round(self.peak_tree_mb, 1),
            "peak_process_rss_mb": round(self.peak_proc_mb, 1),
            **({} if self.parent_cpu is None else {"parent_cpu_s": round(self.parent_cpu, 2)}),
            "load_before": self.load_before,
            "load_after": self.load_after,
            **self.extra,
        }


class _TreeSampler(threading.Thread):
    """Samples the RSS of a process and its descendants every `interval` seconds."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.root = psutil.Process(pid)
        self.interval = interval
        self.stop = threading.Event()
        self.peak_tree = 0
        self.peak_proc = 0
        self.root_cpu = 0.0
        self.peaks: dict[int, int] = {}
        """Each process's peak RSS, by pid."""

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                return
            total = 0
            try:
                times = self.root.cpu_times()
                self.root_cpu = times.user + times.system
            except psutil.Error:
                pass
            for proc in procs:
                try:
                    rss = proc.memory_info().rss
                except psutil.Error:
                    continue
                total += rss
                self.peak_proc = max(self.peak_proc, rss)
                self.peaks[proc.pid] = max(self.peaks.get(proc.pid, 0), rss)
            self.peak_tree = max(self.peak_tree, total)
            self.stop.wait(self.interval)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_command(argv: Sequence[str], *, env: dict[str, str] | None = None) -> Measured:
    """Run `argv`, sampling its process tree's RSS; return its times, peaks (the tree's,
    and each process's) and stdout."""
    before, cpu0, start = load(), _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT
    )
    sampler = _TreeSampler(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    sampler.stop.set()
    sampler.join()
    if proc.returncode not in (0, 1):
        sys.stderr.write(err.decode(errors="replace"))
        raise SystemExit(f"bench: {argv[0]} exited {proc.returncode}")
    return Measured(
        wall=wall,
        cpu=_children_cpu() - cpu0,
        peak_tree_mb=sampler.peak_tree / 1e6,
        peak_proc_mb=sampler.peak_proc / 1e6,
        parent_cpu=sampler.root_cpu,
        load_before=before,
        load_after=load(),
        returncode=proc.returncode,
        stdout=out.decode(errors="replace"),
        root_peak_mb=sampler.peaks.get(proc.pid, 0) / 1e6,
        other_peaks_mb=sorted(
            (b / 1e6 for pid, b in sampler.peaks.items() if pid != proc.pid), reverse=True
        ),
    )


def run_function(fn: Callable[[], Any]) -> tuple[Measured, Any]:
    """Call `fn` in this process; return its wall and CPU time, and its result."""
    before, cpu0, start = load(), time.process_time(), time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    return (
        Measured(
            wall=wall,
            cpu=time.process_time() - cpu0,
            load_before=before,
            load_after=load(),
        ),
        result,
    )


def measure_quiet(run: Callable[[], Measured], tries: int) -> Measured:
    """Run up to `tries` times while the machine was busy; return the fastest run."""
    best = run()
    for _ in range(tries - 1):
        if not best.busy:
            break
        again = run()
        if again.wall < best.wall:
            best = again
    return best


def fresh_dir(path: Path) -> Path:
    """Remove `path` if it exists; return it (it is created by whoever writes into it)."""
    shutil.rmtree(path, ignore_errors=True)
    return path


def cached_tree(workdir: Path, name: str, make: Callable[[Path], int]) -> tuple[Path, int]:
    """`workdir/name`, filled by `make(folder)` (which returns a count) unless done before.

    A `name.count` file beside the folder marks it complete and keeps the count, so
    an interrupted generation is redone from scratch.
    """
    folder, done = workdir / name, workdir / f"{name}.count"
    if not done.exists():
        fresh_dir(folder).mkdir(parents=True)
        done.write_text(str(make(folder)))
    return folder, int(done.read_text())


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned text table: first column left-aligned, the others right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        first, *rest = values
        cells = (v.rjust(w) for v, w in zip(rest, widths[1:], strict=True))
        return "  ".join([first.ljust(widths[0]), *cells])

    return "\n".join([line(list(headers)), line(["-" * w for w in widths]), *map(line, cells)])


def target(name: str, wanted: str, value: float, met: bool, unit: str) -> dict[str, Any]:
    """One target's verdict, for the JSON output and `targets_table`."""
    return {"name": name, "target": wanted, "measured": round(value, 2), "unit": unit, "met": met}


def targets_table(targets: Sequence[dict[str, Any]]) -> str:
    """The table of targets: wanted, measured, met."""
    rows = [
        [t["name"], t["target"], f"{t['measured']:,.2f} {t['unit']}", "yes" if t["met"] else "NO"]
        for t in targets
    ]
    return table(["target", "wanted", "measured", "met"], rows)


def runs_table(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> str:
    """The table of runs: one row per measurement, the columns `keys` (blank when absent)."""
    present = [k for k in keys if any(k in r for r in rows)]
    return table(["run", *present], [[r["run"], *(r.get(k, "") for k in present)] for r in rows])


def report(result: dict[str, Any], keys: Sequence[str]) -> str:
    """A suite's text report: its corpus, a table of its runs (`keys`), a table of targets."""
    runs = runs_table(result["rows"], keys)
    return f"corpus: {result['corpus']}\n{runs}\n\n{targets_table(result['targets'])}"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
