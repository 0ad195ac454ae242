"""Which language a text is in: py3langid's model (in its wheel, nothing downloaded).

Chosen by `scripts/bench hygiene-lang` (docs/hygiene.md has the numbers): on one
sentence as accurate as lingua's high-accuracy mode, several times faster, and loaded
in under a second into ~130 MB, where lingua's needs ~10 s and over 1 GB in every
worker. It is read by `langmodel` (py3langid's answers, about twice as fast), once
per process, on the first text long enough to classify.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from indexer.hygiene import langmodel

MIN_LETTERS = 12
"""A text with fewer letters than this (a number, a table of figures, a name) has no
language: its code is `""`."""
SAMPLE_CHARS = 200
"""Only this much of a text is read, from its middle (past a title or a mail's header
lines): accuracy on the benchmark's 6-sentence texts is the same from 150 characters
to 2,000 (0.982), and the model's cost is in proportion to the characters it reads."""
MIXED_SHARE = 0.2
"""A document is mixed when a language other than its own holds at least this share of
the letters of its chunks that have one."""

_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))


def letters(text: str) -> int:
    """How many letters (`str.isalpha`) `text` has; fast for any text (a table lookup
    per character for the Basic Multilingual Plane, `str.isalpha` past it)."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data) - len(data.translate(None, _ASCII_LETTERS))
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    beyond = points >= len(_bmp_letters())
    count = int(_bmp_letters()[points[~beyond]].sum())
    if beyond.any():
        count += sum(chr(c).isalpha() for c in points[beyond].tolist())
    return count


@functools.cache
def _bmp_letters() -> Any:
    """For each code point below U+10000, whether `str.isalpha` holds."""
    return np.fromiter(map(str.isalpha, map(chr, range(0x10000))), dtype=bool, count=0x10000)


@dataclass(frozen=True, slots=True, kw_only=True)
class Guess:
    """A text's language."""

    code: str
    """ISO 639-1 (639-3 where the model's language has no 639-1 code), `""` for none."""
    confidence: float
    """The model's probability for `code`, 0 to 1, rounded to 3 places; -1.0 for none."""
    letters: int
    """The text's letters (all of them: the weight of its guess in its document's)."""


NONE = Guess(code="", confidence=-1.0, letters=0)


def guess(text: str) -> Guess:
    """Return the language of `text` (see `guesses`)."""
    return guesses([text])[0]


def guesses(texts: Sequence[str]) -> list[Guess]:
    """Return the language of each of `texts`, read from `SAMPLE_CHARS` of its middle;
    `""` for one with under `MIN_LETTERS` letters. One call classifies them together
    (a document's chunks), which costs less than one call each."""
    found = [letters(t) for t in texts]
    asked = [i for i, n in enumerate(found) if n >= MIN_LETTERS]
    answers = langmodel.classify([_sample(texts[i]) for i in asked])
    out = [Guess(code="", confidence=-1.0, letters=n) for n in found]
    for i, (code, probability) in zip(asked, answers, strict=True):
        if code != "zxx":  # the model's "no linguistic content"
            out[i] = Guess(code=code, confidence=round(probability, 3), letters=found[i])
    return out


def _sample(text: str) -> str:
    start = max(0, (len(text) - SAMPLE_CHARS) // 2)
    return text[start : start + SAMPLE_CHARS]


def of_document(guesses: Sequence[Guess]) -> dict[str, Any]:
    """Return a document's `metadata.language` from its chunks' guesses: the language
    holding most of their letters; its `confidence` that language's share of the letters
    times their letter-weighted mean probability; `mixed` when another language holds
    `MIXED_SHARE` of them. `{"code": "", "confidence": -1.0, "mixed": false}` for none."""
    letters: dict[str, int] = {}
    weighted: dict[str, float] = {}
    for g in guesses:
        if g.code:
            letters[g.code] = letters.get(g.code, 0) + g.letters
            weighted[g.code] = weighted.get(g.code, 0.0) + g.confidence * g.letters
    total = sum(letters.values())
    if not total:
        return {"code": "", "confidence": -1.0, "mixed": False}
    ranked = sorted(letters, key=lambda c: (-letters[c], c))  # ties by code: deterministic
    code = ranked[0]
    confidence = weighted[code] / total
    mixed = len(ranked) > 1 and letters[ranked[1]] >= MIXED_SHARE * total
    return {"code": code, "confidence": round(confidence, 3), "mixed": mixed}
