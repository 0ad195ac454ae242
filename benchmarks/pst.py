"""Suite `pst`: the memory of reading Outlook mailboxes, against their size and messages.

../shared holds one real `.pst` (Tika's, 2.3 MB); larger real ones are given with
`--pst FILE` (the npm package `pst-extractor` 1.12.0 ships a 14 MB `enron.pst` and
two 16.8 MB `.ost` files in `example/testdata/`; no PST writer exists here to build
a larger one). For each mailbox, three measures:

- the reader alone, as the walk starts it (`python -m indexer.formats.msg.pst`), its
  frames drained: its peak RSS (the kernel's `ru_maxrss`), the messages and the
  largest message it wrote;
- the same reader code reading the mailbox `--passes` times over in one process:
  its RSS after each pass, which would climb with every message read if reading
  leaked;
- `indexer run` over a folder holding only the mailbox: the peak RSS of its largest
  process against the mbox suite's bound (300 MB), and of the whole tree, which
  holds the isolated PDF pool and OCR processes too when attachments need them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, SHARED, report, run_command, target
from benchmarks.pipeline import run_index

TIKA_PST = SHARED / "formats" / "tika" / "testPST.pst"
BOUND_MB = 300
"""The mbox suite's bound on the peak RSS of the tree and of its largest process."""


def reader(path: Path) -> dict[str, Any]:
    """Run the mailbox reader process over `path`; its peak RSS, messages and largest."""
    command = [sys.executable, "-m", "indexer.formats.msg.pst", str(path), "2048"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    messages = largest = total = 0
    while head := proc.stdout.read(8):
        sizes = int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")
        proc.stdout.read(sizes[0] + sizes[1])
        messages, largest, total = messages + 1, max(largest, sizes[1]), total + sizes[1]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "messages": messages, "mime_mb": round(total / 1e6, 1),
        "largest_message_mb": round(largest / 1e6, 2),
        "reader_peak_rss_mb": round(usage.ru_maxrss / 1e3, 1), "reader_exit": proc.returncode,
    }  # fmt: skip


def passes(path: str, count: int) -> None:
    """Read the mailbox at `path` `count` times over; print the RSS (MB) after each pass."""
    from indexer.formats.msg.pst import iter_messages

    after = []
    for _ in range(count):
        for _message in iter_messages(path):
            pass
        with open("/proc/self/statm") as statm:
            after.append(round(int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6, 1))
    print(json.dumps(after))


def _passes(path: Path, count: int) -> list[float]:
    code = f"from benchmarks.pst import passes; passes({str(path)!r}, {count})"
    found = run_command([sys.executable, "-c", code])
    rss: list[float] = json.loads(found.stdout)
    return rss


def _alone(workdir: Path, path: Path) -> Path:
    """A folder holding only a copy of the mailbox (the walk skips links out of SOURCE)."""
    folder = workdir / f"pst-{path.name}"
    if not (folder / path.name).exists():
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / path.name)
    return folder


def run(args: Any) -> dict[str, Any]:
    """Measure each mailbox (the shared one, then each `--pst`)."""
    workdir = Path(args.workdir)
    rows, targets = [], []
    for path in [TIKA_PST, *map(Path, args.pst)]:
        if not path.exists():
            raise SystemExit(f"bench pst: no mailbox at {path}")
        read = reader(path)
        rss = _passes(path, args.passes)
        indexed = run_index(_alone(workdir, path), workdir / "out-pst", args.workers)
        rows.append({
            "run": path.name, "file_mb": round(path.stat().st_size / 1e6, 1), **read,
            "rss_after_passes_mb": rss, "documents": indexed.extra["documents"],
            "wall_s": round(indexed.wall, 2), "peak_tree_rss_mb": round(indexed.peak_tree_mb, 1),
            "peak_process_rss_mb": round(indexed.peak_proc_mb, 1),
        })  # fmt: skip
        targets += [
            target(f"{path.name}: reader peak RSS", f"< {BOUND_MB} MB",
                   read["reader_peak_rss_mb"], read["reader_peak_rss_mb"] < BOUND_MB, "MB"),
            target(f"{path.name}: largest process of the run", f"< {BOUND_MB} MB",
                   round(indexed.peak_proc_mb, 1), indexed.peak_proc_mb < BOUND_MB, "MB"),
        ]  # fmt: skip
    return {
        "corpus": {"mailboxes": len(rows), "passes": args.passes, "workers": args.workers},
        "rows": rows,
        "targets": targets,
    }


RUN_KEYS = (
    "file_mb", "messages", "mime_mb", "largest_message_mb", "reader_peak_rss_mb",
    "rss_after_passes_mb", "documents", "wall_s", "peak_tree_rss_mb", "peak_process_rss_mb",
)  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The suite's mailboxes, then its targets."""
    return report(result, RUN_KEYS)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--pst", action="append", default=[], help="another mailbox (repeat)")
    parser.add_argument("--passes", type=int, default=5, help="reads of each mailbox over")
    parser.add_argument("--workers", type=int, default=2, help="workers")
