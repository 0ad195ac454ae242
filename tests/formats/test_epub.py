"""EPUB books: the spine's documents in order through the html kind, chapter by chapter."""

from __future__ import annotations

from pathlib import Path

import indexer
from indexer.formats.office.samples import epub_file, zip_package

_ENCRYPTION = (
    '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
    'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
    '<enc:EncryptionMethod Algorithm="{algorithm}"/><enc:CipherData>'
    '<enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>'
)


def _with(book: bytes, name: str, body: str) -> bytes:
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(book)) as archive:
        parts: dict[str, bytes | str] = {n: archive.read(n) for n in archive.namelist()}
    parts[name] = body
    return zip_package(parts)


def test_chapters_come_in_spine_order_with_their_heading_paths(formats: Path) -> None:
    rel = "tika/testEPUB.epub"
    # OCR off: the cover's text is test_office_picture_ocr's
    result = indexer.extract(rel, (formats / rel).read_bytes(), indexer.Options(ocr_mode="off"))
    assert result.kind == "epub" and result.status == "ok"
    assert result.metadata == {
        "title": "An ePub for Tika",
        "author": "Bart Hanssens",
        "created": "2009-10-07",
        "description": "This is an ePub test publication for Tika.",
        "chapters": 4,
    }
    chapter_one = [c.text for c in result.chunks if c.meta["chapter"] == 3]
    assert chapter_one[:2] == ["# Chapter 1", "This is the text for chapter One"]
    sub = next(c for c in result.chunks if c.text == "## Subchapter 2.2")
    assert sub.meta == {"chapter": 4, "headings": ["Chapter 2", "Subchapter 2.2"]}
    assert result.chunks[-1].text == "| Table header | Table data |\n| --- | --- |"


def test_a_drm_encrypted_chapter_fails_the_book_as_encrypted() -> None:
    book = epub_file(["<p>one</p>"])
    drm = _ENCRYPTION.format(
        algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc", uri="OEBPS/c0.xhtml"
    )
    result = indexer.extract("x.epub", _with(book, "META-INF/encryption.xml", drm))
    assert (result.status, result.error) == ("failed", "encrypted")


def test_obfuscated_fonts_are_not_encryption() -> None:
    book = epub_file(["<p>one</p>"])
    fonts = _ENCRYPTION.format(algorithm="http://www.idpf.org/2008/embedding", uri="OEBPS/font.otf")
    result = indexer.extract("x.epub", _with(book, "META-INF/encryption.xml", fonts))
    assert (result.status, [c.text for c in result.chunks]) == ("ok", ["one"])


def test_a_missing_spine_document_is_passed_over_and_marked_degraded() -> None:
    book = epub_file(["<p>kept</p>", "<p>lost</p>"])
    opf = (
        '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
        '<item id="a" href="c0.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="b" href="gone.xhtml" media-type="application/xhtml+xml"/>'
        '</manifest><spine><itemref idref="b"/><itemref idref="a"/></spine></package>'
    )
    result = indexer.extract("x.epub", _with(book, "OEBPS/book.opf", opf))
    assert result.status == "degraded"
    assert [(c.text, c.meta) for c in result.chunks] == [("kept", {"chapter": 2, "headings": []})]
    assert result.metadata["notes"] == ["spine entry 1 passed over: OEBPS/gone.xhtml is missing"]


def test_a_spine_entry_missing_from_the_manifest_is_passed_over_with_a_note() -> None:
    """It used to raise `KeyError` and fail the whole book."""
    book = epub_file(["<p>kept</p>", "<p>also kept</p>"])
    opf = (
        '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
        '<item id="a" href="c0.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="b" href="c1.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="p" href="c0.xhtml" media-type="image/png"/>'
        '</manifest><spine><itemref idref="a"/><itemref idref="nowhere"/>'
        '<itemref idref="p"/><itemref idref="b"/></spine></package>'
    )
    result = indexer.extract("x.epub", _with(book, "OEBPS/book.opf", opf))
    assert result.status == "degraded"
    assert [(c.text, c.meta["chapter"]) for c in result.chunks] == [("kept", 1), ("also kept", 4)]
    assert result.metadata == {
        "chapters": 4,
        "notes": [
            "spine entry 2 passed over: idref 'nowhere' is not in the manifest",
            "spine entry 3 passed over: OEBPS/c0.xhtml is image/png, not (X)HTML",
        ],
    }
