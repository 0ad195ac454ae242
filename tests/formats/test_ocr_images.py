"""Images as documents: scans made here from known text, read by the real engine."""

from __future__ import annotations

import io
import statistics

import pytest
import scanmaker
from engines import Recorder, real_engine
from PIL import Image, ImageDraw, ImageFont

import indexer
from indexer import Options
from indexer.formats.ocr import tesseract


@pytest.mark.slow  # OCR engine runs
def test_png_jpeg_and_multi_page_tiff_scans_read_at_word_f1_above_the_bar() -> None:
    real_engine()
    cases = {
        "scan.png": (scanmaker.png(scanmaker.page(1, dpi=300, angle=0.7, seed=1)), [1]),
        "scan.jpg": (scanmaker.jpeg(scanmaker.page(2, dpi=200, angle=-0.9, seed=2)), [2]),
        "scan.tif": (
            scanmaker.tiff([scanmaker.page(n, dpi=250, angle=0.5, seed=n) for n in (1, 2)]),
            [1, 2],
        ),
    }
    scores = {}
    for name, (data, printed) in cases.items():
        result = indexer.extract(name, data)
        assert result.status == "ok", (name, result.skipped, result.error)
        assert {c.meta["page"] for c in result.chunks} == set(range(1, len(printed) + 1))
        assert all(c.meta["ocr"] is True for c in result.chunks)
        assert result.metadata["ocr"]["pages"] == list(range(1, len(printed) + 1))
        for page, number in enumerate(printed, start=1):
            text = "\n\n".join(c.text for c in result.chunks if c.meta["page"] == page)
            scores[f"{name} p{page}"] = scanmaker.word_f1(text, scanmaker.text_of(number))
    assert min(scores.values()) >= 0.90, scores
    assert statistics.mean(scores.values()) >= 0.93, scores


@pytest.mark.slow  # OCR engine runs
def test_a_tiff_page_comes_out_as_its_own_chunks_in_page_order() -> None:
    real_engine()
    data = scanmaker.tiff([scanmaker.page(n, dpi=200, angle=0.0, seed=n) for n in (2, 1)])
    result = indexer.extract("two.tiff", data)
    pages = [c.meta["page"] for c in result.chunks]
    assert pages == sorted(pages) and set(pages) == {1, 2}
    assert result.chunks[0].text.startswith("Customer Letter")
    assert result.metadata["pages"] == 2 and result.metadata["format"] == "TIFF"


def test_an_image_too_small_to_hold_text_is_skipped_and_never_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder().install(monkeypatch)
    for size, name in (((16, 16), "icon.png"), ((400, 12), "rule.gif"), ((60, 60), "ball.bmp")):
        result = indexer.extract(name, _blank(size, name.rsplit(".", 1)[1]))
        assert result.status == "skipped"
        assert result.skipped == f"image too small to hold text ({size[0]}x{size[1]} px)"
        assert result.chunks == ()
    assert recorder.calls == []


def test_without_an_engine_every_image_is_skipped_as_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tesseract, "installed", lambda: None)
    for data in (scanmaker.png(scanmaker.page(1, dpi=200, angle=0, seed=1)), b"not an image"):
        result = indexer.extract("scan.png", data)
        assert (result.status, result.skipped) == ("skipped", "OCR not installed")
        assert result.chunks == ()


def test_with_ocr_off_an_image_is_skipped_undecoded_and_otherwise_a_bad_one_fails() -> None:
    real_engine()
    off = indexer.extract("broken.jpg", b"\xff\xd8 not really", Options(ocr_mode="off"))
    assert (off.status, off.skipped) == ("skipped", "OCR is off")
    bad = indexer.extract("broken.jpg", b"\xff\xd8 not really")
    assert (bad.status, bad.error) == ("failed", "not a readable image")
    assert bad.chunks[0].text == "[image extraction failed: not a readable image]"
    cut = scanmaker.png(scanmaker.page(1, dpi=200, angle=0, seed=1))[:5000]
    truncated = indexer.extract("cut.png", cut)
    assert truncated.status == "failed" and truncated.error.startswith("corrupt image: ")


def test_a_picture_without_text_is_empty_as_no_text_found() -> None:
    real_engine()
    gradient = Image.linear_gradient("L").resize((400, 300))
    result = indexer.extract("sky.png", _save(gradient, "PNG"))
    assert (result.status, result.error) == ("empty", "no text found by OCR")
    ocr = result.metadata["ocr"]  # evened out, the sky is blank: it never reaches the engine
    assert (ocr["pages"], ocr["blank"]) == ([], [1])


@pytest.mark.slow  # OCR engine runs
def test_transparent_and_palette_images_are_read_on_white() -> None:
    real_engine()
    font = ImageFont.load_default(size=48)
    ink = Image.new("RGBA", (900, 160), (0, 0, 0, 0))  # black letters on nothing at all
    ImageDraw.Draw(ink).text((30, 40), "Invoice 4471 paid in full", fill=(0, 0, 0, 255), font=font)
    palette = Image.new("P", (900, 160), 0)  # every index black; index 0 transparent
    palette.putpalette([0, 0, 0] * 256)
    ImageDraw.Draw(palette).text((30, 40), "Invoice 4471 paid in full", fill=1, font=font)
    palette.info["transparency"] = 0
    for name, image, kind in (
        ("logo.png", ink, "PNG"),
        ("logo.gif", palette, "GIF"),
        ("logo.webp", ink, "WEBP"),
    ):
        result = indexer.extract(name, _save(image, kind))
        assert result.text == "Invoice 4471 paid in full", name


def test_a_page_past_its_timeout_fails_with_the_reason() -> None:
    real_engine()
    data = scanmaker.png(scanmaker.page(1, dpi=300, angle=0.7, seed=1))
    result = indexer.extract("slow.png", data, Options(ocr_page_timeout=0.001))
    assert (result.status, result.error) == ("failed", "OCR failed: OCR timeout after 0.001 s")
    assert result.metadata["failed_pages"] == [1]


def test_a_language_pack_that_is_not_installed_skips_the_image_naming_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_engine()
    recorder = Recorder(real=real_engine()).install(monkeypatch)
    data = scanmaker.png(scanmaker.page(1, dpi=200, angle=0, seed=1))
    result = indexer.extract("scan.png", data, Options(ocr_language="eng+zzz"))
    assert (result.status, result.skipped) == (
        "skipped",
        "OCR language zzz not installed; install tesseract-ocr-zzz",
    )
    assert recorder.calls == []  # not even decoded
    scan = scanmaker.scan_pdf([scanmaker.page(1, dpi=200, angle=0, seed=1)])
    result = indexer.extract("scan.pdf", scan, Options(ocr_language="zzz"))
    assert (
        result.error == "no text layer (OCR language zzz not installed; install tesseract-ocr-zzz)"
    )


@pytest.mark.slow  # OCR engine runs
def test_the_same_image_reads_the_same_twice() -> None:
    real_engine()
    data = scanmaker.jpeg(scanmaker.page(2, dpi=200, angle=1.1, seed=5))
    assert indexer.extract("a.jpg", data) == indexer.extract("a.jpg", data)


def _blank(size: tuple[int, int], kind: str) -> bytes:
    return _save(Image.new("L", size, 255), {"png": "PNG", "gif": "GIF", "bmp": "BMP"}[kind])


def _save(image: Image.Image, kind: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind)
    return buffer.getvalue()


@pytest.mark.slow  # OCR engine runs
def test_a_photo_taken_sideways_is_turned_upright_by_its_exif_orientation() -> None:
    real_engine()
    upright = scanmaker.page(1, dpi=200, angle=0.3, seed=6)
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # as a phone held sideways keeps it
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: turn 90 degrees clockwise to show
    buffer = io.BytesIO()
    stored.save(buffer, format="JPEG", quality=85, exif=exif, dpi=(200, 200))
    result = indexer.extract("phone.jpg", buffer.getvalue())
    assert scanmaker.word_f1(result.text, scanmaker.text_of(1)) >= 0.93


def test_an_image_that_claims_billions_of_pixels_fails_undecoded() -> None:
    real_engine()
    result = indexer.extract("bomb.png", _png_header(60_000, 60_000))
    assert (result.status, result.error) == ("failed", "image too large to OCR")


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims `width` x `height` grey pixels, and no pixels at all."""
    import struct
    import zlib

    head = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + head
    ihdr = struct.pack(">I", len(head)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + ihdr + end
