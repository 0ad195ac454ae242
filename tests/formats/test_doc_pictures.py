"""Word 97 documents made of objects: pictures (a scanned letter pasted into Word) read by OCR,
or failed with a reason that says so; an embedded Word document read as part `embedded`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import scanmaker
from engines import real_engine
from PIL import Image

import indexer
from indexer import Options
from indexer.formats.office.ole_samples import doc_file, picture
from indexer.formats.office.pictures import blips


def _scan() -> bytes:
    return scanmaker.png(scanmaker.page(2, dpi=200, angle=0.4, seed=3))


def test_a_document_of_one_scanned_picture_gives_the_text_ocr_reads_in_it() -> None:
    real_engine()
    result = indexer.extract("letter.doc", doc_file("\x01\r", data=picture(_scan())))
    assert result.status == "ok", result.error
    assert {(c.meta["picture"], c.meta["ocr"]) for c in result.chunks} == {(1, True)}
    assert result.metadata["pictures"] == 1
    assert result.metadata["ocr"]["pictures"] == ["1"]
    assert scanmaker.word_f1(result.text, scanmaker.text_of(2)) >= 0.9


def test_with_ocr_off_a_document_of_pictures_is_skipped_saying_so() -> None:
    data = doc_file("\x01\r\x0c\x01\r", data=picture(_scan()) + picture(_scan()[:-1] + b"!"))
    result = indexer.extract("letter.doc", data, options=Options(ocr_mode="off"))
    assert (result.status, result.error) == ("skipped", "no text: only pictures (2); OCR is off")
    assert result.metadata["pictures"] == 2


def test_a_document_whose_only_picture_is_a_metafile_says_ocr_cannot_read_it() -> None:
    data = doc_file("\x01\r", data=picture(b"\xd7\xcd\xc6\x9a" + b"\x00" * 60, "wmf"))
    result = indexer.extract("drawing.doc", data)
    assert result.error == "no text: only pictures (1), none in a format OCR reads"


def test_a_blank_document_without_pictures_is_empty_as_no_text() -> None:
    result = indexer.extract("blank.doc", doc_file("\r\r"))
    assert (result.status, result.error) == ("empty", "no text")
    assert "pictures" not in result.metadata


def test_a_document_with_text_keeps_its_text_and_leaves_its_pictures_unread() -> None:
    result = indexer.extract("memo.doc", doc_file("Lunch at noon\r\x01\r", data=picture(_scan())))
    assert [c.text for c in result.chunks] == ["Lunch at noon"]
    assert "ocr" not in result.metadata and "pictures" not in result.metadata


@pytest.mark.parametrize("kind", ["png", "jpeg", "dib"])
def test_raster_pictures_come_out_of_their_records_as_files_pillow_opens(kind: str) -> None:
    image = Image.new("RGB", (90, 40), (200, 10, 10))
    saved = io.BytesIO()
    image.save(saved, {"png": "PNG", "jpeg": "JPEG", "dib": "BMP"}[kind])
    file = saved.getvalue()[14:] if kind == "dib" else saved.getvalue()  # a DIB: no file header
    stream = b"\x00" * 100 + picture(file, kind) + b"\x1e\xf0 not a record"
    [found] = blips(stream)
    assert Image.open(io.BytesIO(found)).size == (90, 40)


def test_the_same_picture_stored_twice_is_read_once() -> None:
    scan = picture(_scan())
    assert len(list(blips(scan + scan))) == 1


def test_a_document_showing_only_an_embedded_word_document_gives_that_documents_text(
    formats: Path,
) -> None:
    result = indexer.extract("x.doc", (formats / "tika/testLargeOLEDoc.doc").read_bytes())
    assert result.status == "ok", result.error
    assert {c.meta.get("part") for c in result.chunks} == {"embedded"}
    assert result.chunks[0].text.startswith("This is an embedded file.This is an embedded")
