"""Large JSON Lines as blocks of consecutive records, read a slice at a time.

As `large` does for arrays: past `GROUP_ABOVE` bytes, records are rendered a slice
of lines at a time (`lines.parse_lines`) and joined, one per line, into blocks of up
to `BLOCK_CHARS` characters, meta `{"lines": [first, last]}`. A bad line is its
trimmed text, in its block, and makes the document `degraded`. The text is the
blocks joined by newlines: the records' text, as for a smaller file.
"""

from __future__ import annotations

from collections.abc import Iterator

from indexer._text import normalize_newlines
from indexer._types import Extracted
from indexer.formats.json import large
from indexer.formats.json.blocks import Blocks
from indexer.formats.json.lines import parse_lines

_SLICE = 1 << 16
"""Bytes of lines read at a time (and then to the end of a line)."""


def lines_in_blocks(data: bytes, max_chars: int) -> Extracted | None:
    """The blocks of JSON Lines `data` when it is over `GROUP_ABOVE` bytes; None, for
    the reading of a smaller file to decide, when it is not, is not UTF-8 (or may be
    UTF-16: a NUL early on), or its first record is bad (it may be one pretty-printed
    document, which only a whole parse tells)."""
    if len(data) <= large.GROUP_ABOVE or b"\x00" in data[:4096]:
        return None
    blocks = Blocks("lines", min(large.BLOCK_CHARS, max_chars))
    before, degraded, seen = 0, False, False  # lines before the slice, a bad line, a record
    for start, stop in _slices(data):
        try:
            text = normalize_newlines(data[start:stop].decode())
        except UnicodeDecodeError:
            return None
        lines = parse_lines(text, stop_at_bad=False)
        if not seen and lines.rendered:
            if lines.rendered[0] is None:
                return None
            seen = True
        parts = [
            line.strip() if rendered is None else rendered
            for line, rendered in zip(lines.lines, lines.rendered, strict=True)
        ]
        degraded = degraded or None in lines.rendered
        blocks.add(parts, [before + n for n in lines.numbers], last=False)
        before += text.count("\n")
    blocks.add([], [], last=True)
    return blocks.extracted(degraded=degraded) if seen else None


def _slices(data: bytes) -> Iterator[tuple[int, int]]:
    """`(start, stop)` of consecutive slices of `data`, each ending after a newline (the
    last at the end), so that no line, nor a CRLF, is cut."""
    start = 0
    while start < len(data):
        stop = data.find(b"\n", start + _SLICE)
        stop = len(data) if stop < 0 else stop + 1
        yield start, stop
        start = stop
