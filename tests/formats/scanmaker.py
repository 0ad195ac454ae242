"""Scans made from known text: Pillow sets prose on a page, then tilts, speckles and blurs it.

`page()` is one scanned page (greyscale, its resolution in `info["dpi"]`); `png`, `jpeg`,
`tiff`, `scan_pdf`, `mixed_pdf` and `pdf_with_image` wrap pages as files; `word_f1`
scores what OCR read against the text, as ../shared/quality/score_ocr.py does (bag of
lower-cased words).
"""

from __future__ import annotations

import collections
import io
import random
import re
import zlib

from PIL import Image, ImageFilter, ImageFont

from indexer._samples import pdf_file

PAGES = (
    (
        "Quarterly Maintenance Report",
        "The north warehouse passed its annual fire inspection on March 14. Two exit signs "
        "were replaced and the sprinkler pressure was measured at 82 pounds per square inch, "
        "well within the required range.",
        "Electricity use fell by 12 percent compared with the same quarter last year, mostly "
        "because the old loading dock lights were replaced. The total bill came to $4,318.50.",
        "Next steps: repaint the stairwell, service both freight elevators before June, and "
        "order spare filters for the ventilation system in the basement.",
    ),
    (
        "Customer Letter",
        "Dear Ms. Patel, thank you for your order of twelve oak chairs and one walnut table. "
        "Your furniture left our workshop in Portland on Friday and should arrive within five "
        "business days.",
        "Please keep this letter with your receipt. If any piece arrives damaged, call our "
        "service desk at 503-555-0142 between nine and five, Monday to Friday.",
        "We hope you enjoy your new dining room. Kind regards, the Harbor Furniture Company.",
    ),
)
"""The text of each page: a heading, then paragraphs."""

_WORD = re.compile(r"\w+")
_INCHES = (8.5, 5.5)  # half a letter page: a full page's text density, half the OCR time
_MARGIN = 0.75
_POINTS = 10


def text_of(number: int) -> str:
    """The text printed on page `number` (1-based)."""
    return "\n\n".join(PAGES[(number - 1) % len(PAGES)])


def page(number: int, *, dpi: int, angle: float, seed: int) -> Image.Image:
    """Scan of page `number`: rendered at `dpi`, turned by `angle` degrees, speckled, blurred."""
    width, height = round(_INCHES[0] * dpi), round(_INCHES[1] * dpi)
    image = Image.new("L", (width, height), 255)
    font = ImageFont.load_default(size=round(_POINTS / 72 * dpi))
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    left, top = round(_MARGIN * dpi), round(_MARGIN * dpi)
    line_height = round(_POINTS * 1.45 / 72 * dpi)
    for paragraph in PAGES[(number - 1) % len(PAGES)]:
        for line in _wrap(paragraph, font, width - 2 * left):
            draw.text((left, top), line, fill=20, font=font)
            top += line_height
        top += line_height // 2
    image = image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
    _speckle(image, random.Random(seed))
    image = image.filter(ImageFilter.GaussianBlur(0.5 * dpi / 200))
    image.info["dpi"] = (dpi, dpi)
    return image


def inked(size: tuple[int, int]) -> Image.Image:
    """A grey image of `size` with lines of text a 40th of its width tall: a page the engine
    is given (unlike a blank one), read as it is at 150 dpi and finer (its lines are tall
    enough not to be enlarged)."""
    from PIL import ImageDraw

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    points = max(8, size[0] // 40)
    font = ImageFont.load_default(size=points)
    for top in range(points, max(points + 1, size[1] - 2 * points), 2 * points):
        draw.text((points, top), "Ink on the page", fill=20, font=font)
    return image


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _speckle(image: Image.Image, rng: random.Random) -> None:
    pixels = image.load()
    assert pixels is not None
    for _ in range(image.width * image.height // 250):
        pixels[rng.randrange(image.width), rng.randrange(image.height)] = rng.randrange(0, 160)


def png(image: Image.Image) -> bytes:
    """`image` as a PNG file that declares its resolution."""
    return _save(image, "PNG")


def jpeg(image: Image.Image) -> bytes:
    """`image` as a JPEG file (quality 80) that declares its resolution."""
    return _save(image, "JPEG", quality=80)


def tiff(images: list[Image.Image]) -> bytes:
    """`images` as the pages of one multi-page TIFF (LZW)."""
    buffer = io.BytesIO()
    first, *rest = images
    first.save(
        buffer,
        format="TIFF",
        save_all=True,
        append_images=rest,
        compression="tiff_lzw",
        dpi=first.info["dpi"],
    )
    return buffer.getvalue()


def scan_pdf(images: list[Image.Image]) -> bytes:
    """`images` as an image-only PDF, a page each, at their resolution: no text layer."""
    buffer = io.BytesIO()
    first, *rest = images
    first.save(
        buffer, format="PDF", save_all=True, append_images=rest, resolution=first.info["dpi"][0]
    )
    return buffer.getvalue()


def mixed_pdf(text_pdf: bytes, scan: bytes, at: int) -> bytes:
    """`text_pdf` with the pages of the PDF `scan` inserted before page `at` (1-based)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(text_pdf)
    doc.import_pages(pdfium.PdfDocument(scan), index=at - 1)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()


def pdf_with_image(
    image: Image.Image, box: tuple[float, float, float, float], text: str = ""
) -> bytes:
    """A one-page US letter PDF: `image` drawn at `box` (x, y, width, height, in points)
    and, when given, `text` as a line of real text (a text layer) near the bottom."""
    x, y, width, height = box
    draw = f"q {width} 0 0 {height} {x} {y} cm /Im1 Do Q"
    if text:
        draw += f" BT /F1 10 Tf 72 40 Td ({text}) Tj ET"
    pixels = zlib.compress(image.convert("L").tobytes())
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /XObject << /Im1 5 0 R >> /Font << /F1 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw.encode()),
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"
        b" /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
        % (image.width, image.height, len(pixels), pixels),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_file(objects)


def word_f1(got: str, want: str) -> float:
    """Bag-of-words F1 of lower-cased `\\w+` tokens (../shared/quality/score_ocr.py's metric)."""
    have = collections.Counter(w.lower() for w in _WORD.findall(got))
    need = collections.Counter(w.lower() for w in _WORD.findall(want))
    common = sum((have & need).values())
    precision = common / max(1, sum(have.values()))
    recall = common / max(1, sum(need.values()))
    return 2 * precision * recall / (precision + recall) if common else 0.0


def _save(image: Image.Image, kind: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind, dpi=image.info["dpi"], **options)
    return buffer.getvalue()
