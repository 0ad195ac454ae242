"""Page images at any resolution, photos of pages, pages turned over: read by the real engine.

The shared scans are rendered here at screen resolutions (72, 96 and 150 dpi) as PNG, JPEG
and multi-page TIFF; a phone's photo of a page is a scan tilted, lit from one side and
saved as a JPEG. Before text lines were measured and enlarged, a 72 dpi page read at word
F1 0.03-0.6, a photo lit from one side at 0.2-0.5, a page upside down at 0.05.
"""

from __future__ import annotations

import io
import statistics
from pathlib import Path

import pytest
import scanmaker
from engines import Recorder, real_engine
from PIL import Image, ImageChops

import indexer
from indexer.formats.ocr import prepare

_SCANS = ("RECEIPT-2024-TXN-98765_retail_purchase", "masterformat_partial_numbering")
_JPEG = "movie-theater-booking-2024"
_TIFF = "SPARSE-2024-INV-1234_borderless_table"


def _render(formats: Path, name: str, dpi: int) -> tuple[list[Image.Image], str]:
    import pypdfium2 as pdfium

    scans = formats / "scans"
    doc = pdfium.PdfDocument((scans / f"{name}.scan.pdf").read_bytes())
    pages = [doc[n].render(scale=dpi / 72, grayscale=True).to_pil() for n in range(len(doc))]
    return pages, (scans / f"{name}.scan.txt").read_text(encoding="utf-8")


def _saved(pages: list[Image.Image], kind: str, dpi: int) -> bytes:
    buffer = io.BytesIO()
    first, *rest = pages
    extra = {"save_all": True, "append_images": rest} if kind == "TIFF" else {}
    first.save(buffer, format=kind, dpi=(dpi, dpi), quality=80, **extra)
    return buffer.getvalue()


@pytest.mark.slow  # OCR engine runs
@pytest.mark.parametrize("dpi", [72, 96, 150])
def test_the_shared_scans_as_page_images_at_screen_resolutions_read_above_the_bar(
    formats: Path, dpi: int
) -> None:
    real_engine()
    cases = [(name, "PNG") for name in _SCANS] + [(_JPEG, "JPEG"), (_TIFF, "TIFF")]
    scores = {}
    for name, kind in cases:
        pages, truth = _render(formats, name, dpi)
        result = indexer.extract(f"{name}.{kind.lower()}", _saved(pages, kind, dpi))
        assert result.status == "ok", (name, result.skipped, result.error)
        assert result.metadata["ocr"]["pages"] == list(range(1, len(pages) + 1))
        scores[f"{name} {kind}"] = scanmaker.word_f1(result.text, truth)
    assert statistics.mean(scores.values()) >= 0.90, scores
    assert min(scores.values()) >= 0.70, scores


def _photo(number: int, width: int, angle: float, shade: int) -> bytes:
    """A phone's photo of page `number`: `width` px across, tilted, darker by `shade`
    grey levels at its left edge, a JPEG at quality 60 without a resolution."""
    page = scanmaker.page(number, dpi=200, angle=angle, seed=number)
    small = page.resize((width, round(page.height * width / page.width)), Image.Resampling.LANCZOS)
    light = Image.linear_gradient("L").rotate(90).resize(small.size)
    lit = Image.eval(light, lambda v: round(255 - shade + v * shade / 255))
    buffer = io.BytesIO()
    ImageChops.multiply(small, lit).convert("RGB").save(buffer, format="JPEG", quality=60)
    return buffer.getvalue()


@pytest.mark.slow  # OCR engine runs
def test_photos_of_pages_tilted_lit_from_one_side_and_compressed_read_above_the_bar() -> None:
    real_engine()
    scores = []
    for number, width, angle, shade in ((1, 1000, 2.0, 110), (2, 700, -1.5, 90), (2, 1400, 3, 130)):
        result = indexer.extract("photo.jpg", _photo(number, width, angle, shade))
        scores.append(scanmaker.word_f1(result.text, scanmaker.text_of(number)))
    assert min(scores) >= 0.90, scores


@pytest.mark.slow  # OCR engine runs
@pytest.mark.parametrize("turn", [Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_180])
def test_a_page_scanned_sideways_or_upside_down_is_read_right_side_up(
    turn: Image.Transpose,
) -> None:
    real_engine()
    page = scanmaker.page(1, dpi=200, angle=0.3, seed=4)
    turned = page.transpose(turn)
    turned.info["dpi"] = page.info["dpi"]
    result = indexer.extract("turned.png", scanmaker.png(turned))
    assert scanmaker.word_f1(result.text, scanmaker.text_of(1)) >= 0.90


@pytest.mark.slow  # OCR engine runs
def test_each_page_carries_the_engines_confidence_and_a_page_of_noise_is_flagged() -> None:
    real_engine()
    clean = scanmaker.page(1, dpi=200, angle=0.4, seed=2)
    result = indexer.extract("two.tif", scanmaker.tiff([clean, _noise(clean.size)]))
    confidence = result.metadata["ocr"]["confidence"]
    assert confidence["1"] >= 85, confidence
    page_one = [c.meta for c in result.chunks if c.meta["page"] == 1]
    assert page_one and all(m["ocr_confidence"] == confidence["1"] for m in page_one)
    assert not any(m.get("low_confidence") for m in page_one)
    flagged = [c.meta for c in result.chunks if c.meta["page"] == 2]
    assert all(m["low_confidence"] is True for m in flagged)
    assert 1 not in result.metadata["ocr"].get("low_confidence", [])


def _noise(size: tuple[int, int]) -> Image.Image:
    """Blotches and scratches a model may take for letters, with none in them."""
    import random

    from PIL import ImageDraw

    rng = random.Random(7)
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for _ in range(400):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        draw.line((x, y, x + rng.randrange(-30, 30), y + rng.randrange(-30, 30)), fill=30, width=3)
    image.info["dpi"] = (200, 200)
    return image


def test_text_lines_are_measured_in_proportion_to_the_resolution() -> None:
    heights = {
        dpi: prepare.measure(scanmaker.page(1, dpi=dpi, angle=0.5, seed=1)).line_height
        for dpi in (72, 150, 300)
    }
    assert 5 <= heights[72] <= 10, heights
    assert 1.8 <= heights[150] / heights[72] <= 2.4, heights
    assert 1.8 <= heights[300] / heights[150] <= 2.2, heights


def test_a_small_page_image_is_enlarged_before_the_engine_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="text").install(monkeypatch)
    page = scanmaker.page(1, dpi=72, angle=0.0, seed=1)
    indexer.extract("screenshot.png", scanmaker.png(page))
    [(size, dpi)] = recorder.calls
    assert size[0] >= 2.4 * page.width and dpi == 0  # 72 dpi is a screen's: not passed on


def test_blank_and_evenly_grey_images_never_reach_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="text").install(monkeypatch)
    grey = Image.effect_noise((800, 600), 4).point(lambda v: 200 + v // 32)  # a grey JPEG's grain
    for name, image in (("white.png", Image.new("L", (800, 600), 255)), ("grey.jpg", grey)):
        buffer = io.BytesIO()
        image.save(buffer, format="PNG" if name.endswith("png") else "JPEG")
        result = indexer.extract(name, buffer.getvalue())
        assert (result.status, result.error) == ("empty", "no text found by OCR"), name
        assert result.metadata["ocr"]["blank"] == [1]
    assert recorder.calls == []
