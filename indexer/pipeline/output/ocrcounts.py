"""A document's OCR counts (`formats.ocr.tally`) on their way from its worker to `run.json`.

Where a document is extracted (`extract.counted`), what OCR did for it rides in its
metadata under two private keys, as the text hash does (`dedup.texthash`): `COUNTS`,
deterministic, which its frozen blocks keep (a re-packed document still has them), and
`SECONDS`, the engine's CPU time, which they do not (the state stays the same bytes
for the same input). `records.render` takes both out of the record into `Rendered`,
whose stored form keeps the counts; `RunOcr` adds up a run's documents: those extracted
now by where their pages came from and why some were kept from the engine, those whose
output was reused (`cached`) by the pages their output answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from indexer.formats.ocr.tally import KEPT, SOURCES, OcrTally

if TYPE_CHECKING:
    from indexer._types import Extracted

COUNTS = "\x00ocr_counts"
"""Where a document's metadata carries `OcrTally.counts()` between its worker and its record."""
SECONDS = "\x00ocr_seconds"
"""...and the engine's CPU seconds, which its frozen blocks leave out."""


def noted(doc: Extracted, found: OcrTally) -> Extracted:
    """`doc` with `found` in its metadata (`doc` itself when OCR did nothing for it)."""
    if not found:
        return doc
    counts = {COUNTS: found.counts(), SECONDS: found.seconds}
    return replace(doc, metadata={**doc.metadata, **counts})


def taken(metadata: Mapping[str, Any]) -> tuple[tuple[int, ...], float]:
    """The counts and CPU seconds `noted` left in `metadata` (`()`, 0.0: none)."""
    counts = metadata.get(COUNTS)
    seconds = metadata.get(SECONDS)
    found = tuple(n for n in counts if isinstance(n, int)) if isinstance(counts, list) else ()
    return found, float(seconds) if isinstance(seconds, int | float) else 0.0


def private(key: str) -> bool:
    """True for a metadata key that never reaches a record (this module's, the text hash)."""
    return key.startswith("\x00")


@dataclass(slots=True)
class RunOcr:
    """What OCR did in a run, added up document by document."""

    done: OcrTally = field(default_factory=OcrTally)
    """The work of the documents extracted now (their `repeated` among `cached`)."""
    cached: int = 0
    """Pages answered by an earlier reading: a reused output's, and the reused
    documents' pictures shown again."""

    def add(self, counts: tuple[int, ...], seconds: float, *, cached: bool) -> None:
        """Count one document's `counts`: as pages answered by its stored output when
        `cached`, else as work done now."""
        if not counts:
            return
        found = OcrTally.from_counts(counts)
        if cached:
            self.cached += found.pages + found.repeated
        else:
            found.seconds = seconds
            self.done.merge(found)

    def merge(self, other: RunOcr) -> None:
        """Add `other`'s counts (a dask partition's) to these."""
        self.done.merge(other.done)
        self.cached += other.cached

    def report(self) -> dict[str, Any]:
        """`run.json`'s `ocr` block: every source and reason, zeros included."""
        done, pages = self.done, self.done.pages
        return {
            "pages": pages,
            "sent": {s: done.sent.get(s, 0) for s in SOURCES},
            "kept": {k: done.kept.get(k, 0) for k in KEPT},
            "cached": self.cached + done.repeated,
            "engine_cpu_s": round(done.seconds, 3),
            "cpu_s_per_page": round(done.seconds / pages, 3) if pages else None,
        }
