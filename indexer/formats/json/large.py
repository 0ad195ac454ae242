"""A large top-level array as blocks of consecutive elements, not a chunk per element.

Past `GROUP_ABOVE` bytes a chunk per element costs a worker many times the file (a
Python string, dict and `Chunk` for each of millions of elements, then an output line
each). Here each group of elements read by `groups` is rendered element by element,
and consecutive renderings are joined, one per line, into blocks of up to
`BLOCK_CHARS` characters (an element longer than that is a block alone), meta
`{"indexes": [first, last]}`. The document's text is the blocks joined by newlines.
"""

from __future__ import annotations

import bisect
from itertools import accumulate
from typing import Any

import orjson

from indexer._types import Extracted, make_chunks
from indexer.formats.json.elements import drain
from indexer.formats.json.groups import Group, Uncut, array_groups
from indexer.formats.json.values import (
    DIGITS_TO_ZERO,
    NINETEEN_DIGITS,
    has_exponent,
    parse,
    render_each,
)

GROUP_ABOVE = 4 << 20
"""Documents larger than this many bytes (4 MiB) have their array elements grouped: below
it a chunk per element costs at most about a gigabyte (two million `0,`)."""
BLOCK_CHARS = 1000
"""The most characters a block of several elements holds: under the packer's target,
so a packed chunk holds one or two blocks."""


class _Blocks:
    """The blocks made so far, and the renderings held back for the next block."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.texts: list[str] = []
        self.metas: list[dict[str, Any]] = []
        self.held: list[str] = []
        self.first = 0
        """The index of the first held rendering."""

    def add(self, parts: list[str], *, last: bool) -> None:
        """Cut `held` + `parts` into blocks; the final, short one is held unless `last`."""
        parts = self.held + parts if self.held else parts
        ends = list(accumulate(len(p) + 1 for p in parts))  # each with its newline
        at, base = 0, 0
        while at < len(parts):
            cut = max(bisect.bisect_right(ends, base + self.budget + 1, at), at + 1)
            if cut == len(parts) and not last:
                break
            self.texts.append("\n".join(parts[at:cut]))
            self.metas.append({"indexes": [self.first + at, self.first + cut - 1]})
            at, base = cut, ends[cut - 1]
        self.held = parts[at:]
        self.first += at


def array_in_blocks(data: bytes, max_chars: int) -> Extracted | None:
    """The blocks of the array `data` when it is over `GROUP_ABOVE` bytes; None, for a
    whole parse to decide, when it is not, is not an array, or a group of its elements
    does not parse or render."""
    if len(data) <= GROUP_ABOVE:
        return None
    groups = array_groups(data)
    if groups is None:
        return None
    blocks = _Blocks(min(BLOCK_CHARS, max_chars))
    try:
        group = next(groups)
        for following in groups:
            blocks.add(_renderings(data, group), last=False)
            group = following
        blocks.add(_renderings(data, group), last=True)
    except (Uncut, ValueError, orjson.JSONEncodeError):
        return None
    chunks = make_chunks(blocks.texts, blocks.metas, len(blocks.texts))
    return Extracted(kind="json", text="\n".join(blocks.texts), chunks=chunks)


def _renderings(data: bytes, group: Group) -> list[str]:
    """The renderings of `group`'s elements, numbers exact (read again, as `parse`
    does, when one may have been rounded); raises `ValueError` if one does not render."""
    parts = list(render_each(drain(group.values)))
    if has_exponent("".join(parts)):
        source = data[group.start : group.stop]
        if NINETEEN_DIGITS in source.translate(DIGITS_TO_ZERO):
            values, _ = parse("[" + source.decode() + "]")
            parts = list(render_each(drain(values)))
    return parts
