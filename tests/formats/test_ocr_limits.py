"""`ocr_max_pages`: a long scan keeps the pages read within the cap and says what it left.

Before the cap a 10,000-page TIFF or a 5,000-page PDF of blank scans was OCR'd page after
page until the file's timeout, and nothing of it was kept.
"""

from __future__ import annotations

import pytest
import scanmaker
from engines import Recorder, real_engine
from PIL import Image

import indexer
from indexer import Options

_PAGES = 320


def _inked_pages(count: int) -> list[Image.Image]:
    page = scanmaker.inked((400, 120))
    page.info["dpi"] = (200, 200)
    return [page] * count


def test_a_tiff_past_the_cap_keeps_the_pages_read_and_is_degraded_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="Ink on the page").install(monkeypatch)
    result = indexer.extract(
        "fax.tif", scanmaker.tiff(_inked_pages(_PAGES)), Options(ocr_max_pages=5)
    )
    assert len(recorder.calls) == 5
    assert result.status == "degraded"
    assert sorted({c.meta["page"] for c in result.chunks}) == [1, 2, 3, 4, 5]
    assert result.metadata["pages"] == _PAGES
    ocr = result.metadata["ocr"]
    assert (ocr["pages"], ocr["max_pages"], ocr["not_read"]) == ([1, 2, 3, 4, 5], 5, _PAGES - 5)
    left = _PAGES - 5
    assert result.metadata["notes"] == [
        f"OCR read 5 of the {_PAGES} pages that needed it (ocr_max_pages = 5); {left} not read"
    ]


def test_a_pdf_of_blank_scans_renders_only_the_capped_pages_and_sends_none_to_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="text").install(monkeypatch)
    blank = Image.new("L", (170, 220), 255)
    blank.info["dpi"] = (20, 20)
    result = indexer.extract(
        "blank.pdf", scanmaker.scan_pdf([blank] * _PAGES), Options(ocr_max_pages=8)
    )
    assert recorder.calls == []
    assert (result.status, result.error) == (
        "empty",
        "no text layer (OCR found no text in the first 8 pages it read)",
    )
    ocr = result.metadata["ocr"]
    assert (ocr["blank"], ocr["not_read"]) == (list(range(1, 9)), _PAGES - 8)


def test_a_pdf_of_scans_past_the_cap_is_degraded_with_the_pages_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="read").install(monkeypatch)
    pages = _inked_pages(_PAGES)
    result = indexer.extract("long.pdf", scanmaker.scan_pdf(pages), Options(ocr_max_pages=4))
    assert len(recorder.calls) == 4 and result.status == "degraded"
    assert [c.meta["page"] for c in result.chunks] == [1, 2, 3, 4]
    assert result.metadata["ocr"]["not_read"] == _PAGES - 4
    assert "ocr_max_pages = 4" in result.metadata["notes"][0]


def test_a_document_within_the_cap_is_not_degraded(monkeypatch: pytest.MonkeyPatch) -> None:
    Recorder(reply="read").install(monkeypatch)
    result = indexer.extract("two.tif", scanmaker.tiff(_inked_pages(2)), Options(ocr_max_pages=2))
    assert result.status == "ok"
    assert "max_pages" not in result.metadata["ocr"] and "notes" not in result.metadata


@pytest.mark.slow  # OCR engine runs
def test_the_real_engine_reads_the_capped_pages_of_a_long_tiff() -> None:
    real_engine()
    result = indexer.extract(
        "fax.tif", scanmaker.tiff(_inked_pages(_PAGES)), Options(ocr_max_pages=3)
    )
    assert result.status == "degraded"
    assert {line for c in result.chunks for line in c.text.splitlines()} == {"Ink on the page"}
    assert result.metadata["ocr"]["pages"] == [1, 2, 3]
