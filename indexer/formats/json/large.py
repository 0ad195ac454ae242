"""A large top-level array or object as blocks of consecutive elements or entries.

Past `GROUP_ABOVE` bytes a chunk per element costs a worker many times the file (a
Python string, dict and `Chunk` for each of millions of elements, then an output line
each). Here each group of elements read by `groups` is rendered element by element,
and consecutive renderings are joined, one per line, into blocks of up to
`BLOCK_CHARS` characters (`blocks`; an element longer than that is a block alone),
meta `{"indexes": [first, last]}`, or for an object's entries `{"keys": [first,
last]}`. The document's text is the blocks joined by newlines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from indexer._types import Extracted
from indexer.formats.json.blocks import Blocks
from indexer.formats.json.elements import drain
from indexer.formats.json.groups import Group, Uncut, array_groups, object_groups
from indexer.formats.json.values import (
    DIGITS_TO_ZERO,
    NINETEEN_DIGITS,
    has_exponent,
    parse_exact,
    render_each,
)

GROUP_ABOVE = 4 << 20
"""Documents larger than this many bytes (4 MiB) have their array elements grouped: below
it a chunk per element costs at most about a gigabyte (two million `0,`)."""
BLOCK_CHARS = 1000
"""The most characters a block of several elements holds: under the packer's target,
so a packed chunk holds one or two blocks."""


def in_blocks(data: bytes, max_chars: int) -> Extracted | None:
    """The blocks of the array or object `data` when it is over `GROUP_ABOVE` bytes;
    None, for a whole parse to decide, when it is not, is neither, or a group of its
    elements does not parse or render."""
    if len(data) <= GROUP_ABOVE:
        return None
    groups = array_groups(data)
    blocks = Blocks("indexes", min(BLOCK_CHARS, max_chars))
    if groups is None:
        groups = object_groups(data)
        blocks.name = "keys"
    if groups is None:
        return None
    try:
        _add_groups(data, groups, blocks)
    except (Uncut, ValueError, orjson.JSONEncodeError):
        return None
    return blocks.extracted()


def _add_groups(data: bytes, groups: Iterator[Group], blocks: Blocks) -> None:
    """Render each group into `blocks`; raises as `_renderings` and `groups` do."""
    first, pending = 0, None
    for group in groups:  # one group ahead: the last one's blocks are not held back
        if pending is not None:
            first = _add(data, pending, first, blocks, last=False)
        pending = group
    if pending is not None:
        _add(data, pending, first, blocks, last=True)


def _add(data: bytes, group: Group, first: int, blocks: Blocks, *, last: bool) -> int:
    parts, labels = _renderings(data, group, first)
    blocks.add(parts, labels, last=last)
    return first + len(parts)


def _renderings(data: bytes, group: Group, first: int) -> tuple[list[str], Sequence[Any]]:
    """The renderings of `group`'s elements or entries, numbers exact (read again, as
    `parse` does, when one may have been rounded), and their labels: indexes from
    `first`, or keys. Raises `ValueError` if one does not render."""
    values = group.values
    parts = _render(values)
    if has_exponent("".join(parts)):
        source = data[group.start : group.stop]
        if NINETEEN_DIGITS in source.translate(DIGITS_TO_ZERO):
            brackets = "{}" if isinstance(values, dict) else "[]"
            values = parse_exact(brackets[0] + source.decode() + brackets[1])
            parts = _render(values)
    if isinstance(values, dict):
        return parts, list(values)
    return parts, range(first, first + len(parts))


def _render(values: Any) -> list[str]:
    """Each element's rendering, each leaving `values` as it is rendered (`drain`), or
    each entry's `"key": value` (the dict stays whole: its keys are the labels)."""
    if isinstance(values, dict):
        keys = list(values)
        return list(map("{}: {}".format, render_each(keys), render_each(map(values.get, keys))))
    return list(render_each(drain(values)))
