"""The signature and disclaimer lines in a run of a sender's own lines (`quotes.passages`).

A run is the own text between two quotes, or before the first or after the last. In it:
everything after a `-- ` delimiter (at most `_SIGNATURE_LINES` lines), a mobile client's
one-line signature, a sign-off line (`Best regards,`) and the few short lines after it,
a last paragraph of short lines with a phone number, address or link (a contact block),
and paragraphs in a disclaimer's words. A run's first line is never a sign-off: a reply
of only `Thanks!` is its sender's text.
"""

from __future__ import annotations

import bisect
from itertools import compress, repeat
from typing import Literal

from indexer.formats.eml import quotelines as q

__all__ = ["own_roles"]

Role = Literal["signature", "disclaimer"]

_SIGNATURE_LINES = 20
"""Lines after a `-- ` delimiter taken for the signature; longer, it is text."""
_AFTER_SIGN_OFF = 6
"""Short lines a sign-off may have after it (a name, a title, a phone number)."""
_DISCLAIMER_PARAGRAPHS = 3
"""The last paragraphs of a run looked at for a disclaimer (which closes a message)."""
_SHORT = 80
_CONTACT_LINES = (2, 8)
_DELIMITER_STARTS = ("--", "__", "—")
"""What a line `quotelines.signature_delimiter` takes starts with."""


def own_roles(lines: list[str], *, lead: bool = True) -> dict[int, Role]:
    """Return the offsets of `lines` (a run of own lines, blanks included, each blank line
    empty: `""`) that are not the sender's text, with their role; blank lines are never
    named. `lead`: the run opens the body, so its first paragraph is text (a body of only
    a notice is its text)."""
    roles: dict[int, Role] = {}
    filled = list(compress(range(len(lines)), lines))  # the lines with text
    end = len(lines)
    for n in _delimiters(lines, filled):
        after = filled[bisect.bisect_left(filled, n) :]
        if len(after) <= _SIGNATURE_LINES + 1:
            roles.update(dict.fromkeys(after, "signature"))
            end = n
        break
    kept = filled[: bisect.bisect_left(filled, end)]
    tail = _last_paragraphs(kept, _DISCLAIMER_PARAGRAPHS + 1)
    # `tail` holds every paragraph when it holds fewer than it may
    for paragraph in tail[lead:] if len(tail) <= _DISCLAIMER_PARAGRAPHS else tail[1:]:
        if q.disclaimer(" ".join(lines[paragraph[0] : paragraph[-1] + 1])):
            roles.update(dict.fromkeys(paragraph, "disclaimer"))
    while kept and roles.get(kept[-1]) == "disclaimer":  # the signature comes before it
        kept.pop()
    if kept:  # the lines up to the last kept one with text are kept: one pass in C
        for n in compress(range(kept[-1] + 1), map(q.MOBILE.match, lines)):
            if len(lines[n]) < q.MOBILE_LENGTH:
                roles[n] = "signature"
    roles.update(_sign_off(lines, kept))
    if not any(roles.get(n) for n in kept[-1:]):
        roles.update(_contact_block(lines, _last_paragraphs(kept, 2)))
    return roles


def _delimiters(lines: list[str], filled: list[int]) -> list[int]:
    """The lines of `filled` that may be a signature delimiter (`-- `), in order: only
    a line starting with a dash, an underscore or a dash of its own is tested, and only
    in a run where one does (most have none: one pass in C finds that)."""
    if not any(map(str.startswith, lines, repeat(_DELIMITER_STARTS))):
        return []
    return [
        n
        for n in filled
        if lines[n].startswith(_DELIMITER_STARTS) and q.signature_delimiter(lines[n])
    ]


def _sign_off(lines: list[str], kept: list[int]) -> dict[int, Role]:
    """The sign-off line nearest the end with only a few short lines after it, and those."""
    last = len(kept) - 1
    for at in range(last, max(last - _AFTER_SIGN_OFF, 0) - 1, -1):
        if at < last and len(lines[kept[at + 1]].strip()) >= _SHORT:
            return {}  # the lines after `at` are short: the ones after `at + 1` were
        if at and q.sign_off(lines[kept[at]]):
            return dict.fromkeys(kept[at:], "signature")
    return {}


def _contact_block(lines: list[str], paragraphs: list[list[int]]) -> dict[int, Role]:
    """The last of `paragraphs`, when it is a few short lines with contact details in them."""
    if len(paragraphs) < 2:
        return {}
    last = paragraphs[-1]
    low, high = _CONTACT_LINES
    texts = [lines[n].strip() for n in last]
    if not low <= len(texts) <= high or any(len(t) >= _SHORT or "\t" in t for t in texts):
        return {}
    if any(len(t) > 60 and t.endswith(".") for t in texts):
        return {}  # sentences: text, not a card
    if any(lines[n][:1].isspace() for n in last) or any(t.endswith(":") for t in texts):
        return {}  # indented or introducing something: a listing (a bounce), not a card
    if not any(q.contact_line(t) for t in texts):
        return {}
    return dict.fromkeys(last, "signature")


def _last_paragraphs(kept: list[int], most: int) -> list[list[int]]:
    """The last `most` paragraphs of `kept` (runs with no blank line between), in order;
    all of them when there are fewer. Only the tail is read: a run may be long."""
    out: list[list[int]] = []
    at = len(kept) - 1
    while at >= 0 and len(out) < most:
        first = at
        while first and kept[first - 1] == kept[first] - 1:
            first -= 1
        out.append(kept[first : at + 1])
        at = first - 1
    out.reverse()
    return out
