"""The two ways of running Tesseract (`ocr_engine`): its program, and its library in the
worker through the tesserocr binding; and the rule that reads a page with orientation
detection only when the plain reading was doubtful.

Orientation detection (`--psm 1`) costs about as much as reading an upright page, so a
page is read with `--psm 3` first and read again with detection only when its
words read under `LOW_CONFIDENCE`: an upright page costs one reading, as does a photograph
(no word at all), a page upside down two, and it comes out right side up.
"""

from __future__ import annotations

from typing import Any

import pytest
import scanmaker
from engines import real_engine
from PIL import Image

import indexer
from indexer import Options
from indexer.formats.ocr import binding, tesseract
from indexer.reasons import code_of

ENGINES = ("tesseract", "tesserocr")


def _record(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The page segmentation of every reading the engine makes, in order."""
    seen: list[int] = []
    read = tesseract.Tesseract._tsv

    def recorded(self: tesseract.Tesseract, image: Any, dpi: int, psm: int) -> str:
        seen.append(psm)
        return read(self, image, dpi, psm)

    monkeypatch.setattr(tesseract.Tesseract, "_tsv", recorded)
    return seen


@pytest.mark.slow  # OCR engine runs
@pytest.mark.parametrize("engine", ENGINES)
def test_an_upright_page_is_read_once_and_one_upside_down_twice_right_side_up(
    monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    options = Options(ocr_engine=engine)
    real_engine(options)
    seen = _record(monkeypatch)
    page = scanmaker.page(1, dpi=200, angle=0.3, seed=4)
    upright = indexer.extract("page.png", scanmaker.png(page), options)
    assert scanmaker.word_f1(upright.text, scanmaker.text_of(1)) >= 0.95
    assert seen == [3]
    seen.clear()
    turned = page.transpose(Image.Transpose.ROTATE_180)
    turned.info["dpi"] = page.info["dpi"]
    result = indexer.extract("turned.png", scanmaker.png(turned), options)
    assert scanmaker.word_f1(result.text, scanmaker.text_of(1)) >= 0.90
    assert seen == [3, 1]
    assert result.metadata["ocr"]["confidence"]["1"] >= 85


@pytest.mark.slow  # OCR engine runs
def test_a_picture_without_a_word_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A photograph (here: discs of grey on a gradient) gives the engine no word, turned
    or not: orientation detection would only double its cost."""
    import io
    import random

    from PIL import ImageDraw

    real_engine()
    seen = _record(monkeypatch)
    rng = random.Random(3)
    photo = Image.linear_gradient("L").resize((900, 700)).convert("RGB")
    draw = ImageDraw.Draw(photo)
    for _ in range(12):
        x, y, r = rng.randrange(900), rng.randrange(700), rng.randrange(60, 220)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(rng.randrange(256),) * 3)
    buffer = io.BytesIO()
    photo.save(buffer, format="JPEG", quality=85)
    result = indexer.extract("photo.jpg", buffer.getvalue())
    assert (result.status, result.error) == ("empty", "no text found by OCR")
    assert seen == [3]


@pytest.mark.slow  # OCR engine runs
def test_the_library_reads_what_the_program_reads() -> None:
    program = real_engine(Options(ocr_engine="tesseract"))
    library = real_engine(Options(ocr_engine="tesserocr"))
    assert library.label == f"tesseract {binding.version()}"
    for number in (1, 2):
        data = scanmaker.jpeg(scanmaker.page(number, dpi=200, angle=-0.5, seed=number))
        read = {
            engine.label: indexer.extract("scan.jpg", data, Options(ocr_engine=name))
            for name, engine in (("tesseract", program), ("tesserocr", library))
        }
        scores = [scanmaker.word_f1(r.text, scanmaker.text_of(number)) for r in read.values()]
        assert min(scores) >= 0.95, scores
        assert [r.metadata["ocr"]["engine"] for r in read.values()] == list(read)


def test_without_the_binding_the_library_engine_skips_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(binding, "version", lambda: None)
    tesseract.library.cache_clear()
    try:
        data = scanmaker.png(scanmaker.page(1, dpi=200, angle=0, seed=1))
        result = indexer.extract("scan.png", data, Options(ocr_engine="tesserocr"))
    finally:
        tesseract.library.cache_clear()
    assert result.status == "skipped" and result.skipped is not None
    assert code_of(result.skipped) == "ocr_not_installed"
    assert "pip install tesserocr" in result.skipped
