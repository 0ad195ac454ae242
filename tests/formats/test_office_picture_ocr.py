"""Pictures in workbooks, OpenDocument files and e-books read by OCR as Word's and
PowerPoint's are; one page cap per document, counting pages (a TIFF's each), for every
office format, the Word 97 one included."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
import scanmaker
from engines import Recorder, real_engine

import indexer
from indexer import Options
from indexer.formats.office.ole_samples import doc_file, picture
from indexer.formats.office.samples import docx_file, epub_file, odf_file, zip_package

_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"


def _scan(seed: int = 3) -> bytes:
    return scanmaker.png(scanmaker.page(2, dpi=100, angle=0.3, seed=seed))


def _with(data: bytes, parts: dict[str, bytes | str]) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        old: dict[str, bytes | str] = {n: archive.read(n) for n in archive.namelist()}
    return zip_package({**old, **parts})


def _frame(part: str) -> str:
    return f'<draw:frame><draw:image xlink:href="{part}"/></draw:frame>'


def test_an_open_document_texts_picture_follows_the_paragraph_that_shows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="Text in the picture").install(monkeypatch)
    body = f"<text:p>Before.{_frame('Pictures/scan.png')}</text:p><text:p>After.</text:p>"
    odt = _with(odf_file("text", body), {"Pictures/scan.png": _scan()})
    result = indexer.extract("a.odt", odt)
    assert [c.text for c in result.chunks] == ["Before.", "Text in the picture", "After."]
    assert result.metadata["ocr"]["pictures"] == ["Pictures/scan.png"]
    assert len(recorder.calls) == 1


def test_an_open_document_slides_picture_is_part_of_that_slide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Recorder(reply="Chart legend").install(monkeypatch)
    page = (
        '<draw:page><draw:frame presentation:class="title" svg:y="1cm"><draw:text-box>'
        "<text:p>Plan</text:p></draw:text-box></draw:frame>"
        '<draw:frame svg:y="5cm"><draw:image xlink:href="Pictures/p.png"/></draw:frame>'
        "</draw:page>"
    )
    odp = _with(odf_file("presentation", page), {"Pictures/p.png": _scan()})
    result = indexer.extract("a.odp", odp)
    assert [(c.text, c.meta["slide"]) for c in result.chunks] == [("# Plan\n\nChart legend", 1)]


def test_an_e_books_pictures_follow_their_chapter_flagged_as_ocr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chapter's picture text is a chunk of its own, so a poor reading stays, flagged."""
    Recorder(reply="Cover words", confidence=41.0).install(monkeypatch)
    book = epub_file(['<p>Chapter text.</p><img src="images/cover.png" alt=""/>'])
    book = _with(book, {"OEBPS/images/cover.png": _scan()})
    result = indexer.extract("b.epub", book)
    assert [c.text for c in result.chunks] == ["Chapter text.", "Cover words"]
    meta = result.chunks[1].meta
    assert (meta["chapter"], meta["part"], meta["picture"], meta["low_confidence"]) == (
        1, "picture", 1, True,
    )  # fmt: skip
    assert result.metadata["ocr"]["low_confidence"] == ["OEBPS/images/cover.png"]


def test_a_workbooks_picture_is_read_with_its_sheet(
    formats: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Recorder(reply="Logo words").install(monkeypatch)
    result = indexer.extract("w.xlsx", (formats / "tika/testEXCEL_1img.xlsx").read_bytes())
    [pictured] = [c for c in result.chunks if c.meta.get("ocr")]
    assert (pictured.text, pictured.meta["sheet"], pictured.meta["picture"]) == (
        "Logo words", "Sheet1", 1,
    )  # fmt: skip
    assert result.metadata["ocr"]["pictures"] == ["xl/media/image1.png"]
    off = indexer.extract(
        "w.xlsx", (formats / "tika/testEXCEL_1img.xlsx").read_bytes(), Options(ocr_mode="off")
    )
    assert "ocr" not in off.metadata and len(off.chunks) == len(result.chunks) - 1


def test_the_cap_counts_pages_so_a_tiff_uses_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two pages of a three-page TIFF reach the cap of 2: the PNG after it is not read."""
    recorder = Recorder(reply="page words").install(monkeypatch)
    pages = [scanmaker.page(2, dpi=100, angle=0.3, seed=s) for s in (1, 2, 3)]
    draw = (
        '<w:p><w:r><w:drawing><a:blip xmlns:a="http://schemas.openxmlformats.org/drawingml/'
        '2006/main" r:embed="rId{n}"/></w:drawing></w:r></w:p>'
    )
    rels = (
        f'<Relationships xmlns="{_RELS}">'
        f'<Relationship Id="rId9" Type="{_IMAGE}" Target="media/scan.tif"/>'
        f'<Relationship Id="rId8" Type="{_IMAGE}" Target="media/last.png"/></Relationships>'
    )
    doc = docx_file(
        "<w:p><w:r><w:t>Scans.</w:t></w:r></w:p>" + draw.format(n=9) + draw.format(n=8),
        extra={
            "word/_rels/document.xml.rels": rels,
            "word/media/scan.tif": scanmaker.tiff(pages),
            "word/media/last.png": _scan(5),
        },
    )
    result = indexer.extract("s.docx", doc, Options(ocr_max_pages=2))
    assert len(recorder.calls) == 2
    assert result.status == "degraded"
    ocr = result.metadata["ocr"]
    assert (ocr["max_pages"], ocr["not_read"]) == (2, 2)  # the TIFF cut short, the PNG unread


def test_a_word_97_file_of_pictures_keeps_the_cap_and_flags_poor_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="scanned words", confidence=30.0).install(monkeypatch)
    pictures = b"".join(picture(_scan(seed)) for seed in (1, 2, 3))
    data = doc_file("\x01\r\x01\r\x01\r", data=pictures)
    result = indexer.extract("letter.doc", data, Options(ocr_max_pages=2))
    assert len(recorder.calls) == 2 and result.status == "degraded"
    assert [(c.meta["picture"], c.meta["low_confidence"]) for c in result.chunks] == [
        (1, True), (2, True),
    ]  # fmt: skip
    ocr = result.metadata["ocr"]
    assert (ocr["low_confidence"], ocr["not_read"], ocr["max_pages"]) == (["1", "2"], 1, 2)


@pytest.mark.slow  # OCR engine runs
def test_an_e_books_cover_is_read_by_the_real_engine(formats: Path) -> None:
    real_engine()
    result = indexer.extract("t.epub", (formats / "tika/testEPUB.epub").read_bytes())
    read = " ".join(c.text for c in result.chunks if c.meta.get("ocr"))
    assert "ePub" in read and "Tika" in read
    assert result.metadata["ocr"]["pictures"] == ["OPS/CoverDesign.jpg"]
