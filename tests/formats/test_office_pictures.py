"""Pictures placed in Word and PowerPoint files: the text OCR reads in them, where they sit.

Before, `tika/testOCR.docx` gave its paragraphs without "Happy New Year 2003!", which
is printed only in its picture, and a slide showing a screenshot gave its title alone.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
import scanmaker
from engines import Recorder, real_engine
from PIL import Image

import indexer
from indexer import Options
from indexer.formats.office.samples import pptx_file, text_shape, zip_package


@pytest.mark.slow  # OCR engine runs
def test_the_text_of_a_word_files_picture_follows_the_paragraph_that_shows_it(
    formats: Path,
) -> None:
    real_engine()
    result = indexer.extract("testOCR.docx", (formats / "tika/testOCR.docx").read_bytes())
    assert result.status == "ok", result.error
    texts = [c.text for c in result.chunks]
    assert texts.index("Here is an embedded image:") < texts.index("Happy New Year 2003!")
    ocr = result.metadata["ocr"]
    assert ocr["pictures"] == ["word/media/image1.png"]
    assert ocr["confidence"]["word/media/image1.png"] >= 85


@pytest.mark.slow  # OCR engine runs
def test_the_text_of_a_slides_picture_is_part_of_that_slide(formats: Path) -> None:
    real_engine()
    result = indexer.extract("test.pptx", (formats / "markitdown/test.pptx").read_bytes())
    [slide] = [c for c in result.chunks if "5bda1dd6" in c.text]
    assert "primary color of the square" in slide.text
    assert "ppt/media/image2.jpg" in result.metadata["ocr"]["pictures"]


def test_with_ocr_off_pictures_are_not_even_unpacked_and_the_output_is_as_before(
    formats: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder(reply="never").install(monkeypatch)
    for name in ("tika/testOCR.docx", "markitdown/test.pptx"):
        result = indexer.extract(name, (formats / name).read_bytes(), Options(ocr_mode="off"))
        assert "ocr" not in result.metadata and "never" not in result.text
    assert recorder.calls == []


def test_icons_and_bullets_too_small_to_hold_text_never_reach_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(reply="read").install(monkeypatch)
    icons = {
        "icon.png": _png(Image.new("L", (16, 16), 0)),
        "ball.png": _png(Image.new("L", (60, 60))),
    }
    result = indexer.extract("icons.pptx", _slide_with_pictures(icons))
    assert recorder.calls == [] and "ocr" not in result.metadata
    assert [c.text for c in result.chunks] == ["# Roadmap\n\nBody below"]


@pytest.mark.slow  # OCR engine runs
def test_a_slides_picture_is_read_in_its_place_among_the_slides_shapes() -> None:
    real_engine()
    scan = scanmaker.png(scanmaker.page(2, dpi=200, angle=0.3, seed=3))
    result = indexer.extract("deck.pptx", _slide_with_pictures({"scan.png": scan}))
    [slide] = result.chunks
    assert slide.text.startswith("# Roadmap\n\nCustomer Letter") and slide.text.endswith(
        "Body below"
    )
    assert scanmaker.word_f1(slide.text, scanmaker.text_of(2)) >= 0.9


def test_a_picture_read_under_the_confidence_threshold_gives_no_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Recorder(reply="Na); SS) Vy", confidence=26.4).install(monkeypatch)
    scan = scanmaker.png(scanmaker.page(2, dpi=200, angle=0.3, seed=3))
    result = indexer.extract("deck.pptx", _slide_with_pictures({"photo.png": scan}))
    assert [c.text for c in result.chunks] == ["# Roadmap\n\nBody below"]
    ocr = result.metadata["ocr"]
    assert (ocr["pictures"], ocr["low_confidence"]) == ([], ["ppt/media/photo.png"])
    assert ocr["confidence"] == {"ppt/media/photo.png": 26.4}


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _slide_with_pictures(pictures: dict[str, bytes]) -> bytes:
    """A one-slide deck: a title, then each picture at y=500, then a text shape at y=900."""
    pics = "".join(
        f'<p:pic><p:nvPicPr><p:cNvPr id="{n}" name="p"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>'
        f'<p:blipFill><a:blip r:embed="rIdP{n}"/></p:blipFill>'
        f'<p:spPr><a:xfrm><a:off x="{n}" y="500"/></a:xfrm></p:spPr></p:pic>'
        for n in range(len(pictures))
    )
    deck = pptx_file([text_shape("Body below", y=900) + pics + text_shape("Roadmap", "title", 100)])
    rels = "".join(
        f'<Relationship Id="rIdP{n}" Type="{_IMAGE}" Target="../media/{name}"/>'
        for n, name in enumerate(pictures)
    )
    with zipfile.ZipFile(io.BytesIO(deck)) as package:
        parts: dict[str, bytes | str] = {name: package.read(name) for name in package.namelist()}
    parts["ppt/slides/_rels/slide1.xml.rels"] = (
        f'<Relationships xmlns="{_RELS}">{rels}</Relationships>'
    )
    parts.update({f"ppt/media/{name}": data for name, data in pictures.items()})
    return zip_package(parts)


_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"


def test_pictures_past_the_page_cap_are_not_read_and_the_document_says_so(
    formats: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder(reply="picture text").install(monkeypatch)
    data = (formats / "markitdown/test.pptx").read_bytes()
    result = indexer.extract("test.pptx", data, Options(ocr_max_pages=1))
    assert len(recorder.calls) == 1 and result.status == "degraded"
    assert (result.metadata["ocr"]["max_pages"], result.metadata["ocr"]["not_read"]) == (1, 1)
