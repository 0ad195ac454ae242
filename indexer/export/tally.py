"""What an export holds, counted as it is written (the dataset card prints it)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(slots=True, kw_only=True)
class Tally:
    """What an export holds, and which of its files this export wrote."""

    documents: int = 0
    chunks: int = 0
    languages: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
