"""Suite `mbox`: a generated mbox streamed through `indexer run`, and the split alone.

The mbox (`benchmarks.mail.write_mbox`, deterministic, streamed to disk) is cached under
`--workdir` by size and seed. The split is timed in this process over the file; the
run is the `indexer` CLI in a subprocess over a folder holding only the mbox.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks import mail
from benchmarks.common import cached_tree, measure_quiet, report, run_function, target
from benchmarks.pipeline import run_index
from indexer.formats.mbox import split


def mbox(workdir: Path, mb: float, seed: int) -> tuple[Path, int]:
    """The folder holding the cached mbox of about `mb` MB, and its message count."""

    def make(folder: Path) -> int:
        return mail.write_mbox(folder / "archive.mbox", int(mb * 1e6), seed)

    return cached_tree(workdir, f"mbox-{mb:g}mb-seed{seed}", make)


def _split_count(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in split(handle))


def run(args: Any) -> dict[str, Any]:
    """Generate (or reuse) the mbox, time the split, then index it."""
    workdir = Path(args.workdir)
    started = time.perf_counter()
    folder, count = mbox(workdir, args.mbox_mb, args.seed)
    generated = time.perf_counter() - started
    size = (folder / "archive.mbox").stat().st_size
    splits, found = run_function(lambda: _split_count(folder / "archive.mbox"))
    out = workdir / "out-mbox"
    indexed = measure_quiet(lambda: run_index(folder, out, args.workers), args.tries)
    rate = count / indexed.wall
    split_rate, split_mb = round(found / splits.wall), round(size / 1e6 / splits.wall, 1)
    rows = [
        {"run": "split only (in-process)", **splits.to_dict(), "messages": found,
         "messages_per_s": split_rate, "mb_per_s": split_mb},
        {"run": f"indexer run --workers {args.workers}", **indexed.to_dict(), "messages": count,
         "messages_per_s": round(rate), "mb_per_s": round(size / 1e6 / indexed.wall, 1)},
    ]  # fmt: skip
    return {
        "corpus": {"mbox_mb": round(size / 1e6, 1), "messages": count, "seed": args.seed,
                   "generate_s": round(generated, 1)},
        "rows": rows,
        "targets": [
            target("messages/s", ">= 2,000", rate, rate >= 2000, "msg/s"),
            target("peak RSS, tree (parent + workers)", "< 300 MB", indexed.peak_tree_mb,
                    indexed.peak_tree_mb < 300, "MB"),
            target("peak RSS, largest process", "< 300 MB", indexed.peak_proc_mb,
                    indexed.peak_proc_mb < 300, "MB"),
        ],
    }  # fmt: skip


RUN_KEYS = (
    "messages", "documents", "wall_s", "cpu_s", "parent_cpu_s", "messages_per_s", "mb_per_s",
    "peak_tree_rss_mb", "peak_process_rss_mb", "load_before", "load_after",
)  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The suite's runs, then its targets."""
    return report(result, RUN_KEYS)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--mbox-mb", type=float, default=256, help="mbox size in MB")
    parser.add_argument("--workers", type=int, default=2, help="workers")
