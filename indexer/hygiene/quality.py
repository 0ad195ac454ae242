"""Quality signals of a document's text, for a corpus build to filter on.

Every share is a fraction from 0 to 1, rounded to 4 places (docs/hygiene.md says what
each one means and which values usually mean junk).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from indexer.hygiene.language import letters

QUALITY: dict[str, Any] = {
    "words": 0,
    "mojibake": 0.0,
    "replacement": 0.0,
    "non_letter": 0.0,
    "duplicate_lines": 0.0,
    "top_trigram": 0.0,
    "ocr_confidence": -1.0,
}
"""A document's `metadata.quality`, as it is where there is no text."""

# UTF-8 read as cp1252 or Latin-1: a lead byte's character (Ã Â â Å Ä Æ Ð Ñ ...) then a
# continuation byte's (U+0080-U+00BF, or cp1252's € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – —
# ˜ ™ š › œ ž Ÿ). The standard `re`: several times faster than `regex` at this
# pattern, which holds only literal characters (the same matches).
_MOJIBAKE = re.compile(
    r"[ÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîï]"
    r"[\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]"
)


def score(
    texts: Sequence[str], ocr: Mapping[str, Any] | None, letter_count: int | None = None
) -> dict[str, Any]:
    """Return `metadata.quality` for a document whose chunks' texts are `texts`:
    `words` (whitespace-separated); the shares of characters in mojibake pairs
    (`mojibake`) and of U+FFFD (`replacement`); of non-space characters that are not
    letters (`non_letter`, `str.isalpha`); of
    non-blank lines that repeat an earlier one (`duplicate_lines`); of word characters
    in the most frequent word 3-gram's occurrences (`top_trigram`); and the mean OCR
    word confidence of the pages (pictures) read, 0-100, -1.0 for none.
    `letter_count` is the texts' letters when the caller counted them already."""
    out = dict(QUALITY)
    out["ocr_confidence"] = _ocr_confidence(ocr)
    text = "\n".join(texts)
    if not text.strip():
        return out
    chars = len(text)
    lowered = text.lower().split()  # lower-casing moves no word boundary
    ascii = text.isascii()
    if ascii:  # its length kept lower-cased: the words' characters are its non-spaces
        data = text.encode("ascii")
        visible = len(data.translate(None, _ASCII_SPACE))
        lengths = visible
    else:
        visible = sum(map(len, text.split()))
        lengths = sum(map(len, lowered))
        out["mojibake"] = _share(2 * len(_MOJIBAKE.findall(text)), chars)
        out["replacement"] = _share(text.count("\ufffd"), chars)
    out["words"] = len(lowered)
    found = letters(text) if letter_count is None else letter_count
    out["non_letter"] = _share(visible - found, visible)
    out["duplicate_lines"] = _duplicate_lines(text)
    out["top_trigram"] = _top_trigram(lowered, lengths)
    return out


_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters `str.split` splits at."""


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _duplicate_lines(text: str) -> float:
    lines = list(filter(None, map(str.strip, text.splitlines())))
    return _share(len(lines) - len(set(lines)), len(lines))


def _top_trigram(words: list[str], total: int | None = None) -> float:
    """`top_trigram` of lower-cased `words`, whose characters are `total` (counted
    here when not given)."""
    if len(words) < 3:
        return 0.0
    top = _top_grams(words)
    if top is None:  # a collision: count the tuples themselves
        counts = Counter(zip(words, words[1:], words[2:], strict=False))
        most = max(counts.values())
        top = most, [g for g, n in counts.items() if n == most]
    count, grams = top
    if count < 2:
        return 0.0
    gram = min(grams)  # of the most frequent, the least: deterministic
    if total is None:
        total = sum(map(len, words))
    return _share(min(count * sum(map(len, gram)), total), total)


_Gram = tuple[str, str, str]
_hash = hash  # a name of its own, for the test that makes every 3-gram collide


def _top_grams(words: list[str]) -> tuple[int, list[_Gram]] | None:
    """The most frequent 3-grams' count and the 3-grams (none when it is 1), counted
    as numbers, their words' hashes combined, with numpy; None when two 3-grams that
    share a number are among the most frequent (a collision: count them as tuples).
    A collision elsewhere cannot matter: it only adds up counts below the highest."""
    hashes = np.fromiter(map(_hash, words), dtype=np.int64, count=len(words))
    with np.errstate(over="ignore"):  # wrapping around is the point
        keys = (hashes[:-2] * np.int64(1_000_003) + hashes[1:-1]) * np.int64(1_000_003)
        keys += hashes[2:]
    ordered = np.sort(keys)  # a sort, not np.unique's stable argsort: several times faster
    bounds = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1], [True])))
    counts = np.diff(bounds)
    most = int(counts.max())
    if most < 2:
        return most, []
    tops = ordered[bounds[:-1][counts == most]]
    at = np.flatnonzero(np.isin(keys, tops))
    firsts = at[np.unique(keys[at], return_index=True)[1]]  # each top's first position
    origin = firsts[np.searchsorted(tops, keys[at])]
    for p, f in zip(at.tolist(), origin.tolist(), strict=True):
        if words[p : p + 3] != words[f : f + 3]:
            return None
    return most, [(words[f], words[f + 1], words[f + 2]) for f in firsts.tolist()]


def _ocr_confidence(ocr: Mapping[str, Any] | None) -> float:
    found = ocr.get("confidence") if isinstance(ocr, Mapping) else None
    if not isinstance(found, Mapping):
        return -1.0
    values = [float(v) for v in found.values() if isinstance(v, int | float)]
    return round(sum(values) / len(values), 2) if values else -1.0
