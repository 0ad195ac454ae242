"""`image`: PNG, JPEG, TIFF, BMP, GIF and WebP documents, read by OCR.

A TIFF is read page by page, up to `ocr_max_pages` (the rest are not decoded, and the
image is `degraded` with a note); other formats by their first frame (an animation's
later frames repeat it). Each page is prepared for the engine (`ocr.prepare`: small
text enlarged, blank pages never sent). Chunks are the paragraphs the engine found,
with `ocr.page_meta` (`{"page": n, "ocr": true, "ocr_confidence": c}`, and
`"low_confidence": true` under `ocr.LOW_CONFIDENCE`); `metadata["ocr"]` names the
engine, the pages it read and their confidence (`OcrPages.metadata`).

An image is `skipped`, with the reason, when OCR is off or cannot run (no engine, a
language pack missing: it is then not even decoded), or when it is too small to hold
text (icons, spacers, bullets); `empty` (`no_text`, with a marker chunk) when the
engine finds no text in it (a photograph). One that Pillow cannot decode is `failed`.
The engine runs as a child process, so the registry marks this extractor `isolated`.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from indexer._extract import failure
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS, ocr
from indexer.formats.ocr import tally
from indexer.formats.ocr.pages import OcrPages

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["MAX_PIXELS", "MIN_PIXELS", "MIN_SIDE", "VERSION", "extract"]

VERSION = VERSIONS["image"]

MIN_SIDE = 20
"""Images narrower or lower than this many pixels cannot hold a line of text."""
MIN_PIXELS = 64 * 64
"""Nor can images of fewer pixels than this (bullets, balls, avatars, spacer GIFs)."""
MAX_PIXELS = 100_000_000
"""Larger images are not decoded: a few bytes of PNG can claim billions of pixels."""
_OCR_PIXELS = 40_000_000
"""A page is scaled down to at most this many pixels before OCR (A3 at 400 dpi)."""
_MIN_DPI = 150
"""A declared resolution below this is a screen's (72, 96), not a scanner's: ignored."""


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """OCR the image `data`; never raises for bad input.

    Returns no chunks for blank input; `skipped` (no chunks, a reason) for an image
    too small to hold text or without an engine; one marker chunk with `error` for
    bytes that are not a readable image and for one without text (`empty`); else a
    chunk per paragraph.
    """
    if not data.strip():
        return Extracted(kind="image", text="")
    if options.ocr_mode == "off":
        tally.kept("ocr_off")
        return _skipped("OCR is off", {})
    engine = ocr.find_engine(options)
    why_not = ocr.unavailable(options)  # also when `engine` is None: says which is missing
    if engine is None or why_not is not None:
        tally.kept_for(why_not or ocr.NOT_INSTALLED)
        return _skipped(why_not or ocr.NOT_INSTALLED, {})
    from PIL import Image, UnidentifiedImageError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow warns of odd metadata and big images
        try:
            image = Image.open(io.BytesIO(data))
            return _read(image, engine, options)
        except UnidentifiedImageError:
            return _failed("not a readable image")
        except Image.DecompressionBombError:
            return _failed("image too large to OCR")
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            return _failed(f"corrupt image: {_first_line(exc)}")


def _read(image: Image, engine: ocr.Engine, options: Options) -> Extracted:
    width, height = image.size
    metadata: dict[str, Any] = {"format": image.format, "width": width, "height": height}
    if min(width, height) < MIN_SIDE or width * height < MIN_PIXELS:
        tally.kept("too_small")
        return _skipped(f"image too small to hold text ({width}x{height} px)", metadata)
    if width * height > MAX_PIXELS:
        return _failed(f"image too large to OCR ({width}x{height} px)", metadata)
    return _assemble(_pages(image, engine, options), metadata)


def _pages(image: Image, engine: ocr.Engine, options: Options) -> OcrPages:
    """What the engine read on each page, up to `options.ocr_max_pages`.

    Raises `OSError` (or `EOFError`) for a frame that cannot be decoded.
    """
    from PIL import ImageOps

    total, limit = _frame_count(image), options.ocr_max_pages
    out = OcrPages(engine=engine.label, source="image", total=total, limit=limit)
    for number, frame in enumerate(_frames(image, out.limit), start=1):
        dpi = _declared_dpi(frame)
        grey = _greyscale(ImageOps.exif_transpose(frame))  # a photo taken sideways
        scale = _scale(grey.size, dpi, options.ocr_dpi)
        if scale < 1:
            size = (max(1, round(grey.width * scale)), max(1, round(grey.height * scale)))
            grey = grey.resize(size, reducing_gap=3.0)
        out.read(number, engine, grey, round(dpi * scale) if dpi else 0, _OCR_PIXELS)
    return out


def _assemble(pages: OcrPages, metadata: dict[str, Any]) -> Extracted:
    metadata.update(pages=pages.total, ocr=pages.metadata())
    if pages.failed:
        metadata["failed_pages"] = sorted(pages.failed)
    if pages.note:
        metadata["notes"] = [pages.note]
    chunks = tuple(
        Chunk(text=para, meta=ocr.page_meta(number, page.confidence))
        for number, page in sorted(pages.texts.items())
        for para in page.paragraphs
    )
    if not chunks:
        if pages.failed:
            return _failed(f"OCR failed: {pages.failed[min(pages.failed)]}", metadata)
        return _failed(pages.no_text(), metadata)  # `empty`: nothing to read
    text = "\n\n".join(chunk.text for chunk in chunks)
    degraded = bool(pages.failed) or pages.capped > 0
    return Extracted(kind="image", text=text, chunks=chunks, degraded=degraded, metadata=metadata)


def _frame_count(image: Image) -> int:
    return getattr(image, "n_frames", 1) if image.format == "TIFF" else 1


def _frames(image: Image, limit: int) -> Iterator[Image]:
    if image.format != "TIFF":
        yield image
        return
    for index in range(min(limit, _frame_count(image))):
        image.seek(index)
        yield image


def _declared_dpi(image: Image) -> int:
    """The resolution the file declares, when it is a scanner's; else 0 (unknown)."""
    raw = image.info.get("dpi")
    try:
        dpi = round(float(raw[0])) if raw else 0
    except (TypeError, ValueError, IndexError):
        return 0
    return dpi if _MIN_DPI <= dpi <= 4800 else 0


def _greyscale(image: Image) -> Image:
    """The image in 8-bit grey, transparency laid over white (as a mail client shows it)."""
    from PIL import Image as Pil

    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = Pil.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Pil.alpha_composite(white, rgba).convert("L")
    if image.mode.startswith("I"):  # 16- and 32-bit grey: keep the top 8 bits
        return image.convert("I").point(lambda v: v * (1 / 256)).convert("L")
    return image.convert("L")


def _scale(size: tuple[int, int], dpi: int, target: int) -> float:
    """Never enlarge; shrink a scan finer than `target` dpi, and any image over the budget."""
    scale = min(1.0, target / dpi) if dpi else 1.0
    pixels = size[0] * size[1] * scale * scale
    if pixels > _OCR_PIXELS:
        scale *= (_OCR_PIXELS / pixels) ** 0.5
    return scale


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:120] if text else type(exc).__name__


def _skipped(reason: str, metadata: dict[str, Any]) -> Extracted:
    return Extracted(kind="image", text="", skipped=reason, metadata=metadata)


def _failed(reason: str, metadata: dict[str, Any] | None = None) -> Extracted:
    return failure("image", reason, metadata)
