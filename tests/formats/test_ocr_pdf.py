"""Scanned PDF pages: which pages reach the engine, at what resolution, and what comes out."""

from __future__ import annotations

import pytest
import scanmaker
from engines import Recorder, real_engine
from PIL import Image

import indexer
from indexer import Options
from indexer._samples import minimal_pdf
from indexer._types import Chunk
from indexer.formats.ocr import tesseract

TEXT_PAGES = [["Page one has a text layer."], ["So does page two."], ["And page three."]]


@pytest.mark.slow  # OCR engine runs
def test_an_image_only_pdf_is_read_by_ocr_with_its_pages_marked() -> None:
    engine = real_engine()
    data = scanmaker.scan_pdf([scanmaker.page(n, dpi=200, angle=0.6, seed=n) for n in (1, 2)])
    result = indexer.extract("scan.pdf", data)
    assert result.status == "ok"
    ocr = result.metadata["ocr"]
    assert (ocr["engine"], ocr["pages"], sorted(ocr["confidence"])) == (
        engine.label,
        [1, 2],
        ["1", "2"],
    )
    assert min(ocr["confidence"].values()) >= 85 and "low_confidence" not in ocr
    assert {(c.meta["page"], c.meta["ocr"]) for c in result.chunks} == {(1, True), (2, True)}
    assert {c.meta["ocr_confidence"] for c in result.chunks} == set(ocr["confidence"].values())
    for number in (1, 2):
        text = "\n\n".join(c.text for c in result.chunks if c.meta["page"] == number)
        assert scanmaker.word_f1(text, scanmaker.text_of(number)) >= 0.93


@pytest.mark.slow  # OCR engine runs
def test_a_mixed_pdf_ocrs_exactly_its_scanned_page(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(real=real_engine()).install(monkeypatch)
    scan = scanmaker.scan_pdf([scanmaker.page(2, dpi=200, angle=-0.5, seed=4)])
    data = scanmaker.mixed_pdf(minimal_pdf(TEXT_PAGES), scan, at=2)
    result = indexer.extract("mixed.pdf", data)
    assert len(recorder.calls) == 1
    assert result.metadata["pages"] == 4 and result.metadata["ocr"]["pages"] == [2]
    pages = [c.meta["page"] for c in result.chunks]
    assert pages == sorted(pages) and set(pages) == {1, 2, 3, 4}
    assert [c.text for c in result.chunks if c.meta["page"] != 2] == [
        "Page one has a text layer.",
        "So does page two.",
        "And page three.",
    ]
    assert {c.meta.get("ocr", False) for c in result.chunks if c.meta["page"] != 2} == {False}
    scanned = "\n\n".join(c.text for c in result.chunks if c.meta["page"] == 2)
    assert scanmaker.word_f1(scanned, scanmaker.text_of(2)) >= 0.93


@pytest.mark.parametrize(
    ("case", "box", "text", "routed"),
    [
        ("no text over a full-page scan", (0, 0, 612, 792), "", True),
        ("a page number over a full-page scan", (0, 0, 612, 792), "Page 7 of 9", True),
        ("no text over a photo on a tenth of the page", (100, 500, 240, 200), "", True),
        ("no text, a logo on a hundredth of the page", (40, 700, 80, 50), "", False),
        ("a sentence over a full-page background", (0, 0, 612, 792), "x" * 24, False),
        ("a page number over a third of the page", (0, 400, 612, 264), "Page 7 of 9", False),
    ],
)
def test_a_page_is_ocrd_only_when_its_text_layer_is_unusable(
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    box: tuple[float, float, float, float],
    text: str,
    routed: bool,
) -> None:
    recorder = Recorder(reply="read by OCR").install(monkeypatch)
    image = scanmaker.inked((400, 300))
    result = indexer.extract("page.pdf", scanmaker.pdf_with_image(image, box, text))
    assert len(recorder.calls) == (1 if routed else 0), case
    assert (result.text == "read by OCR") is routed, case


@pytest.mark.parametrize(
    ("scan_dpi", "ocr_dpi", "read_at"),
    [(200, 300, 200), (240, 300, 240), (150, 300, 300), (600, 300, 300), (300, 200, 200)],
)
def test_a_scan_is_read_at_its_own_resolution_from_200_dpi_up_to_ocr_dpi(
    monkeypatch: pytest.MonkeyPatch, scan_dpi: int, ocr_dpi: int, read_at: int
) -> None:
    recorder = Recorder(reply="text").install(monkeypatch)
    image = scanmaker.inked((round(8.5 * scan_dpi), round(11 * scan_dpi)))
    indexer.extract("s.pdf", scanmaker.pdf_with_image(image, (0, 0, 612, 792)), _dpi(ocr_dpi))
    ((size, dpi),) = recorder.calls
    assert dpi == read_at
    width, height = size  # pdfium rounds a page's pixels up
    assert (round(width / 8.5), round(height / 11)) == (read_at, read_at)


def test_force_reads_every_page_and_off_reads_none(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(reply="forced").install(monkeypatch)
    forced = indexer.extract("t.pdf", minimal_pdf(TEXT_PAGES), Options(ocr_mode="force"))
    assert len(recorder.calls) == 3 and forced.metadata["ocr"]["pages"] == [1, 2, 3]
    assert [c.text for c in forced.chunks] == ["forced"] * 3
    scan = scanmaker.pdf_with_image(Image.new("L", (850, 1100), 255), (0, 0, 612, 792))
    off = indexer.extract("s.pdf", scan, Options(ocr_mode="off"))
    assert len(recorder.calls) == 3  # a scan with OCR off is passed over, not a failure
    assert (off.status, off.error) == ("skipped", "ocr_off: no text layer")
    assert off.chunks == (Chunk(text="[pdf extraction failed: ocr_off: no text layer]"),)


def test_without_an_engine_a_scan_says_so_and_a_mixed_pdf_keeps_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tesseract, "installed", lambda: None)
    scan = scanmaker.pdf_with_image(Image.new("L", (850, 1100), 255), (0, 0, 612, 792))
    alone = indexer.extract("scan.pdf", scan)
    assert (alone.status, alone.error) == ("skipped", "no text layer (OCR not installed)")
    assert alone.chunks[0].text == "[pdf extraction failed: no text layer (OCR not installed)]"
    mixed = indexer.extract("mixed.pdf", scanmaker.mixed_pdf(minimal_pdf(TEXT_PAGES), scan, at=3))
    assert mixed.status == "ok" and len(mixed.chunks) == 3
    assert mixed.metadata["ocr"] == {"engine": None, "pages": [], "unread": [3]}


def test_a_page_the_engine_fails_on_degrades_the_document_and_names_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scan = scanmaker.pdf_with_image(scanmaker.inked((850, 1100)), (0, 0, 612, 792))
    two = scanmaker.mixed_pdf(scan, scan, at=2)
    Recorder(reply="page text", fail={2: "OCR timeout after 60 s"}).install(monkeypatch)
    partly = indexer.extract("two.pdf", two)
    assert (partly.status, partly.metadata["failed_pages"]) == ("degraded", [2])
    assert partly.metadata["ocr"] == {
        "engine": "recorder",
        "pages": [1],
        "confidence": {"1": 90.0},
        "failed": [2],
    }
    Recorder(fail={1: "OCR engine killed by signal 9"}).install(monkeypatch)
    wholly = indexer.extract("one.pdf", scan)
    assert wholly.error == "no text layer (OCR failed: OCR engine killed by signal 9)"


@pytest.mark.slow  # OCR engine runs
def test_a_scan_in_which_ocr_finds_nothing_is_empty_with_that_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(real=real_engine()).install(monkeypatch)
    scan = scanmaker.pdf_with_image(Image.new("L", (850, 1100), 255), (0, 0, 612, 792))
    result = indexer.extract("blank.pdf", scan)
    assert (result.status, result.error) == ("empty", "no text layer (OCR found no text)")
    assert result.metadata["ocr"]["blank"] == [1]
    assert recorder.calls == []  # a blank page never reaches the engine


def _dpi(ocr_dpi: int) -> Options:
    return Options(ocr_dpi=ocr_dpi)
