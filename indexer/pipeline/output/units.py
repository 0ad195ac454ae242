"""What one extraction task yields: a document and its children (attachments, members).

A child whose extractor must run isolated (an attached PDF) leaves the worker as
`pending` bytes and is extracted by the isolated pool before the unit is
complete. Each extracted child records the cache key it was extracted under,
and the state keeps those keys with the mail's output (see `state.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from indexer._spec import Nesting
from indexer._types import Chunk, Extracted

POOL_FAILURES = ("crashed", "timeout", "out_of_memory")
"""Failure codes from the isolation limits: retried by the next run, and kept only when
they come back the same (`extract.store.RETRY`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Child:
    """A document inside another one: an attachment, an enclosed message, an archive member."""

    suffix: str
    """Appended to the parent's path: `#att/<k>/<filename>` or `#<member path>` (nested
    ones repeat it); a `#` in a name is written `\\x23` (`walk.entry.escape_part`)."""
    kind: str | None
    size: int
    sha256: str | None
    """None for an archive member that was not read."""
    extractor: str | None = None
    extracted: Extracted | None = None
    """None while pending or when skipped."""
    skip: str | None = None
    """Why the child is not extracted (no extractor for its type, depth limit)."""
    context: Mapping[str, Any] = field(default_factory=dict)
    """The enclosing mail's Subject, From, Date and Message-ID, for every chunk's meta."""
    pending: bytes | None = None
    """Content waiting for the isolated pool."""
    nesting: Nesting | None = None
    """With `pending`: where it sits, for the pool to nest its own children as if here."""
    key: str | None = None
    """The cache key it was extracted under; a cached mail is stale when it changed."""

    def with_meta(self) -> Extracted | None:
        """The extraction with `context` added to each chunk's meta as `mail`."""
        if self.extracted is None or not self.context:
            return self.extracted
        chunks = tuple(
            Chunk(text=c.text, meta={**c.meta, "mail": self.context}) for c in self.extracted.chunks
        )
        return replace(self.extracted, chunks=chunks)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """One extraction task's result: the document and its children, in document order."""

    doc: Extracted
    children: tuple[Child, ...] = ()

    def failed_by(self, codes: tuple[str, ...]) -> bool:
        """True when the document or any child failed with one of `codes`."""
        docs = [self.doc, *(c.extracted for c in self.children if c.extracted is not None)]
        return any(d.error in codes for d in docs)
