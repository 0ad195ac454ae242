"""Part of suite `ocr`: indexer's OCR beside a plain loop calling the `tesseract` CLI
and beside kreuzberg with OCR forced.

The pages are those with known text: ../shared/formats/scans (5 pages, 200 dpi scans)
and pages the tests' scan maker draws (PNG 300 dpi, JPEG 200, a two-page TIFF at 250),
each also as a 72 dpi page image, as a screenshot of it would be. The loop is what a
user would write: every page rendered (PDF) or resampled (image) to 300 dpi, saved
as PNG, and `tesseract page.png stdout` run once per page with `--psm 3` and one
thread (`OMP_THREAD_LIMIT=1`: the fair baseline, as a pool of workers would run it).
indexer is `indexer.extract` in this process, one thread, with each engine
(`ocr_engine`): `tesseract` (the program's library in the process), the same started
as a program a page, and the library through tesserocr when it is installed.
kreuzberg (bench-only, when installed) is `extract_bytes_sync` with `force_ocr` and its
Tesseract backend. All are timed in CPU seconds, this process's and its children's, so
pages a second per core compare whatever else the machine runs; quality is the word F1
of ../shared/quality/score_ocr.py.
"""

from __future__ import annotations

import io
import os
import resource
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.common import SHARED
from indexer import Options, extract
from indexer.formats.ocr import capi, tesseract
from tests.formats import scanmaker

__all__ = ["Case", "cases", "compare"]

SCANS = SHARED / "formats" / "scans"
_CLI_DPI = 300
_SCREEN_DPI = 72
_ONE = {**os.environ, "OMP_THREAD_LIMIT": "1"}
_MIME = {"pdf": "application/pdf", "png": "image/png", "jpeg": "image/jpeg", "tiff": "image/tiff"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One file with known text: its name, bytes, pages as images, and the text."""

    name: str
    data: bytes
    pages: list[Any]
    """Each page as a Pillow image at its own resolution (`info["dpi"]`)."""
    truth: str


def cases() -> list[Case]:
    """The pages with known text, each file also as a 72 dpi page image (PNG or TIFF)."""
    import pypdfium2 as pdfium

    found = []
    for scan in sorted(SCANS.glob("*.scan.pdf")):
        doc = pdfium.PdfDocument(scan.read_bytes())
        pages = [
            _at(doc[n].render(scale=200 / 72, grayscale=True).to_pil(), 200)
            for n in range(len(doc))
        ]
        truth = scan.with_suffix(".txt").read_text(encoding="utf-8")
        found.append(Case(name=scan.name, data=scan.read_bytes(), pages=pages, truth=truth))
    made = [(1, 300, "png"), (2, 200, "jpeg")]
    for number, dpi, kind in made:
        page = scanmaker.page(number, dpi=dpi, angle=0.5, seed=number)
        data = getattr(scanmaker, kind)(page)
        found.append(
            Case(
                name=f"made-{number}.{kind}",
                data=data,
                pages=[page],
                truth=scanmaker.text_of(number),
            )
        )
    pages = [scanmaker.page(n, dpi=250, angle=-0.6, seed=10 + n) for n in (1, 2)]
    both = scanmaker.text_of(1) + "\n\n" + scanmaker.text_of(2)
    found.append(Case(name="made.tiff", data=scanmaker.tiff(pages), pages=pages, truth=both))
    return found + [_screen(case) for case in found]


def _at(image: Any, dpi: int) -> Any:
    image.info["dpi"] = (dpi, dpi)
    return image


def _screen(case: Case) -> Case:
    """`case` as page images at 72 dpi: one PNG, or a TIFF of several pages."""
    small = [_resized(page, _SCREEN_DPI) for page in case.pages]
    if len(small) == 1:
        return Case(
            name=f"{case.name}@72.png", data=scanmaker.png(small[0]), pages=small, truth=case.truth
        )
    return Case(
        name=f"{case.name}@72.tiff", data=scanmaker.tiff(small), pages=small, truth=case.truth
    )


def _resized(page: Any, dpi: int) -> Any:
    from PIL import Image

    scale = dpi / page.info["dpi"][0]
    size = (round(page.width * scale), round(page.height * scale))
    return _at(page.convert("L").resize(size, Image.Resampling.LANCZOS), dpi)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(read: Callable[[Case], str], found: list[Case]) -> dict[str, Any]:
    scores, wall, cpu = {}, time.perf_counter(), _cpu()
    for case in found:
        scores[case.name] = scanmaker.word_f1(read(case), case.truth)
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    pages = sum(len(case.pages) for case in found)
    screen = [s for name, s in scores.items() if "@72" in name]
    scans = [s for name, s in scores.items() if "@72" not in name]
    return {
        "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "pages": pages,
        "pages_per_cpu_s": round(pages / cpu, 3),
        "f1_mean": _mean(list(scores.values())), "f1_scans": _mean(scans),
        "f1_72dpi": _mean(screen), "f1": {name: round(s, 3) for name, s in scores.items()},
    }  # fmt: skip


def _mean(values: list[float]) -> float:
    return round(sum(values) / max(1, len(values)), 3)


def _cli(case: Case) -> str:
    """The plain loop: each page at 300 dpi, a PNG, `tesseract page.png stdout`."""
    import pypdfium2 as pdfium

    texts = []
    if case.name.endswith(".pdf"):
        doc = pdfium.PdfDocument(case.data)
        pages = [doc[n].render(scale=_CLI_DPI / 72).to_pil() for n in range(len(doc))]
    else:
        pages = [_resized(page, _CLI_DPI) for page in case.pages]
    with tempfile.TemporaryDirectory() as folder:
        for page in pages:
            path = Path(folder) / "page.png"
            buffer = io.BytesIO()
            page.save(buffer, format="PNG", dpi=(_CLI_DPI, _CLI_DPI))
            path.write_bytes(buffer.getvalue())
            done = subprocess.run(
                ["tesseract", str(path), "stdout"], capture_output=True, env=_ONE, check=False
            )
            texts.append(done.stdout.decode("utf-8", "replace"))
    return "\n\n".join(texts)


def _indexer(engine: str) -> Callable[[Case], str]:
    options = Options(ocr_engine=engine)
    return lambda case: extract(case.name, case.data, options).text


def _kreuzberg() -> Callable[[Case], str] | None:
    """kreuzberg's reader with OCR forced (Tesseract, English), or None if not installed."""
    try:
        from kreuzberg import ExtractionConfig, OcrConfig, extract_bytes_sync
    except ImportError:
        return None
    ocr = OcrConfig(backend="tesseract", language="eng")
    config = ExtractionConfig(force_ocr=True, use_cache=False, ocr=ocr)

    def read(case: Case) -> str:
        kind = _MIME[case.name.rsplit(".", 1)[-1]]
        return str(extract_bytes_sync(case.data, kind, config=config).content)

    return read


def compare() -> list[dict[str, Any]]:
    """The rows over the same pages: the CLI loop, indexer with each installed engine,
    then kreuzberg when it is installed."""
    found = cases()
    rows = [{"run": "tesseract CLI loop, 300 dpi, 1 thread", **_timed(_cli, found)}]
    rows.append({"run": "indexer, ocr_engine tesseract", **_timed(_indexer("tesseract"), found)})
    with mock.patch.object(capi, "tsv", return_value=None):  # the route without its library
        timed = _timed(_indexer("tesseract"), found)
    rows.append({"run": "indexer, ocr_engine tesseract, the program", **timed})
    if tesseract.library() is not None:
        timed = _timed(_indexer("tesserocr"), found)
        rows.append({"run": "indexer, ocr_engine tesserocr", **timed})
    kreuzberg = _kreuzberg()
    if kreuzberg is not None:
        rows.append({"run": "kreuzberg, force_ocr", **_timed(kreuzberg, found)})
    return rows
