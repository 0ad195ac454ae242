"""Consecutive renderings (elements, entries, records) joined into blocks of a size."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from indexer._types import Extracted, make_chunks


class Blocks:
    """The blocks made so far, and the renderings held back for the next block.

    A block is renderings joined by newlines, up to `budget` characters (a longer
    rendering is a block alone), meta `{name: [first, last]}` of their labels.
    """

    def __init__(self, name: str, budget: int) -> None:
        self.name = name
        self.budget = budget
        self.texts: list[str] = []
        self.metas: list[dict[str, Any]] = []
        self._held: list[str] = []
        self._held_labels: list[Any] = []

    def add(self, parts: list[str], labels: Sequence[Any], *, last: bool) -> None:
        """Cut held + `parts` into blocks; the final, short one is held unless `last`."""
        if self._held:
            parts = self._held + parts
            labels = [*self._held_labels, *labels]
        ends = list(accumulate(len(p) + 1 for p in parts))  # each with its newline
        at, base = 0, 0
        while at < len(parts):
            cut = max(bisect.bisect_right(ends, base + self.budget + 1, at), at + 1)
            if cut == len(parts) and not last:
                break
            self.texts.append("\n".join(parts[at:cut]))
            self.metas.append({self.name: [labels[at], labels[cut - 1]]})
            at, base = cut, ends[cut - 1]
        self._held = parts[at:]
        self._held_labels = list(labels[at:])

    def extracted(self, *, degraded: bool = False) -> Extracted:
        """The blocks as chunks; the text is the blocks joined by newlines."""
        chunks = make_chunks(self.texts, self.metas, len(self.texts))
        text = "\n".join(self.texts)
        return Extracted(kind="json", text=text, chunks=chunks, degraded=degraded)
