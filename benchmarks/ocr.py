"""Suite `ocr`: scanned pages through `indexer run` at 1 and 2 workers.

The pages: ../shared/formats/scans (5 pages), the corpus's scanned medical report (3)
and scans generated from known text by the tests' scan maker (PNG, JPEG, a two-page TIFF,
an image-only PDF; 10 pages), cached under `--workdir`. Each run starts from an empty
OUT, so every page is OCR'd; a page is counted when its document's `metadata.ocr` lists
it. CPU seconds are the whole process tree's (the engine runs as a child of a worker).

A second measurement prices the routing: every born-digital corpus PDF extracted in
this process with OCR `auto` and with `off` (no page reaches the engine either way).
A third sets indexer (each engine) beside a plain loop calling the `tesseract` CLI on
each page at 300 dpi with one thread, and beside kreuzberg with OCR forced, in pages per
CPU second with word F1 alongside (`benchmarks.ocr_versus`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks import ocr_versus
from benchmarks.common import (
    ROOT,
    SHARED,
    SHARED_CORPUS,
    Measured,
    cached_tree,
    fresh_dir,
    measure_quiet,
    report,
    run_command,
    target,
)
from indexer import Options, extract
from tests.formats import scanmaker  # the tests' page maker, found from the repo root

SCANS = SHARED / "formats" / "scans"
MEDICAL = "markitdown-test-files/MEDRPT-2024-PAT-3847_medical_report_scan.pdf"
_NOT_BORN_DIGITAL = ("no extractable text", "image only", "scan")
_UNMARKED = (  # image pages the manifest does not call so (tests/formats/test_ocr_corpus.py)
    "pdf-pypdf/git.pdf",
    "pdf-pdfplumber/malformed-from-issue-932.pdf",
    "pdfjs-corrupt/multiple-filters-length-zero.pdf",
)


def _make_pages(folder: Path) -> int:
    """Fill `folder` with the scanned pages; return how many pages there are."""
    import pypdfium2 as pdfium

    copied = [*sorted(SCANS.glob("*.scan.pdf")), SHARED_CORPUS / MEDICAL]
    for scan in copied:
        shutil.copyfile(scan, folder / scan.name)
    for i, (dpi, kind) in enumerate([(300, "png"), (200, "jpeg"), (250, "png"), (200, "jpeg")]):
        page = scanmaker.page(i % 2 + 1, dpi=dpi, angle=0.4 + i / 5, seed=i)
        (folder / f"generated-{i}.{kind}").write_bytes(getattr(scanmaker, kind)(page))
    pages = [scanmaker.page(n, dpi=250, angle=-0.6, seed=10 + n) for n in (1, 2)]
    (folder / "generated.tiff").write_bytes(scanmaker.tiff(pages))
    pages = [scanmaker.page(n, dpi=200, angle=0.8, seed=20 + n) for n in (1, 2, 1, 2)]
    (folder / "generated.pdf").write_bytes(scanmaker.scan_pdf(pages))
    return 4 + 2 + 4 + sum(len(pdfium.PdfDocument(scan)) for scan in copied)


def _run(src: Path, out: Path, workers: int) -> Measured:
    fresh_dir(out)
    command = [sys.executable, "-m", "indexer", "run", str(src), "--out", str(out)]
    command += ["--workers", str(workers), "--pdf-workers", str(workers), "--json", "--quiet"]
    measured = run_command(command, env={**os.environ, "PYTHONPATH": str(ROOT)})
    docs = [
        json.loads(line)
        for path in sorted(out.glob("documents-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]
    pages = sum(len(d["metadata"]["ocr"]["pages"].split()) for d in docs)  # space-separated
    measured.extra = {"documents": len(docs), "pages": pages}
    return measured


def _routing(corpus: Path) -> dict[str, Any]:
    """In-process CPU seconds of the born-digital corpus PDFs with OCR auto and off."""
    rows = [line.split("\t") for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:]]
    files = [
        (row[0], (corpus / row[0]).read_bytes())
        for row in rows
        if row[3] == "pdf"
        and not any(words in row[5] for words in _NOT_BORN_DIGITAL)
        and row[0] not in _UNMARKED
    ]
    seconds: dict[str, float] = {}
    for mode in ("off", "auto", "off", "auto"):  # interleaved, best of two each
        options = Options(ocr_mode=mode)
        start = time.process_time()
        for path, data in files:
            extract(path, data, options)
        took = time.process_time() - start
        seconds[mode] = min(seconds.get(mode, took), took)
    return {"files": len(files), **{f"cpu_s_{m}": round(s, 3) for m, s in seconds.items()}}


def run(args: Any) -> dict[str, Any]:
    """Make (or reuse) the pages, then index them with 1 and 2 workers."""
    workdir = Path(args.workdir)
    folder, pages = cached_tree(workdir, "ocr-pages-v1", _make_pages)
    rows, per_page = [], {}
    for workers in (1, 2):
        measured = measure_quiet(partial(_run, folder, workdir / "out-ocr", workers), args.tries)
        read = measured.extra["pages"]
        per_page[workers] = measured.wall / read
        rows.append(
            {"run": f"indexer run --workers {workers}", **measured.to_dict(), "pages": read,
             "pages_per_s": round(read / measured.wall, 2),
             "cpu_s_per_page": round(measured.cpu / read, 2)}
        )  # fmt: skip
    routing = _routing(SHARED_CORPUS)
    cli, *others = ocr_versus.compare()
    rows += [cli, *others]
    ours = {row["run"].rsplit(" ", 1)[-1]: row for row in others if "indexer" in row["run"]}
    speedup = per_page[1] / per_page[2]
    overhead = routing["cpu_s_auto"] / max(routing["cpu_s_off"], 1e-9) - 1
    return {
        "corpus": {"folder": str(folder), "pages": pages, "born_digital_pdfs": routing},
        "rows": rows,
        "targets": [
            target("2 workers vs 1", ">= 1.6x", speedup, speedup >= 1.6, "x"),
            target("routing on born-digital PDFs", "<= 5%", overhead * 100, overhead <= 0.05, "%"),
            *(_versus(engine, row, cli) for engine, row in ours.items()),
        ],
    }


def _versus(engine: str, ours: dict[str, Any], cli: dict[str, Any]) -> dict[str, Any]:
    """The speed target of `ocr_engine` `engine`: 1.5x the CLI loop at no lower word F1."""
    versus = ours["pages_per_cpu_s"] / cli["pages_per_cpu_s"]
    equal = ours["f1_mean"] >= cli["f1_mean"]
    name = f"{engine}: pages/CPU s vs the one-thread CLI loop, F1 no lower"
    return target(name, ">= 1.5x", versus, versus >= 1.5 and equal, "x")


def render(result: dict[str, Any]) -> str:
    """The suite's text report."""
    keys: tuple[str, ...] = ("wall_s", "cpu_s", "pages", "pages_per_s", "cpu_s_per_page")
    keys += ("pages_per_cpu_s", "f1_mean", "f1_scans", "f1_72dpi")
    keys += ("peak_tree_rss_mb", "load_before", "load_after")
    return report(result, keys)


def add_arguments(parser: Any) -> None:
    """No flags of its own: `--workdir` and `--tries` are the common ones."""
