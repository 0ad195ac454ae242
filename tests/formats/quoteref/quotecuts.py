"""Where in a mail body a quoted or forwarded message starts, and its header block ends.

`quotes.passages` reads a body as a `Body`: its lines, each with its quote depth and
its text without the `>` markers. A quoted message that runs to the end starts at a
line `next_cut` finds: the HTML reader's `CUT` token, a forwarded-message banner, a
header block on one line, Outlook's `-----Original Message-----` or a rule of
underscores (followed by a header block), or the `From:` line of a header block (a
`Sent:`/`Date:` line within `_HEADER_WINDOW` lines, or Lotus Notes' `To:` and
`Subject:`). `header_end` is the line after that header. Only the lines
`candidates` names are looked at: most lines have no colon and start no rule.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Literal

from tests.formats.quoteref import quotelines as q

__all__ = [
    "Body",
    "Kind",
    "Label",
    "candidates",
    "header_end",
    "is_forward",
    "next_cut",
    "next_text",
    "parse",
]

Kind = Literal["own", "quoted", "forwarded", "signature", "disclaimer"]
Label = tuple[Kind, int, bool]
"""A line's kind, quote depth and whether it is a header (attribution or header block)."""

_HEADER_WINDOW = 8
"""Lines after a `From:` line within which its `Sent:`/`Date:` line must come."""
_HEADER_LINES = 24
"""The longest header block read (long `To:` lists wrap)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Body:
    """A body's lines: each line's quote depth, and its text with the markers stripped
    (the lists are filled in place as the body is read)."""

    depths: list[int]
    bare: list[str]
    labels: list[Label | None]
    """Each line's label; None for a blank line (part of the passage it is in)."""


def parse(text: str) -> Body:
    """The body's lines, with their `>` markers read (only lines with a `>` are looked at)."""
    bare = text.split("\n")
    depths = [0] * len(bare)
    if ">" in text:
        match = q.MARKERS.match
        for at, line in enumerate(bare):
            if ">" in line and (markers := match(line)) is not None:
                depths[at] = markers.group().count(">")
                bare[at] = line[markers.end() :]
    return Body(depths=depths, bare=bare, labels=[None] * len(bare))


def candidates(body: Body) -> list[int]:
    """The unquoted lines that may start a quoted message (`quotelines.may_cut`), in order."""
    cut, rules, depths = q.CUT, q.RULES, body.depths
    return [
        at
        for at, line in enumerate(body.bare)
        if not depths[at]
        and (":" in line or "：" in line or line.lstrip().startswith(rules) or cut in line)
    ]


def next_cut(body: Body, candidates: list[int], pos: int) -> int | None:
    """The first line from `pos` where a quoted or forwarded message starts, else None;
    only `candidates` (in order) are looked at."""
    for n in range(bisect.bisect_left(candidates, pos), len(candidates)):  # no copy: 10,000 cuts
        at = candidates[n]
        line = body.bare[at]
        if q.CUT in line or q.forward_banner(line) or q.header_line(line):
            return at
        if q.reply_separator(line) and (
            not line.strip().startswith("_") or _header_start(body, next_text(body, at + 1))
        ):
            return at
        if _header_start(body, at):
            return at
    return None


def _header_start(body: Body, at: int) -> bool:
    """True when line `at` is the `From:` line of a header block: a `Sent:`/`Date:` line
    follows, or (Lotus Notes, the date on the `From:` line) `To:` and `Subject:` lines."""
    if at >= len(body.bare) or body.depths[at] or body.bare[at][:1].isspace():
        return False  # an indented block is a listing (a bounce's copy of the headers)
    if q.header_field(body.bare[at]) != "from":
        return False
    seen = set()
    for n in range(at + 1, min(len(body.bare), at + 1 + _HEADER_WINDOW)):
        line = body.bare[n]
        if body.depths[n] or not line.strip():
            break
        seen.add(q.header_field(line))
        if "sent" in seen or {"to", "subject"} <= seen:
            return True
    return False


def header_end(body: Body, cut: int) -> int:
    """The line after the header lines that start at `cut` (banner, rule, fields, blanks)."""
    at = cut
    line = body.bare[at]
    if q.CUT in line or q.forward_banner(line) or q.reply_separator(line):
        at = next_text(body, at + 1)
    if at < len(body.bare) and q.header_line(body.bare[at]):
        return next_text(body, at + 1)
    fields = 0
    last = min(len(body.bare), at + _HEADER_LINES)
    while at < last:
        line = body.bare[at]
        if body.depths[at] or not line.strip():
            break
        if q.header_field(line) is None and (fields == 0 or ":" in line[:30]):
            break  # a continuation (a wrapped `To:` list) has no field name of its own
        fields += 1
        at += 1
    return next_text(body, at) if fields or at > cut else cut + 1


def is_forward(body: Body, cut: int, end: int) -> bool:
    """True when the header lines `cut..end` open a forwarded message."""
    return any(q.forward_banner(line) for line in body.bare[cut:end])


def next_text(body: Body, at: int) -> int:
    while at < len(body.bare) and not body.bare[at].strip() and not body.depths[at]:
        at += 1
    return at
