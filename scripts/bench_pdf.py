#!/usr/bin/env python3
"""Measure PDF extraction throughput per engine: pages/s, in process, on one core.

Every PDF listed in the corpus manifest (format `pdf`) is read into memory, then
extracted through `indexer.extract` with each engine; the clocks cover only the
extraction. Rates use the process's CPU time, which other load on the machine
barely moves; wall-clock seconds are printed beside it. Pages are the page
counts of the documents that opened; documents that fail (encrypted, corrupt)
still cost their time. The best of `--repeat` rounds is reported.

Usage:
    .venv/bin/python scripts/bench_pdf.py [--corpus DIR] [--engine pdfium|pdfplumber|all]
        [--repeat N] [--max-bytes N] [--json]

Run it only on trusted files (the shared corpus is): a hostile PDF can hang the
parser, and this script does not isolate it. Exit code 0, or 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer import Options, extract  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
ENGINES = ("pdfium", "pdfplumber")


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurement:
    """One engine's best round over the selected files."""

    engine: str
    files: int
    pages: int
    megabytes: float
    seconds: float
    """CPU seconds of the best round."""
    wall_seconds: float
    pages_per_second: float
    megabytes_per_second: float


def corpus_pdfs(corpus: Path, max_bytes: int | None) -> list[tuple[str, bytes]]:
    """Return (relative path, bytes) of the manifest's PDFs, in manifest order."""
    rows = (line.split("\t") for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:])
    files = []
    for row in rows:
        if len(row) > 3 and row[3] == "pdf" and (max_bytes is None or int(row[1]) <= max_bytes):
            files.append((row[0], (corpus / row[0]).read_bytes()))
    return files


def one_round(engine: str, files: list[tuple[str, bytes]]) -> tuple[float, float, int]:
    """Return the CPU and wall seconds of extracting every file once, and their pages."""
    options = Options(pdf_engine=engine)  # type: ignore[arg-type]
    pages = 0
    cpu = wall = 0.0
    for path, data in files:
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        result = extract(path, data, options)
        cpu += time.process_time() - cpu_start
        wall += time.perf_counter() - wall_start
        pages += int(result.metadata.get("pages", 0))
    return cpu, wall, pages


def measure(engine: str, files: list[tuple[str, bytes]], repeat: int) -> Measurement:
    """Return the best of `repeat` rounds of `engine` over `files`."""
    if files:
        extract(files[0][0], files[0][1], Options(pdf_engine=engine))  # type: ignore[arg-type]
    seconds, wall, pages = min(one_round(engine, files) for _ in range(repeat))
    megabytes = sum(len(data) for _, data in files) / 1e6
    return Measurement(
        engine=engine,
        files=len(files),
        pages=pages,
        megabytes=round(megabytes, 2),
        seconds=round(seconds, 3),
        wall_seconds=round(wall, 3),
        pages_per_second=round(pages / seconds, 1) if seconds else 0.0,
        megabytes_per_second=round(megabytes / seconds, 2) if seconds else 0.0,
    )


def pin_to_one_core() -> None:
    """Run on a single CPU so the numbers mean "one core"."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def main(argv: list[str] | None = None) -> int:
    """Parse `argv`, run the benchmark, print a table (or JSON); return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--engine", choices=(*ENGINES, "all"), default="all")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-bytes", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.corpus / "MANIFEST.tsv").is_file() or args.repeat < 1:
        parser.print_usage(sys.stderr)
        print(f"no MANIFEST.tsv under {args.corpus}, or --repeat < 1", file=sys.stderr)
        return 2
    pin_to_one_core()
    files = corpus_pdfs(args.corpus, args.max_bytes)
    engines = ENGINES if args.engine == "all" else (args.engine,)
    results = [measure(engine, files, args.repeat) for engine in engines]
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return 0
    print(
        f"{'engine':<11}{'files':>6}{'pages':>7}{'MB':>7}{'cpu s':>8}{'wall s':>8}"
        f"{'pages/s':>9}{'MB/s':>7}"
    )
    for r in results:
        print(
            f"{r.engine:<11}{r.files:>6}{r.pages:>7}{r.megabytes:>7.2f}{r.seconds:>8.2f}"
            f"{r.wall_seconds:>8.2f}"
            f"{r.pages_per_second:>9.1f}{r.megabytes_per_second:>7.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
