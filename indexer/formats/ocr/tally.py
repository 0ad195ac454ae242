"""What OCR did for one document, counted where it happens, for `run.json`'s `ocr` block.

Counted: the pages given to the engine, by where they come from (`SOURCES`: a PDF's
page, an image document's page, a picture in an office file or e-book); the images and
pages kept from it, by why (`KEPT`); the pages of a picture shown again in the same
document, which its first reading answers (`repeated`); and the engine's CPU seconds.
A page the engine reads twice (again with orientation detection) counts once.

Counting happens only inside `counting()`, which the pipeline opens around each
document it extracts (`pipeline/extract/counted.py`); elsewhere (`indexer.extract`,
the conformance suite) the calls here do nothing. The counts are the same for the same
document and options whatever runs them; the CPU seconds are a measurement.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = [
    "KEPT",
    "SOURCES",
    "OcrTally",
    "clock",
    "counting",
    "kept",
    "kept_for",
    "pictures",
    "repeated",
    "sent",
]

SOURCES = ("pdf", "image", "picture")
"""Where a page given to the engine comes from: a PDF page; a page of an image document
(a file, an archive member, a mail's attachment); a picture an office file or e-book shows."""
KEPT = ("too_small", "blank", "max_pages", "ocr_off", "not_installed", "language_missing")
"""Why an image or page needing OCR was kept from the engine: too small to hold text
(never decoded past its size), blank (no ink, no contrast), past `ocr_max_pages`, OCR
off (an image document, not decoded), no engine, its language pack missing."""


@dataclass(slots=True)
class OcrTally:
    """The counts of one document (or of several: `merge`)."""

    sent: dict[str, int] = field(default_factory=dict)
    """Pages given to the engine, by `SOURCES`."""
    kept: dict[str, int] = field(default_factory=dict)
    """Images and pages kept from it, by `KEPT`."""
    repeated: int = 0
    """Pages of pictures shown again in their document: read once, answered by that."""
    seconds: float = 0.0
    """The engine's CPU seconds (its thread's, and its program's when it runs one)."""

    def counts(self) -> list[int]:
        """The deterministic counts in a fixed order (`SOURCES`, `KEPT`, `repeated`):
        what a document's stored output keeps (`from_counts` reads it back)."""
        return [
            *(self.sent.get(s, 0) for s in SOURCES),
            *(self.kept.get(k, 0) for k in KEPT),
            self.repeated,
        ]

    @classmethod
    def from_counts(cls, counts: list[int] | tuple[int, ...]) -> OcrTally:
        """The tally `counts()` gave (shorter lists, from fewer counts, read as zeros)."""
        padded = [*counts, *[0] * (len(SOURCES) + len(KEPT) + 1 - len(counts))]
        sent = dict(zip(SOURCES, padded, strict=False))
        kept = dict(zip(KEPT, padded[len(SOURCES) :], strict=False))
        return cls(
            sent={k: n for k, n in sent.items() if n},
            kept={k: n for k, n in kept.items() if n},
            repeated=padded[len(SOURCES) + len(KEPT)],
        )

    def merge(self, other: OcrTally) -> None:
        """Add `other`'s counts and seconds to these."""
        for into, more in ((self.sent, other.sent), (self.kept, other.kept)):
            for key, n in more.items():
                into[key] = into.get(key, 0) + n
        self.repeated += other.repeated
        self.seconds += other.seconds

    @property
    def pages(self) -> int:
        """Pages given to the engine."""
        return sum(self.sent.values())

    def __bool__(self) -> bool:
        return bool(self.sent or self.kept or self.repeated or self.seconds)


_CURRENT: ContextVar[OcrTally | None] = ContextVar("ocr_tally", default=None)
_PICTURES: ContextVar[bool] = ContextVar("ocr_pictures", default=False)


@contextmanager
def counting() -> Iterator[OcrTally]:
    """Count what OCR does in this block into a new tally (a nested block counts apart)."""
    found = OcrTally()
    token = _CURRENT.set(found)
    try:
        yield found
    finally:
        _CURRENT.reset(token)


@contextmanager
def pictures() -> Iterator[None]:
    """Count the image pages read in this block as pictures of the document."""
    token = _PICTURES.set(True)
    try:
        yield
    finally:
        _PICTURES.reset(token)


def sent(source: str, seconds: float) -> None:
    """Count one page of `source` given to the engine, which took `seconds` of CPU."""
    found = _CURRENT.get()
    if found is None:
        return
    if source == "image" and _PICTURES.get():
        source = "picture"
    found.sent[source] = found.sent.get(source, 0) + 1
    found.seconds += seconds


def kept(reason: str, n: int = 1) -> None:
    """Count `n` images or pages kept from the engine for `reason` (one of `KEPT`)."""
    found = _CURRENT.get()
    if found is not None and n > 0:
        found.kept[reason] = found.kept.get(reason, 0) + n


def kept_for(why_not: str, n: int = 1) -> None:
    """Count `n` kept from the engine because OCR cannot run: `why_not` is
    `ocr.unavailable`'s reason (an engine or a language pack missing)."""
    kept("language_missing" if why_not.startswith("OCR language") else "not_installed", n)


def repeated(pages: int) -> None:
    """Count the `pages` of a picture shown again, answered by its first reading."""
    found = _CURRENT.get()
    if found is not None:
        found.repeated += pages


def clock() -> float:
    """CPU seconds of this thread and of the children this process waited for: the
    engine runs in the thread (a library) or as a child (the program)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.thread_time() + children.ru_utime + children.ru_stime
