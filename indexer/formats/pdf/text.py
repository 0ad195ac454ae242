"""What the two PDF engines share: artefact cleanup, lines into paragraphs, results.

An engine reads a document into a `PdfText` (paragraphs per page) or raises
`PdfFailure` with a short, stable reason; `indexer.formats.pdf` turns either
into an `Extracted`.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from indexer._text import normalize_newlines, split_paragraphs

__all__ = ["Line", "PdfFailure", "PdfText", "clean_text", "paragraphs", "sanitize_message"]

HYPHEN_MARKS = "\ufffe\x02\u00ad"
"""pdfium marks a word it found hyphenated at a line end with U+FFFE in the page
text (U+0002 in its per-character view); U+00AD is a soft hyphen in the text."""

_HYPHEN_JOIN = re.compile(f"[{HYPHEN_MARKS}][ \t]*\n[ \t]*")
_LINE_SEPARATORS = re.compile("[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_STRAY = re.compile(f"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\uffff{HYPHEN_MARKS}]")
_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+$", re.MULTILINE)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b|/tmp/\S+")

# A jump back up the page by more than this share of the pitch starts a new block.
_JUMP_FACTOR = 0.75
# A step between lines this many times the page's usual line pitch starts a new paragraph.
_GAP_FACTOR = 1.35
# Lines in a type larger than the page's usual one are expected this many heights apart,
# trusting a size only up to this many pitches (fonts can report absurd sizes).
_LEADING = 1.1
_MAX_SIZE_PITCHES = 4.0
# A first-line indent is wider than this share of the pitch and at most `_INDENT_MAX` pitches.
_INDENT_MIN = 0.4
_INDENT_MAX = 4.0


class PdfFailure(Exception):
    """The whole document could not be read; `reason` is short and deterministic."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class PdfText:
    """What an engine read from one document."""

    pages: tuple[tuple[str, ...], ...]
    """Clean paragraphs (or Markdown tables) of each page, in page order."""
    failed_pages: tuple[int, ...] = ()
    """1-based numbers of the pages the engine could not read."""
    title: str | None = None
    """The document information dictionary's /Title, when it is not blank."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """One line of page text and where it lies; positions grow down the page."""

    text: str
    x: float
    """Left edge of the line's first character."""
    y: float
    """Vertical position of the line's first character."""
    end_y: float | None = None
    """Vertical position of its last character, when the engine folded several
    physical lines into this one (pdfium does when it dehyphenates); else None."""
    size: float = 0.0
    """Height of its first character's font box (about its font size); 0 if unknown."""

    @property
    def last_y(self) -> float:
        """Vertical position of the line's last physical line."""
        return self.y if self.end_y is None else self.end_y


def clean_text(text: str) -> str:
    """Return `text` without PDF extraction artefacts.

    CRLF and lone CR become LF; a word hyphenated across a line end (U+FFFE,
    U+0002 or U+00AD before the break) is joined; other stray control characters,
    lone surrogates and leftover hyphen marks are removed (LF and tab are kept);
    trailing spaces are stripped from every line.
    """
    text = normalize_newlines(text)
    text = _HYPHEN_JOIN.sub("", text)
    text = _LINE_SEPARATORS.sub("\n", text)
    text = _STRAY.sub("", text)
    return _TRAILING_SPACE.sub("", text)


def paragraphs(lines: Sequence[Line]) -> list[str]:
    """Group a page's lines into clean, non-blank paragraphs, in order.

    A paragraph ends at a blank line, at a vertical step clearly wider than the
    page's usual line pitch, at a jump back up the page (a new column or block)
    and before a first-line indent; never after a line ending in a hyphen mark.
    """
    pitch = _line_pitch(lines)
    parts: list[str] = []
    for i, line in enumerate(lines):
        if i and pitch is not None and _breaks(lines, i, pitch):
            parts.append("\n\n")
        elif i:
            parts.append("\n")
        parts.append(line.text)
    return split_paragraphs(clean_text("".join(parts)))


def _line_pitch(lines: Sequence[Line]) -> float | None:
    steps = [b.y - a.last_y for a, b in itertools.pairwise(lines) if b.y > a.last_y]
    return statistics.median(steps) if steps else None


def _breaks(lines: Sequence[Line], i: int, pitch: float) -> bool:
    prev, line = lines[i - 1], lines[i]
    if prev.text.rstrip().endswith(tuple(HYPHEN_MARKS)):
        return False
    step = line.y - prev.last_y
    if step > _GAP_FACTOR * _expected_pitch(prev, line, pitch) or step < -_JUMP_FACTOR * pitch:
        return True
    return step > 0 and _indented(lines, i, pitch)


def _expected_pitch(prev: Line, line: Line, pitch: float) -> float:
    """The page's pitch, or more between lines set in a larger type (a title)."""
    size = min(prev.size, line.size, _MAX_SIZE_PITCHES * pitch)
    return max(pitch, _LEADING * size)


def _indented(lines: Sequence[Line], i: int, pitch: float) -> bool:
    prev, line = lines[i - 1], lines[i]
    indent = line.x - prev.x
    if not _INDENT_MIN * pitch < indent <= _INDENT_MAX * pitch:
        return False
    if i + 1 == len(lines):
        return False
    after = lines[i + 1]
    return after.y > line.last_y and abs(after.x - prev.x) < _INDENT_MIN * pitch


def sanitize_message(message: str, limit: int = 160) -> str:
    """Return a parser's message made deterministic: no addresses or temp paths, one line."""
    message = _ADDRESS.sub("…", " ".join(message.split()))
    return message[:limit].rstrip() or "unknown error"
