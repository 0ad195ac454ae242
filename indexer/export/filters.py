"""Which documents an export keeps: a predicate on the document record, and with it
their chunks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

DUPLICATES = ("keep", "originals", "representatives")
"""What `Filters.duplicates` may be (docs/hygiene.md, `indexer export --duplicates`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Filters:
    """What a document must be to be exported; every unset filter keeps every document."""

    languages: tuple[str, ...] = ()
    """`metadata.language.code` must be one of these (`""` names documents without one)."""
    statuses: tuple[str, ...] = ()
    """`status` must be one of these."""
    min_words: int = 0
    """`metadata.quality.words` at least this."""
    max_mojibake: float = 1.0
    max_replacement: float = 1.0
    max_non_letter: float = 1.0
    max_duplicate_lines: float = 1.0
    max_top_trigram: float = 1.0
    """Each `metadata.quality` share at most this."""
    min_ocr_confidence: float = -1.0
    """`metadata.quality.ocr_confidence` at least this (a document OCR did not read has -1:
    it is kept only while this is -1)."""
    duplicates: str = "keep"
    """"keep" every document; "originals" drops those naming an earlier copy
    (`duplicate_of`); "representatives" drops those too and every document in an
    earlier one's near-duplicate cluster (`metadata.near_duplicate`), so one is left of
    each cluster (docs/dedup.md)."""

    def __post_init__(self) -> None:
        if self.duplicates not in DUPLICATES:
            raise ValueError(f"duplicates = {self.duplicates!r}: expected one of {DUPLICATES}")

    def keeps(self, record: dict[str, Any]) -> bool:
        """Whether the document record `record` is exported."""
        metadata = record["metadata"]
        if self.languages and metadata["language"]["code"] not in self.languages:
            return False
        if self.statuses and record["status"] not in self.statuses:
            return False
        if not self._unique(record):
            return False
        quality = metadata["quality"]
        if quality["words"] < self.min_words:
            return False
        if quality["ocr_confidence"] < self.min_ocr_confidence:
            return False
        return all(quality[key] <= limit for key, limit in self._maxima())

    def _unique(self, record: dict[str, Any]) -> bool:
        """Whether `record` passes `duplicates`. A document with no chunks is in no
        cluster (its cluster is `""`): only an exact copy's `duplicate_of` drops it."""
        if self.duplicates == "keep":
            return True
        if record["duplicate_of"]:
            return False
        near = record["metadata"]["near_duplicate"]
        return self.duplicates == "originals" or not near["cluster"] or near["representative"]

    def _maxima(self) -> tuple[tuple[str, float], ...]:
        return (
            ("mojibake", self.max_mojibake),
            ("replacement", self.max_replacement),
            ("non_letter", self.max_non_letter),
            ("duplicate_lines", self.max_duplicate_lines),
            ("top_trigram", self.max_top_trigram),
        )

    def to_dict(self) -> dict[str, Any]:
        """The filters as JSON values (the export's manifest and dataset card)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
