"""What every OCR engine offers: `Engine.recognize(image) -> text`, `OcrError` when it cannot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["Engine", "OcrError"]


class OcrError(Exception):
    """The engine could not read one page; `reason` is short and stable."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Engine(Protocol):
    """An OCR engine, ready to read pages in one language setting."""

    @property
    def label(self) -> str:
        """The engine's name and version (`tesseract 5.3.0`), for `metadata["ocr"]`."""
        ...

    def recognize(self, image: Image, *, dpi: int) -> str:
        """Return the text of `image` (greyscale, `dpi` dots per inch, 0 if unknown);
        raises `OcrError`."""
        ...
