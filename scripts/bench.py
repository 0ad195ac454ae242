"""Benchmarks of the indexer: `scripts/bench SUITE [flags] [--json]`.

Suites (the issue each answers):
    kinds        single-core throughput per kind via indexer.extract (issue 2)
    pipeline     indexer run --workers 1/2 vs a sequential loop and vs two loops at
                 once (the machine's ceiling), in rounds; peak RSS (issue 3)
    incremental  first run, unchanged re-run, 1%-changed re-run (issue 4)
    mbox         a generated mbox through indexer run, and the split alone (issue 5)
    html-main    main-content extraction vs whole-page HTML and trafilatura (issue 17)
    archives     a zip of ~1,000 mixed files against the same files unpacked (issue 15)
    sheets       spreadsheets and RTF: recall of markitdown's words, speed against
                 markitdown and kreuzberg, peak RSS on generated workbooks (issue 14)
    office       the office formats against markitdown and kreuzberg, and markitdown's
                 words kept, on ../shared/formats (issue 14)
    chunks       chunk sizes per kind, packed against the extractors' blocks, on
                 ../shared/corpus and ../shared/formats (issue 19)
    ocr          scanned pages through indexer run at 1 and 2 workers; routing's cost (issue 16)
    all          every suite above, in that order

Every process here keeps its heap between documents, as `indexer run`'s processes
do (`indexer.pad_heap`): the sequential loop gets the run's allocator setting too.

Prints a table per suite (with the machine and the load average next to every
number), or with `--json` one JSON object. Generated corpora are cached under
`--workdir`. Exit code 0 (targets missed are reported, not failed), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_archives
import bench_chunks
import bench_html_main
import bench_kinds
import bench_mbox
import bench_ocr
import bench_office
import bench_pipeline
import bench_sheets
from bench_common import machine

import indexer

Suite = tuple[Callable[[Any], dict[str, Any]], Callable[[dict[str, Any]], str]]
SUITES: dict[str, Suite] = {
    "kinds": (bench_kinds.run, bench_kinds.render),
    "pipeline": (bench_pipeline.run_pipeline, bench_pipeline.render),
    "incremental": (bench_pipeline.run_incremental, bench_pipeline.render),
    "mbox": (bench_mbox.run, bench_mbox.render),
    "html-main": (bench_html_main.run, bench_html_main.render),
    "archives": (bench_archives.run, bench_archives.render),
    "sheets": (bench_sheets.run, bench_sheets.render),
    "office": (bench_office.run, bench_office.render),
    "chunks": (bench_chunks.run, bench_chunks.render),
    "ocr": (bench_ocr.run, bench_ocr.render),
}


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="scripts/bench",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("suite", choices=(*SUITES, "all"))
    p.add_argument("--json", action="store_true", help="print machine-readable results")
    p.add_argument("--workdir", default="/tmp/indexer-bench", help="generated corpora and OUTs")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated corpora")
    p.add_argument("--tries", type=int, default=2, help="re-runs of a run taken while busy")
    bench_kinds.add_arguments(p)
    bench_pipeline.add_arguments(p)
    bench_mbox.add_arguments(p)
    bench_archives.add_arguments(p)
    bench_sheets.add_arguments(p)
    bench_office.add_arguments(p)
    bench_chunks.add_arguments(p)
    bench_ocr.add_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the chosen suites; print tables or JSON; return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    # As `indexer run`'s processes do: the loop (and every in-process rate) gets the
    # same allocator setting as the run it is compared with.
    indexer.pad_heap()
    if argv[:1] == ["_loop"]:
        return bench_pipeline.loop_main(argv[1:])
    if argv[:1] == ["_pair"]:
        return bench_pipeline.pair_main(argv[1:])
    if argv[:1] == ["_serial"]:
        return bench_pipeline.serial_main(argv[1:])
    args = parser().parse_args(argv)
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    names = list(SUITES) if args.suite == "all" else [args.suite]
    results: dict[str, Any] = {
        "date": date.today().isoformat(),
        "machine": machine(),
        "args": vars(args),
    }
    if not args.json:
        print(f"machine: {results['machine']}", flush=True)
    for name in names:
        run, render = SUITES[name]
        results[name] = run(args)
        if not args.json:
            print(f"\n== {name} ==\n{render(results[name])}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
