"""What every OCR engine offers: `Engine.recognize(image) -> Reading`, `OcrError` when it cannot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["LOW_CONFIDENCE", "Engine", "OcrError", "Reading"]

LOW_CONFIDENCE = 60.0
"""A page read with a mean word confidence under this is flagged `low_confidence`:
clean print reads at 90 and more, a page Tesseract guesses at (noise, a photograph,
a script its model does not know) under 60."""


class OcrError(Exception):
    """The engine could not read one page; `reason` is short and stable."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """What the engine read on one page."""

    text: str
    """The page's text: lines, paragraphs separated by a blank line."""
    confidence: float | None = None
    """The mean confidence (0-100) of the words read, one decimal; None when no word was."""


class Engine(Protocol):
    """An OCR engine, ready to read pages in one language setting."""

    @property
    def label(self) -> str:
        """The engine's name and version (`tesseract 5.3.0`), for `metadata["ocr"]`."""
        ...

    def recognize(self, image: Image, *, dpi: int) -> Reading:
        """Return what the engine reads in `image` (greyscale, `dpi` dots per inch, 0 if
        unknown); raises `OcrError`."""
        ...
