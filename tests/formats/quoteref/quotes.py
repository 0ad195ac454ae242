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

from dataclasses import dataclass

from indexer._text import normalize_newlines
from tests.formats.quoteref import quotecuts as c
from tests.formats.quoteref import quotelines as q
from tests.formats.quoteref.quotecuts import Body, Kind, Label
from tests.formats.quoteref.signatures import own_roles

__all__ = ["Kind", "Passage", "full_passages", "is_forward_subject", "passages"]

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


def passages(text: str, *, forward: bool = False) -> tuple[Passage, ...]:
    """Return the passages of the body `text`, in order; never raises.

    `forward`: the message's subject says it is a forward (`Fwd:`, `WG:`, ...), so its
    first quoted-message header block starts forwarded text, not quoted text. Equal to
    `full_passages(text)`, but a body with no `>` line and no line that may start a
    quoted message (one search of the whole body, `quotelines.may_cut_anywhere`) is
    only looked at for its signature: most mail quotes nothing.
    """
    text = normalize_newlines(text)
    body = c.parse(text)
    quoting = any(body.depths)
    if quoting or q.may_cut_anywhere(text):
        candidates = c.candidates(body)
        cut = c.next_cut(body, candidates, 0)
        if quoting or cut is not None:
            _label(body, candidates, cut, forward)
            return _passages(body)
    _label_own(body)
    return _passages(body)


def full_passages(text: str, *, forward: bool = False) -> tuple[Passage, ...]:
    """Return what `passages` does, with every body read line by line (no pre-scan)."""
    body = c.parse(normalize_newlines(text))
    candidates = c.candidates(body)
    _label(body, candidates, c.next_cut(body, candidates, 0), forward)
    return _passages(body)


def _label(body: Body, candidates: list[int], cut: int | None, forward: bool) -> None:
    """Label every line of `body`, whose first quoted message starts at `cut` (None: none)."""
    context: Kind = "own"
    base = pos = 0
    while True:
        _label_body(body, pos, len(body.bare) if cut is None else cut, context, base)
        if cut is None:
            return
        pos = c.header_end(body, cut)
        forwarded = context != "quoted" and (
            c.is_forward(body, cut, pos) or (forward and context == "own")
        )
        context = "forwarded" if forwarded else "quoted"
        base = base if forwarded else base + 1
        body.labels[cut:pos] = [(context, base, True)] * (pos - cut)
        if pos >= len(body.bare):
            return
        cut = c.next_cut(body, candidates, pos)


def _label_own(body: Body) -> None:
    """Label a body without quotes or quoted messages as `_label_body` would (its lines
    the sender's, but for its signature and disclaimer), without its per-line tests."""
    bare, labels = body.bare, body.labels
    bare[:] = [line if line.strip() else "" for line in bare]
    filled = [at for at, line in enumerate(bare) if line]
    if not filled:
        return
    mine: Label = ("own", 0, False)
    for at in filled:
        labels[at] = mine
    first = filled[0]
    for offset, role in own_roles(bare[first : filled[-1] + 1], lead=True).items():
        labels[first + offset] = (role, 0, False)


def _label_body(body: Body, start: int, end: int, context: Kind, base: int) -> None:
    """Label lines `start..end` of a message's body: its own lines `context` (`own`,
    `forwarded`, or all `quoted`), its `>` lines quoted a level deeper per marker."""
    depths, bare, labels = body.depths, body.bare, body.labels
    own: list[int] = []
    above = -1  # the last line with text
    for at in range(start, end):
        line = bare[at]
        if not line.strip():
            if line:  # kept as an empty line of the passage it is in
                bare[at] = ""
            continue
        depth = depths[at]
        if depth:
            labels[at] = ("quoted", base + depth, False)
            if above >= 0 and depths[above] < depth:  # the first line of a deeper quote
                _attribution_before(body, above, start, base + depth)
        elif context == "quoted":
            labels[at] = ("quoted", base, False)
        else:
            own.append(at)
        above = at
    if not own:
        return
    mine: Label = (context, base, False)
    for at in own:
        if labels[at] is not None:  # an attribution line, the header of the quote below
            continue
        if at and len(bare[at]) <= _WRAPPED and labels[at - 1] is not None:
            labels[at] = _rewrapped(body, at) or mine
        else:
            labels[at] = mine
    for first, last in _runs(body, [at for at in own if labels[at] == mine]):
        lead = first == c.next_text(body, start)  # the run opens the message's body
        for offset, role in own_roles(bare[first : last + 1], lead=lead).items():
            labels[first + offset] = (role, base, False)


def _rewrapped(body: Body, at: int) -> Label | None:
    """The label of the quote around the short line `at` when it is a quoted line's tail
    that a client wrapped without its `>` (a long quoted line above, quoted lines of one
    depth just above and below); else None."""
    above = body.labels[at - 1]
    if at + 1 >= len(body.bare) or len(body.bare[at - 1]) < _WRAP_WIDTH:
        return None  # a short line above was not wrapped
    if above is None or above[0] != "quoted" or above[2]:
        return None
    if body.depths[at + 1] != body.depths[at - 1]:
        return None
    return above if body.bare[at + 1].strip() else None


def _attribution_before(body: Body, above: int, start: int, level: int) -> None:
    """Mark the attribution line(s) `above` (the line with text above a deeper quote)
    as the quote's header, at `level`."""
    labels, bare = body.labels, body.bare
    if above < start or (labels[above] or ("", 0, False))[2]:
        return
    line = bare[above]
    if not q.attribution(line):
        return
    labels[above] = ("quoted", level, True)
    before = above - 1
    wrapped = before >= start and body.depths[before] == body.depths[above]
    if wrapped and q.attribution_start(bare[before]) and not q.attribution_start(line):
        labels[before] = ("quoted", level, True)


def _runs(body: Body, indexes: list[int]) -> list[tuple[int, int]]:
    """`indexes` as (first, last) runs with nothing but blank unquoted lines between."""
    runs: list[tuple[int, int]] = []
    for at in indexes:
        if runs:
            gap = slice(runs[-1][1] + 1, at)
            blank = body.labels[gap].count(None) == at - gap.start  # labels: text lines only
            if blank and not any(body.depths[gap]):
                runs[-1] = (runs[-1][0], at)
                continue
        runs.append((at, at))
    return runs


def _passages(body: Body) -> tuple[Passage, ...]:
    """The runs of lines of one label (blank lines joining the run they are in)."""
    out: list[Passage] = []
    current: Label | None = None
    first = last = 0
    for at, label in enumerate(body.labels):
        if label is None:
            continue
        if label != current:
            if current is not None:
                out.extend(_passage(current, body, first, last + 1))
            current, first = label, at
        last = at
    if current is not None:
        out.extend(_passage(current, body, first, last + 1))
    return tuple(out)


def _passage(label: Label, body: Body, start: int, end: int) -> list[Passage]:
    """The passage of lines `start..end` (their first and last labelled `label`)."""
    kind, depth, header = label
    if header:  # a header block's blank lines are labelled too, and kept as they are
        lines = body.bare[start:end]
        marks = body.labels[start:end]
        text = "\n".join(line if mark else "" for line, mark in zip(lines, marks, strict=True))
    else:  # every line with text is labelled: the others are blank, emptied by `_label_body`
        text = "\n".join(body.bare[start:end])
    if q.CUT in text:
        text = text.replace(q.CUT, "")
    text = text.strip("\n")
    if not text.strip():
        return []
    return [Passage(kind=kind, text=text, depth=depth, header=header)]


def is_forward_subject(subject: str) -> bool:
    """True for a subject that says its message forwards another (`Fwd:`, `WG:`, `TR:` ...)."""
    head = subject.strip().lstrip("[(").lower()  # Thunderbird's `[Fwd: x]`
    for prefix in _FORWARD_PREFIXES:
        if head.startswith(prefix) and head[len(prefix) : len(prefix) + 1] in (":", "：", "["):
            return True
    return False
