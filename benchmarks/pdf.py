"""Suite `pdf`: PDF extraction throughput per engine, pages/s, in process, on one core.

Every PDF listed in the corpus manifest (format `pdf`) is read into memory, then
extracted through `indexer.extract` with each engine; the clocks cover only the
extraction. Rates use the process's CPU time, which other load on the machine
barely moves; wall-clock seconds are printed beside it. Pages are the page
counts of the documents that opened; documents that fail (encrypted, corrupt)
still cost their time. The best of `--repeat` rounds is reported.

Run it only on trusted files (the shared corpus is): a hostile PDF can hang the
parser, and this suite does not isolate it.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import SHARED_CORPUS, load, table
from indexer import Options, extract

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


def run(args: Any) -> dict[str, Any]:
    """Each chosen engine's best round over the corpus PDFs; pins this process to one core."""
    if not (args.corpus / "MANIFEST.tsv").is_file() or args.repeat < 1:
        raise SystemExit(f"bench pdf: no MANIFEST.tsv under {args.corpus}, or --repeat < 1")
    pin_to_one_core()
    files = corpus_pdfs(args.corpus, args.max_bytes)
    engines = ENGINES if args.engine == "all" else (args.engine,)
    return {"rows": [{**asdict(measure(e, files, args.repeat)), "load": load()} for e in engines]}


def render(result: dict[str, Any]) -> str:
    """The suite's table."""
    keys = ("engine", "files", "pages", "megabytes", "seconds", "wall_seconds",
            "pages_per_second", "megabytes_per_second", "load")  # fmt: skip
    headers = ("engine", "files", "pages", "MB", "cpu s", "wall s", "pages/s", "MB/s", "load")
    return table(headers, [[row[k] for k in keys] for row in result["rows"]])


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument(
        "--corpus", type=Path, default=SHARED_CORPUS, help="corpus with MANIFEST.tsv"
    )
    parser.add_argument("--engine", choices=(*ENGINES, "all"), default="all")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best counts")
    parser.add_argument("--max-bytes", type=int, default=None, help="only PDFs up to this size")
