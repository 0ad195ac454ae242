"""JSON Lines: one chunk per non-blank line, a bad line degrading on its own."""

from __future__ import annotations

from itertools import repeat
from typing import NamedTuple, cast

import orjson

from indexer._types import Extracted, make_chunks
from indexer.formats.json.values import has_exponent, parse, render_each

_BATCH = 256
"""JSONL lines rendered per C-level pass; a bad line costs its batch a second, slower pass."""


class Lines(NamedTuple):
    """The non-blank lines of JSONL text, in parallel lists."""

    numbers: list[int]
    """Each line's number, counting from 1."""
    lines: list[str]
    rendered: list[str | None]
    """Each line's `render_line`: None for a bad line."""


def parse_lines(text: str, *, stop_at_bad: bool) -> Lines:
    """Return the non-blank lines of `text`, rendered; with `stop_at_bad`, up to the first bad one.

    Lines are rendered a batch at a time by `_render_batch`, one by one in a
    batch it refuses.
    """
    lines = text.split("\n")
    while lines and not lines[-1]:  # a final newline: no record, and no batch spoiled
        lines.pop()
    out = Lines([], [], [])
    for start in range(0, len(lines), _BATCH):
        batch = lines[start : start + _BATCH]
        rendered = _render_batch(batch)
        if rendered is not None:
            out.numbers.extend(range(start + 1, start + 1 + len(batch)))
            out.lines.extend(batch)
            out.rendered.extend(rendered)
            continue
        for number, line in enumerate(batch, start=start + 1):
            if not line or line.isspace():
                continue
            one = render_line(line)
            out.numbers.append(number)
            out.lines.append(line)
            out.rendered.append(one)
            if one is None and stop_at_bad:
                return out
    return out


def _render_batch(lines: list[str]) -> list[str] | None:
    """`render_line` of each of `lines` when all are plain records, else None.

    None when a line is blank or does not parse or render: `render_line` then
    decides, line by line, meeting any exception again at the same line.
    """
    try:
        rendered = list(render_each(map(orjson.loads, lines)))
    except Exception:  # whatever it is, `render_line` meets it again in order
        return None
    if has_exponent("".join(rendered)):  # numbers may need reading exactly
        for i, text in enumerate(rendered):
            if "e+" in text:  # what `render_line` does with such a rendering
                try:
                    rendered[i] = parse(lines[i])[1]
                except ValueError:
                    return None
    return rendered


def render_line(line: str) -> str | None:
    """`parse(line)`'s rendering, None when it raises; inlined for the common case."""
    try:
        rendered = orjson.dumps(orjson.loads(line), None, orjson.OPT_INDENT_2).decode()
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        rendered = "e+"  # not rendered: let `parse` say why, or read numbers exactly
    if "e+" not in rendered:
        return rendered
    try:
        return parse(line)[1]
    except ValueError:
        return None


def records(lines: Lines) -> Extracted:
    """One chunk per line: its rendering, or the stripped line when it is bad."""
    degraded = None in lines.rendered
    if degraded:
        texts = [
            line.strip() if text is None else text
            for line, text in zip(lines.lines, lines.rendered, strict=True)
        ]
    else:
        texts = cast(list[str], lines.rendered)
    metas = map(dict.fromkeys, repeat(("line",)), lines.numbers)
    chunks = make_chunks(texts, metas, len(texts))
    return Extracted(kind="json", text="\n".join(texts), chunks=chunks, degraded=degraded)
