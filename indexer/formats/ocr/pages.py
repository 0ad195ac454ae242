"""What OCR made of a document's pages, gathered page by page, as the PDF and image
extractors both report it.

`OcrPages.read` prepares one page (`prepare`: small text enlarged, a blank page kept
from the engine) and records the engine's paragraphs and confidence, or its failure.
A document has `total` pages needing OCR and reads at most `limit` (`ocr_max_pages`);
`capped` are the rest, which the record names in `note`. What reaches the engine, and
what is kept from it, is counted for the run (`ocr.tally`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from indexer.formats.ocr import Engine, OcrError, low_confidence, paragraphs, tally
from indexer.formats.ocr.prepare import prepare

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["OcrPages", "PageText"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PageText:
    """One page the engine read."""

    paragraphs: tuple[str, ...]
    confidence: float | None
    """Mean word confidence (0-100); None when no word was read."""


@dataclass(slots=True, kw_only=True)
class OcrPages:
    """The pages of one document OCR dealt with (1-based numbers)."""

    engine: str
    """The engine's label (`tesseract 5.3.0`)."""
    source: str
    """Where the pages come from, for the run's counts (`tally.SOURCES`)."""
    total: int
    """Pages that needed OCR."""
    limit: int
    """At most this many of them are read (`ocr_max_pages`)."""
    texts: dict[int, PageText] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    """Why the engine failed on a page."""
    blank: list[int] = field(default_factory=list)
    """Pages that cannot hold text (no ink, no contrast): never sent to the engine."""

    def __post_init__(self) -> None:
        tally.kept("max_pages", self.capped)

    def read(self, number: int, engine: Engine, grey: Image, dpi: int, max_pixels: int) -> None:
        """Prepare page `number` (8-bit grey, `dpi` 0 if unknown) and read it with `engine`."""
        ready = prepare(grey, dpi, max_pixels)
        if ready is None:
            self.blank.append(number)
            tally.kept("blank")
            return
        started = tally.clock()
        try:
            reading = engine.recognize(ready.image, dpi=ready.dpi)
        except OcrError as exc:
            self.failed[number] = exc.reason
            return
        finally:
            tally.sent(self.source, tally.clock() - started)
        self.texts[number] = PageText(
            paragraphs=tuple(paragraphs(reading.text)), confidence=reading.confidence
        )

    @property
    def capped(self) -> int:
        """How many pages needing OCR were not read: past `limit`."""
        return max(0, self.total - self.limit)

    @property
    def note(self) -> str | None:
        """What the record says of the pages past the limit; None when there are none."""
        if not self.capped:
            return None
        return (
            f"OCR read {self.limit} of the {self.total} pages that needed it "
            f"(ocr_max_pages = {self.limit}); {self.capped} not read"
        )

    def no_text(self) -> str:
        """The reason for a document where OCR found no text."""
        if self.capped:
            return f"no text found by OCR in the first {self.limit} of {self.total} pages"
        return "no text found by OCR"

    def metadata(self) -> dict[str, Any]:
        """`metadata["ocr"]`: the engine, the pages read, each one's confidence, those
        under `LOW_CONFIDENCE`, blank and failed pages and the limit when it was reached."""
        read = sorted(self.texts)
        meta: dict[str, Any] = {
            "engine": self.engine,
            "pages": read,
            "confidence": {str(n): self.texts[n].confidence for n in read},
        }
        low = [n for n in read if low_confidence(self.texts[n].confidence)]
        if low:
            meta["low_confidence"] = low
        if self.blank:
            meta["blank"] = sorted(self.blank)
        if self.failed:
            meta["failed"] = sorted(self.failed)
        if self.capped:
            meta["max_pages"] = self.limit
            meta["not_read"] = self.capped
        return meta
