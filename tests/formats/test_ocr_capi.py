"""The default engine reads through the `tesseract` program's own library, in the worker.

Started once a page, the program loads its models every time; its library (libtesseract,
through its C API) loads them once a process. Same code, same models: the library's TSV
must be the program's, byte for byte, on every kind of page the tests read (scans at their
resolution, 72 dpi page images enlarged by `prepare`, orientation detection on a page
upside down), so switching routes changes no output.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import scanmaker
from engines import real_engine
from PIL import Image

import indexer
from indexer import Options
from indexer.formats.ocr import capi, tesseract
from indexer.formats.ocr.prepare import prepare


def _program() -> tesseract.Tesseract:
    engine = real_engine(Options())
    assert isinstance(engine, tesseract.Tesseract)
    assert not engine.installed.binding
    return engine


def _pages(formats: Path) -> list[tuple[str, Image.Image, int]]:
    """(name, prepared page, dpi) of the shared scans at 200 dpi and as 72 dpi images."""
    import pypdfium2 as pdfium

    out = []
    for pdf in sorted((formats / "scans").glob("*.scan.pdf")):
        doc = pdfium.PdfDocument(pdf.read_bytes())
        for dpi in (72, 200):
            for n in range(len(doc)):
                grey = doc[n].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
                ready = prepare(grey, 0 if dpi == 72 else dpi, 40_000_000)
                assert ready is not None
                out.append((f"{pdf.name} p{n + 1} at {dpi}", ready.image, ready.dpi))
    return out


@pytest.mark.slow  # OCR engine runs
def test_the_library_writes_the_programs_tsv_byte_for_byte(formats: Path) -> None:
    engine = _program()
    folder = tesseract.tessdata(engine.installed)
    pages = _pages(formats)
    upside_down = scanmaker.page(2, dpi=200, angle=0.5, seed=2).transpose(
        Image.Transpose.ROTATE_180
    )
    pages.append(("made page upside down", upside_down, 200))
    for name, image, dpi in pages:
        for psm in (3, 1) if name.startswith("made") or "p1 at 72" in name else (3,):
            rows = capi.tsv(
                image, version=engine.installed.version, tessdata=folder,
                language="eng", psm=psm, dpi=dpi, timeout=60,
            )  # fmt: skip
            assert rows is not None, "libtesseract did not load: " + engine.installed.version
            assert rows.count("\n") > 20, name
            assert rows == engine.program_tsv(image, dpi, psm), (name, psm)


@pytest.mark.slow  # OCR engine runs
def test_the_default_engine_starts_no_program_for_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    _program()
    started: list[Any] = []
    run = subprocess.run

    def recorded(command: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(command)
        return run(command, *args, **kwargs)

    monkeypatch.setattr(tesseract.subprocess, "run", recorded)
    page = scanmaker.page(1, dpi=200, angle=0.3, seed=4)
    result = indexer.extract("page.png", scanmaker.png(page))
    assert result.status == "ok"
    assert scanmaker.word_f1(result.text, scanmaker.text_of(1)) >= 0.95
    assert [c for c in started if "stdin" in c] == []
