"""A top-level JSON array (or object) read a group of elements (entries) at a time.

Each group (about `_GROUP_BYTES` of source) is cut at a likely separator between two
elements and parsed as `[` + group + `]` (`{` + group + `}`). A cut inside a string
or a nested value does not parse and is tried again further on; once the first group
starts at an element, a group that parses ends at one too, so the groups' elements
are the document's, each parsed as a whole parse would. Readers fall back to parsing
the whole document when a group cannot be cut (`Uncut`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import orjson

from indexer.formats.json.values import bytes_read_as_text, parse_exact

_GROUP_BYTES = 1 << 16
"""Bytes of source per group of elements (any size from 16 KiB to 128 KiB runs alike)."""
_GROUP_TRIES = 4
"""Cuts tried for a group before the document is left to a whole parse."""
_EDGE = 4096
"""Bytes looked at for the whitespace around the array, at each end."""
_CLOSERS = {b"{": b"}", b"[": b"]", b'"': b'"'}


class Uncut(ValueError):
    """A group of elements that no tried cut made parse."""


class Separator(NamedTuple):
    """What likely stands between two elements, and where in it their comma is."""

    bytes: bytes
    comma: int


class Group(NamedTuple):
    """The elements (a list) or entries (a dict) parsed from `data[start:stop]`."""

    values: Any
    start: int
    stop: int


def array_groups(data: bytes) -> Iterator[Group] | None:
    """The groups of elements of `data`, in order; None unless `data` is a non-empty array
    (`[`, `]` and whitespace around it) that orjson may read as its text.

    The iterator raises `Uncut` at a group it cannot cut.
    """
    return _groups(data, b"[]")


def object_groups(data: bytes) -> Iterator[Group] | None:
    """`array_groups` for an object: its entries, a dict per group."""
    return _groups(data, b"{}")


def _groups(data: bytes, brackets: bytes) -> Iterator[Group] | None:
    head = data[:_EDGE]
    opening = len(head) - len(head.lstrip())
    tail = data[-_EDGE:]
    end = len(data) - (len(tail) - len(tail.rstrip())) - 1  # the closing bracket
    if head[opening : opening + 1] != brackets[:1] or data[end : end + 1] != brackets[1:]:
        return None
    if data[opening + 1 : opening + 1 + _EDGE].lstrip()[:1] in (b"", brackets[1:]):
        return None  # empty, or a first element past this edge
    if not bytes_read_as_text(data):
        return None
    return _cut_groups(data, opening, end, separator(data, opening), brackets)


def _cut_groups(
    data: bytes, opening: int, end: int, separator: Separator, brackets: bytes
) -> Iterator[Group]:
    stop = opening
    while stop < end:
        group = _next_group(data, stop + 1, end, separator, brackets)
        stop = group.stop
        yield group


def separator(data: bytes, opening: int) -> Separator:
    """The likely separator of the array whose `[` is at `opening`: the end of an
    element, the comma, whitespace as after the `[`, and the start of the first element
    (its first key with an object: fewer of its matches are inside elements). In an
    object (`{` at `opening`), the comma, the whitespace and a key's `"`.

    Without that whitespace, compact (`","`) and Python's `json.dumps` (`", "`)
    separators are tried.
    """
    window = data[opening + 1 : opening + 1 + 2 * _GROUP_BYTES]
    body = window.lstrip()
    lead = window[: len(window) - len(body)]
    opener = body[:1]
    closer = _CLOSERS.get(opener, b"")
    start = opener if closer else b""  # a number's first digit varies
    if data[opening : opening + 1] == b"{":  # an entry's key follows any value
        closer, start = b"", b'"'
    elif opener == b"{":
        quote = body.find(b'"', 1, 64)
        close = body.find(b'"', quote + 1, quote + 64) if quote > 0 else -1
        start = body[: close + 1] if close > 0 else opener
    candidates = [closer + b"," + space + start for space in (lead, b"", b" ")]
    found = next((c for c in candidates if c in window), candidates[0])
    return Separator(found, len(closer))


def _next_group(data: bytes, start: int, end: int, separator: Separator, brackets: bytes) -> Group:
    """The elements in `data[start:stop]`, `stop` at least `_GROUP_BYTES` on (at a
    separator's comma, or `end`); raises `Uncut` when no tried cut parses.

    A group cut in a string or nested array does not parse; it is tried again up to
    a later cut (`_balanced_cut`).
    """
    stop = _cut(data, start + _GROUP_BYTES, end, separator)
    for _ in range(_GROUP_TRIES):
        try:
            values = _loads_group(data, start, stop, brackets)
        except ValueError:  # orjson's, the stdlib's, or bytes that are not UTF-8
            if stop == end:
                break
        else:
            if not values:  # `[1, ]`: a comma with no element after it
                break
            return Group(values, start, stop)
        stop = _balanced_cut(data, start, stop, end, separator)
    raise Uncut(f"no cut of the array after byte {start} parses")


def _balanced_cut(data: bytes, start: int, stop: int, end: int, separator: Separator) -> int:
    """The first cut after `stop` with as many closing brackets as opening ones since
    `start` (a cut in a nested value has more opening ones; brackets in strings can
    mislead it), else `end`."""
    depth = _depth(data, start, stop)
    while stop < end:
        cut = _cut(data, stop + 1, end, separator)
        depth += _depth(data, stop, cut)
        stop = cut
        if not depth:
            break
    return stop


def _depth(data: bytes, start: int, stop: int) -> int:
    opened = data.count(b"[", start, stop) + data.count(b"{", start, stop)
    return opened - data.count(b"]", start, stop) - data.count(b"}", start, stop)


def _cut(data: bytes, start: int, end: int, separator: Separator) -> int:
    """The comma of the first `separator` in `data[start:end]`, else `end`."""
    at = data.find(separator.bytes, start, end)
    return end if at < 0 else at + separator.comma


def _loads_group(data: bytes, start: int, stop: int, brackets: bytes) -> Any:
    raw = b"".join((brackets[:1], memoryview(data)[start:stop], brackets[1:]))
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "number" not in str(exc):  # "number is infinity when parsed as double"
            raise
        return parse_exact(raw.decode())
