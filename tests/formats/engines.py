"""OCR engines for the tests: the real Tesseract (required, never skipped) and a recorder.

`Recorder` stands in for `indexer.formats.ocr.find_engine`'s result: it notes every page
it is given (size and dpi) and answers with the real engine's text, or with `reply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from PIL.Image import Image

from indexer import Options
from indexer.formats import ocr

MISSING = (
    "OCR tests need the tesseract program: scripts/test installs it when run as root "
    "(apt-get install tesseract-ocr tesseract-ocr-eng); see docs/ocr.md"
)


def real_engine(options: Options | None = None) -> ocr.Engine:
    """The installed engine; fails (not skips) the test when there is none."""
    engine = ocr.find_engine(options or Options())
    if engine is None:
        pytest.fail(MISSING)
    return engine


@dataclass
class Recorder:
    """An engine that records each page it is asked to read."""

    real: ocr.Engine | None = None
    reply: str = ""
    confidence: float = 90.0
    """The confidence it gives `reply`."""
    fail: dict[int, str] = field(default_factory=dict)
    """Call numbers (1-based) that raise `OcrError` with the given reason."""
    calls: list[tuple[tuple[int, int], int]] = field(default_factory=list)
    """(image size, dpi) of each call, in order."""

    @property
    def label(self) -> str:
        return "recorder"

    def recognize(self, image: Image, *, dpi: int) -> ocr.Reading:
        self.calls.append((image.size, dpi))
        if len(self.calls) in self.fail:
            raise ocr.OcrError(self.fail[len(self.calls)])
        if self.real:
            return self.real.recognize(image, dpi=dpi)
        return ocr.Reading(text=self.reply, confidence=self.confidence if self.reply else None)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> Recorder:
        """Make `find_engine` return this recorder (in this process)."""

        def find(options: Any) -> Recorder:
            return self

        monkeypatch.setattr(ocr, "find_engine", find)
        return self
