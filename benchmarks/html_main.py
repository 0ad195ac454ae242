"""Suite `html-main`: main-content extraction against whole-page rendering and
trafilatura, side by side on the same pages.

The pages are the 48 web pages of `../shared/quality/html-main/` (`NAME.source.html`,
the pages of the `html-readability` corpus). Each round runs, one after the other, in
this process: `indexer.extract` with `html_main_content` off (the whole page as
Markdown), with it on (the default), and `trafilatura.extract(include_tables=True)`
(the reference main-content extractor, a bench-only dependency) on the same bytes,
after a warm-up of each. Rates use the process's CPU time, best of `--repeat` rounds,
so other load on the machine barely moves them.

Targets: main content at least 8x trafilatura's throughput and at least 75% of the
whole page's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import indexer
from benchmarks.common import SHARED, load, table, target, targets_table

PAGES = SHARED / "quality" / "html-main"
Files = list[tuple[str, bytes]]
_WHOLE = indexer.Options(html_main_content=False)
_MAIN = indexer.Options(html_main_content=True)


def pages() -> Files:
    """The (name, bytes) of the reference pages, sorted by name; [] when absent."""
    paths = sorted(PAGES.glob("*.source.html")) if PAGES.is_dir() else []
    return [(p.name, p.read_bytes()) for p in paths]


def _indexer(options: indexer.Options) -> Callable[[Files], None]:
    def run(files: Files) -> None:
        for name, data in files:
            indexer.extract(name, data, options)

    return run


def _trafilatura() -> Callable[[Files], None] | None:
    try:
        import trafilatura
    except ImportError:
        return None

    def run(files: Files) -> None:
        for _, data in files:
            trafilatura.extract(data, include_tables=True)

    return run


def _best(runs: dict[str, Callable[[Files], None]], files: Files, repeat: int) -> dict[str, float]:
    """The least CPU seconds of each run over `files`, rounds interleaved, after a warm-up."""
    best = dict.fromkeys(runs, float("inf"))
    for run in runs.values():
        run(files)
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.process_time()
            run(files)
            best[name] = min(best[name], time.process_time() - start)
    return best


def run(args: Any) -> dict[str, Any]:
    """Measure the three extractors on the pages; return rows and targets."""
    files = pages()
    if not files:
        return {"corpus": f"{PAGES} is absent", "rows": [], "targets": []}
    runs = {"whole page (main_content off)": _indexer(_WHOLE), "main content": _indexer(_MAIN)}
    traf = _trafilatura()
    if traf is not None:
        runs["trafilatura extract(include_tables=True)"] = traf
    seconds = _best(runs, files, args.repeat)
    mb = sum(len(d) for _, d in files) / 1e6
    rows = [
        {"run": name, "files": len(files), "mb": round(mb, 2), "cpu_s": round(s, 3),
         "pages_per_s": round(len(files) / s, 1), "mb_per_s": round(mb / s, 2), "load": load()}
        for name, s in seconds.items()
    ]  # fmt: skip
    whole, main = seconds["whole page (main_content off)"], seconds["main content"]
    targets = [
        target("main content / whole page", ">= 0.75", whole / main, whole / main >= 0.75, "x")
    ]
    if traf is not None:
        ratio = seconds["trafilatura extract(include_tables=True)"] / main
        targets.append(target("main content / trafilatura", ">= 8", ratio, ratio >= 8, "x"))
    else:
        targets.append(
            target("main content / trafilatura", ">= 8", 0.0, False, "x (not installed)")
        )
    return {"corpus": f"{PAGES} ({len(files)} pages)", "rows": rows, "targets": targets}


def render(result: dict[str, Any]) -> str:
    """The suite's report: a table of runs and one of targets."""
    headers = ("run", "files", "MB", "cpu s", "pages/s", "MB/s", "load")
    rows = [
        (r["run"], r["files"], r["mb"], r["cpu_s"], r["pages_per_s"], r["mb_per_s"], r["load"])
        for r in result["rows"]
    ]
    return (
        f"corpus: {result['corpus']}\n{table(headers, rows)}\n\n{targets_table(result['targets'])}"
    )


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
