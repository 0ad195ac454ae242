"""One mail body split into what its sender wrote and what it quotes, forwards or signs.

`passages(text)` reads a plain-text body (an HTML body as the html extractor renders it
after `quotehtml.mark`: blockquotes as `>` lines) and returns typed `Passage`s in body
order, covering every non-blank line once. What it recognises, by style rather than by client:

- `>` quoting, at any depth, top-, bottom-posted or interleaved with new text; the
  attribution line before it (`On <date>, <name> wrote:`, `Am ... schrieb ...:`, a
  Gmail ja/zh date line), on one line or wrapped over two, is the quote's `header`;
- a quoted message that starts at a line and runs to the end: Outlook's
  `-----Original Message-----`, a rule of underscores, a `From:` / `Sent:` header block
  (on one line or several, in many languages), the HTML reader's `CUT` token; each
  nested one a level deeper;
- a forwarded message: a banner (`---------- Forwarded message ---------`,
  `Begin forwarded message:`, translations) or, in a message whose own subject is a
  forward (`forward=True`), its first header block. Its text is `forwarded`, not quoted:
  it is content the sender passes on, whose original is usually not in the archive;
- the sender's signature: after a `-- ` delimiter, a mobile client's one-line
  signature, a sign-off followed by a few short lines, a trailing contact block;
  and legal disclaimers.

Quoted text comes normalised: its `>` markers stripped, nothing else changed. Pure and
linear in the body's size: no recursion, so 10,000 nested messages cost no stack.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Literal

from indexer._text import normalize_newlines
from indexer.formats.eml import quotelines as q
from indexer.formats.eml.signatures import own_roles

__all__ = ["Kind", "Passage", "is_forward_subject", "passages"]

Kind = Literal["own", "quoted", "forwarded", "signature", "disclaimer"]

_HEADER_WINDOW = 8
"""Lines after a `From:` line within which its `Sent:`/`Date:` line must come."""
_HEADER_LINES = 24
"""The longest header block read (long `To:` lists wrap)."""
_WRAPPED = 30
"""The longest unquoted line taken for the wrapped tail of the quoted line above it..."""
_WRAP_WIDTH = 60
"""...which is at least this long (a client wraps at 72 to 80 characters)."""
_FORWARD_PREFIXES = ("fw", "fwd", "wg", "tr", "rv", "i", "vs", "doorst", "enc", "转发", "転送")


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A run of a body's lines that play one role."""

    kind: Kind
    """`own` (the sender's new text), `quoted`, `forwarded` (a forwarded message's
    text), `signature` or `disclaimer` (the sender's, or a forwarded message's)."""
    text: str
    """The lines, `>` markers stripped, joined by newlines; never blank."""
    depth: int = 0
    """Quote nesting: 0 for the sender's and forwarded text, 1 for what it quotes, ..."""
    header: bool = False
    """An attribution line or header block, introducing the quoted or forwarded text after it."""


_Label = tuple[Kind, int, bool]


def passages(text: str, *, forward: bool = False) -> tuple[Passage, ...]:
    """Return the passages of the body `text`, in order; never raises.

    `forward`: the message's subject says it is a forward (`Fwd:`, `WG:`, ...), so its
    first quoted-message header block starts forwarded text, not quoted text.
    """
    lines = normalize_newlines(text).split("\n")
    depth = q.quote_depth
    parsed = [depth(line) if ">" in line else (0, line) for line in lines]
    # the lines that may start a quoted message, looked at once each
    candidates = [at for at, (d, line) in enumerate(parsed) if not d and q.may_cut(line)]
    labels: list[_Label | None] = [None] * len(lines)
    context: Kind = "own"
    base = pos = 0
    while pos < len(lines):
        cut = _next_cut(parsed, candidates, pos)
        end = len(lines) if cut is None else cut
        _label_body(parsed, pos, end, context, base, labels)
        if cut is None:
            break
        pos = _header_end(parsed, cut)
        forwarded = context != "quoted" and (
            _is_forward(parsed, cut, pos) or (forward and context == "own")
        )
        context = "forwarded" if forwarded else "quoted"
        base = base if forwarded else base + 1
        for at in range(cut, pos):
            labels[at] = (context, base, True)
    return _passages(parsed, labels)


def _next_cut(parsed: list[tuple[int, str]], candidates: list[int], pos: int) -> int | None:
    """The first line from `pos` where a quoted or forwarded message starts, else None;
    only `candidates` (in order) are looked at."""
    for n in range(bisect.bisect_left(candidates, pos), len(candidates)):  # no copy: 10,000 cuts
        at = candidates[n]
        line = parsed[at][1]
        if q.CUT in line or q.forward_banner(line) or q.header_line(line):
            return at
        if q.reply_separator(line) and (
            not line.strip().startswith("_") or _header_start(parsed, _next_text(parsed, at + 1))
        ):
            return at
        if _header_start(parsed, at):
            return at
    return None


def _header_start(parsed: list[tuple[int, str]], at: int) -> bool:
    """True when line `at` is the `From:` line of a header block: a `Sent:`/`Date:` line
    follows, or (Lotus Notes, the date on the `From:` line) `To:` and `Subject:` lines."""
    if at >= len(parsed) or parsed[at][0] or parsed[at][1][:1].isspace():
        return False  # an indented block is a listing (a bounce's copy of the headers)
    if q.header_field(parsed[at][1]) != "from":
        return False
    window = parsed[at + 1 : at + 1 + _HEADER_WINDOW]
    seen = set()
    for depth, line in window:
        if depth or not line.strip():
            break
        seen.add(q.header_field(line))
        if "sent" in seen or {"to", "subject"} <= seen:
            return True
    return False


def _header_end(parsed: list[tuple[int, str]], cut: int) -> int:
    """The line after the header lines that start at `cut` (banner, rule, fields, blanks)."""
    at = cut
    line = parsed[at][1]
    if q.CUT in line or q.forward_banner(line) or q.reply_separator(line):
        at = _next_text(parsed, at + 1)
    if at < len(parsed) and q.header_line(parsed[at][1]):
        return _next_text(parsed, at + 1)
    fields = 0
    last = at + _HEADER_LINES
    while at < min(len(parsed), last):
        depth, line = parsed[at]
        if depth or not line.strip():
            break
        if q.header_field(line) is None and (fields == 0 or ":" in line[:30]):
            break  # a continuation (a wrapped `To:` list) has no field name of its own
        fields += 1
        at += 1
    return _next_text(parsed, at) if fields or at > cut else cut + 1


def _is_forward(parsed: list[tuple[int, str]], cut: int, end: int) -> bool:
    """True when the header lines `cut..end` open a forwarded message."""
    return any(q.forward_banner(line) for _, line in parsed[cut:end])


def _next_text(parsed: list[tuple[int, str]], at: int) -> int:
    while at < len(parsed) and not parsed[at][1].strip() and not parsed[at][0]:
        at += 1
    return at


def _label_body(
    parsed: list[tuple[int, str]],
    start: int,
    end: int,
    context: Kind,
    base: int,
    labels: list[_Label | None],
) -> None:
    """Label lines `start..end` of a message's body: its own lines `context` (`own`,
    `forwarded`, or all `quoted`), its `>` lines quoted a level deeper per marker."""
    own: list[int] = []
    for at in range(start, end):
        depth, line = parsed[at]
        if not line.strip():
            continue
        if depth:
            labels[at] = ("quoted", base + depth, False)
            _attribution_before(parsed, at, start, labels, base)
        elif context == "quoted":
            labels[at] = ("quoted", base, False)
        else:
            own.append(at)
    for at in own:
        if labels[at] is None:
            labels[at] = _rewrapped(parsed, at, labels) or (context, base, False)
    for first, last in _runs(parsed, [at for at in own if labels[at] == (context, base, False)]):
        lines = [parsed[i][1] for i in range(first, last + 1)]
        lead = first == _next_text(parsed, start)  # the run opens the message's body
        for offset, role in own_roles(lines, lead=lead).items():
            labels[first + offset] = (role, base, False)


def _rewrapped(
    parsed: list[tuple[int, str]], at: int, labels: list[_Label | None]
) -> _Label | None:
    """The label of the quote around line `at` when it is a quoted line's tail that a
    client wrapped without its `>` (a short line after a long quoted one, quoted lines
    of one depth just above and below); else None."""
    if at == 0 or at + 1 >= len(parsed) or len(parsed[at][1]) > _WRAPPED:
        return None
    if len(parsed[at - 1][1]) < _WRAP_WIDTH:  # a short line above was not wrapped
        return None
    above, below = labels[at - 1], parsed[at + 1]
    if above is None or above[0] != "quoted" or above[2] or below[0] != parsed[at - 1][0]:
        return None
    return above if below[1].strip() else None


def _attribution_before(
    parsed: list[tuple[int, str]], at: int, start: int, labels: list[_Label | None], base: int
) -> None:
    """Mark the attribution line(s) just above the quoted line `at` as its header."""
    depth = parsed[at][0]
    above = at - 1
    while above >= start and not parsed[above][1].strip():
        above -= 1
    if above < start or parsed[above][0] >= depth or (labels[above] or ("", 0, False))[2]:
        return
    line = parsed[above][1]
    if not q.attribution(line):
        return
    level = base + depth
    labels[above] = ("quoted", level, True)
    before = above - 1
    wrapped = before >= start and parsed[before][0] == parsed[above][0]
    if wrapped and q.attribution_start(parsed[before][1]) and not q.attribution_start(line):
        labels[before] = ("quoted", level, True)


def _runs(parsed: list[tuple[int, str]], indexes: list[int]) -> list[tuple[int, int]]:
    """`indexes` as (first, last) runs with nothing but blank lines between."""
    runs: list[tuple[int, int]] = []
    for at in indexes:
        gap = range(runs[-1][1] + 1, at) if runs else range(0)
        if runs and all(not parsed[i][0] and not parsed[i][1].strip() for i in gap):
            runs[-1] = (runs[-1][0], at)
        else:
            runs.append((at, at))
    return runs


def _passages(parsed: list[tuple[int, str]], labels: list[_Label | None]) -> tuple[Passage, ...]:
    out: list[Passage] = []
    current: _Label | None = None
    lines: list[str] = []
    for (_, line), label in zip(parsed, labels, strict=True):
        if label is None:  # a blank line: part of the run it is in
            if lines:
                lines.append("")
            continue
        if label != current and lines:
            out.extend(_passage(current, lines))
            lines = []
        current = label
        lines.append(line.replace(q.CUT, "") if q.CUT in line else line)
    if lines:
        out.extend(_passage(current, lines))
    return tuple(out)


def _passage(label: _Label | None, lines: list[str]) -> list[Passage]:
    text = "\n".join(lines).strip("\n")
    if label is None or not text.strip():
        return []
    kind, depth, header = label
    return [Passage(kind=kind, text=text, depth=depth, header=header)]


def is_forward_subject(subject: str) -> bool:
    """True for a subject that says its message forwards another (`Fwd:`, `WG:`, `TR:` ...)."""
    head = subject.strip().lstrip("[(").lower()  # Thunderbird's `[Fwd: x]`
    for prefix in _FORWARD_PREFIXES:
        if head.startswith(prefix) and head[len(prefix) : len(prefix) + 1] in (":", "：", "["):
            return True
    return False
