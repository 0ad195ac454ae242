"""The text of pictures placed in an OOXML document (docx, pptx), read by OCR where they sit.

`PictureText.blocks(part)` hands the picture part `part` to the `image` extractor, so
its rules hold: nothing is read with OCR off or without an engine, icons, bullets and
logos are too small to hold text (the rule mail attachments follow), a photograph has
no text, a metafile (EMF, WMF) is no image OCR reads. A picture used several times is
read once, its text placed where it first appears. At most `ocr_max_pages` pictures of
a document reach the engine; the rest are counted in `metadata["ocr"]["not_read"]`.
A picture read under `LOW_CONFIDENCE` gives no text: its guesses would sit among the
document's own words, in chunks that cannot carry the flag (a logo drawn as a picture,
a photo's shadows read as `Na); SS) Vy`). `metadata()` is the document's
`metadata["ocr"]` (None when no picture reached the engine): the engine, the parts
whose text was placed, each one's confidence, and the parts left out as
`low_confidence`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer._types import Options
from indexer.formats.ocr import low_confidence
from indexer.formats.office.blocks import Block
from indexer.formats.office.container import ContainerError, Package

if TYPE_CHECKING:
    from indexer._types import Extracted

__all__ = ["PictureText"]

_IMAGE_PARTS = (".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".bmp", ".gif", ".webp")
"""Picture parts by name that may hold raster images; others (.emf, .wmf, .svg) are drawings."""


class PictureText:
    """OCR of one document's pictures, in the order the document shows them."""

    def __init__(self, package: Package, options: Options, path: str) -> None:
        self._package = package
        self._options = options
        self._path = path
        self._seen: set[str] = set()
        self._sent = 0
        self.engine: str | None = None
        self.read: dict[str, float | None] = {}
        """Part name -> the confidence of the pictures whose text was placed."""
        self.low: dict[str, float | None] = {}
        """Part name -> the confidence of the pictures read too poorly to place."""
        self.failed: dict[str, str] = {}
        """Part name -> why the engine failed on it."""
        self.not_read = 0

    def blocks(self, part: str | None, headings: tuple[str, ...] = ()) -> list[Block]:
        """The text OCR reads in picture part `part`, as paragraphs under `headings`."""
        if part is None or part in self._seen or self._options.ocr_mode == "off":
            return []
        self._seen.add(part)
        if not part.lower().endswith(_IMAGE_PARTS):
            return []
        if self._sent >= self._options.ocr_max_pages:
            self.not_read += 1
            return []
        try:
            data = self._package.read(part)
        except ContainerError:  # over the package's limits: the picture is not read
            return []
        result = self._read(part, data) if data else None
        if result is None or not result.chunks or result.error is not None:
            return []
        confidence = (result.metadata.get("ocr") or {}).get("confidence", {}).get("1")
        if low_confidence(confidence):
            self.low[part] = confidence
            return []
        self.read[part] = confidence
        return [Block(chunk.text, "para", headings) for chunk in result.chunks]

    def _read(self, part: str, data: bytes) -> Extracted | None:
        from indexer.formats import image  # OCR is only loaded for a document with pictures

        result = image.extract(data, f"{self._path}#{part}", self._options)
        ocr: dict[str, Any] = result.metadata.get("ocr") or {}
        if not ocr.get("pages") and not ocr.get("failed"):
            return None  # skipped before the engine (too small, no engine) or blank
        self._sent += 1
        self.engine = self.engine or ocr.get("engine")
        if result.error is not None and result.error.startswith("OCR failed"):
            self.failed[part] = result.error
        return result

    @property
    def degraded(self) -> bool:
        """True when a picture's text may be missing: the engine failed, or the cap cut."""
        return bool(self.failed) or self.not_read > 0

    def metadata(self) -> dict[str, Any] | None:
        """`metadata["ocr"]` of the document, or None when no picture reached the engine."""
        if self._sent == 0 and not self.not_read:
            return None
        meta: dict[str, Any] = {
            "engine": self.engine,
            "pictures": sorted(self.read),
            "confidence": dict(sorted({**self.read, **self.low}.items())),
        }
        if self.low:
            meta["low_confidence"] = sorted(self.low)
        if self.failed:
            meta["failed"] = sorted(self.failed)
        if self.not_read:
            meta["max_pages"] = self._options.ocr_max_pages
            meta["not_read"] = self.not_read
        return meta
