"""A parsed JSON document's chunks: one per top-level array element or object entry."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat
from typing import Any

import orjson

from indexer._types import Chunk, Extracted, make_chunks
from indexer.formats.json.groups import Uncut, array_groups
from indexer.formats.json.values import (
    DIGITS_TO_ZERO,
    INDENT,
    NINETEEN_DIGITS,
    has_exponent,
    render_each,
)

_END = object()
"""Marks the end of a list being drained by `drain`."""


def document(value: Any, text: str) -> Extracted:
    """Chunk a parsed document rendered as `text`; raises `ValueError` if a part cannot be.

    `value` is consumed: each part leaves it as it is rendered (see `drain`).
    """
    if isinstance(value, list) and value:
        n = len(value)  # before `drain` adds its end marker
        metas = map(dict.fromkeys, repeat(("index",)), range(n))
        chunks = make_chunks(render_each(drain(value)), metas, n)
    elif isinstance(value, dict) and value:
        keys = list(value)
        entries = map("{}: {}".format, render_each(keys), render_each(map(value.pop, keys)))
        chunks = make_chunks(entries, map(dict.fromkeys, repeat(("key",)), keys), len(keys))
    else:
        chunks = (Chunk(text=text),)
    return Extracted(kind="json", text=text, chunks=chunks)


def array_in_groups(data: bytes) -> Extracted | None:
    """`document(*parse(text, data))` for an array, read a group at a time (`groups`).

    Each group of elements is parsed, rendered and freed before the next, so the
    document is never whole in memory as Python objects (several times its size,
    whose fresh pages cost more CPU time than parsing them). Each group renders
    as it would within the whole array, so the document renders as the groups'
    renderings joined. Returns None, for `parse` to decide, when `data` is not an
    array, a group does not parse or render, or a number may need reading exactly.
    """
    groups = array_groups(data)
    if groups is None:
        return None
    bodies: list[str] = []
    chunks: list[Chunk] = []
    try:
        for group in groups:
            body, elements = _render_group(group.values, len(chunks))
            bodies.append(body)
            chunks += elements
    except (Uncut, orjson.JSONEncodeError):
        return None
    bodies[0] = "[\n  " + bodies[0]
    bodies[-1] += "\n]"
    text = ",\n  ".join(bodies)
    if has_exponent(text) and NINETEEN_DIGITS in data.translate(DIGITS_TO_ZERO):
        return None  # as in `parse`; `data` reads as `text` does
    return Extracted(kind="json", text=text, chunks=tuple(chunks))


def _render_group(values: list[Any], first: int) -> tuple[str, tuple[Chunk, ...]]:
    """The rendering of a group within its `[\n  ` and `\n]`, and its elements' chunks
    (indexes from `first`, `values` consumed); raises `orjson.JSONEncodeError`."""
    body = str(memoryview(orjson.dumps(values, None, INDENT))[4:-2], "utf-8")
    n = len(values)
    metas = map(dict.fromkeys, repeat(("index",)), range(first, first + n))
    return body, make_chunks(render_each(drain(values)), metas, n)


def drain(values: list[Any]) -> Iterator[Any]:
    """Yield `values` in order, each leaving the list as it is yielded.

    A part is then freed once rendered, and its memory holds the parts' texts and
    chunks: otherwise these take fresh pages, each a page fault.
    """
    values.append(_END)
    values.reverse()
    return iter(values.pop, _END)


def degraded(text: str) -> Extracted:
    """One chunk of the trimmed `text`, degraded: input that is not JSON."""
    trimmed = text.strip()
    chunks = (Chunk(text=trimmed),) if trimmed else ()
    return Extracted(kind="json", text=trimmed, chunks=chunks, degraded=bool(trimmed))
