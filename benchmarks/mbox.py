"""Suite `mbox`: a generated mbox streamed through `indexer run`, and the split alone.

The mbox (`benchmarks.mail.write_mbox`, deterministic, streamed to disk) is cached under
`--workdir` by size and seed. With `--messages N` it is instead N messages of the
labelled conversations of `tests/formats/mailthreads.py` (every quoting style, so quote
splitting works on every message; `--keep-quotes` runs with `[mail] keep_quotes` for
the side-by-side figure). The split is timed in this process over the file; the run is
the `indexer` CLI in a subprocess over a folder holding only the mbox.
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


def thread_mbox(workdir: Path, messages: int, seed: int) -> tuple[Path, int]:
    """The folder holding the cached mbox of `messages` generated conversation messages."""
    from tests.formats.mailthreads import threads

    def make(folder: Path) -> int:
        count, batch = 0, seed
        with open(folder / "archive.mbox", "wb", buffering=1 << 20) as out:
            while count < messages:  # 180 conversations at a time: memory stays small
                for labelled in threads(batch, 180)[: messages - count]:
                    out.write(b"From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n")
                    out.write(mail.mboxrd_quote(labelled.mime.replace(b"\r\n", b"\n")))
                    out.write(b"\n\n")
                    count += 1
                batch += 1
        return count

    return cached_tree(workdir, f"mbox-threads-{messages}-seed{seed}", make)


def _keep_quotes(workdir: Path) -> Path:
    conf = workdir / "keep-quotes.toml"
    conf.write_text("[mail]\nkeep_quotes = true\n")
    return conf


def _split_count(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in split(handle))


def run(args: Any) -> dict[str, Any]:
    """Generate (or reuse) the mbox, time the split, then index it."""
    workdir = Path(args.workdir)
    started = time.perf_counter()
    if args.messages:
        folder, count = thread_mbox(workdir, args.messages, args.seed)
    else:
        folder, count = mbox(workdir, args.mbox_mb, args.seed)
    generated = time.perf_counter() - started
    size = (folder / "archive.mbox").stat().st_size
    splits, found = run_function(lambda: _split_count(folder / "archive.mbox"))
    out = workdir / "out-mbox"
    extra = ["--config", str(_keep_quotes(workdir))] if args.keep_quotes else []
    indexed = measure_quiet(lambda: run_index(folder, out, args.workers, extra=extra), args.tries)
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
    parser.add_argument(
        "--messages", type=int, default=0, help="N generated conversation messages instead"
    )
    parser.add_argument(
        "--keep-quotes", action="store_true", help="run with [mail] keep_quotes = true"
    )
