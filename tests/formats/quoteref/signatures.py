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
from typing import Literal

from tests.formats.quoteref import quotelines as q

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
    """Return the offsets of `lines` (a run of own lines, blanks included) that are not the
    sender's text, with their role; blank lines are never named. `lead`: the run opens
    the body, so its first paragraph is text (a body of only a notice is its text)."""
    roles: dict[int, Role] = {}
    filled = [n for n, line in enumerate(lines) if line.strip()]
    end = len(lines)
    for n in _delimiters(lines, filled):
        after = filled[bisect.bisect_left(filled, n) :]
        if len(after) <= _SIGNATURE_LINES + 1:
            roles.update(dict.fromkeys(after, "signature"))
            end = n
        break
    kept = filled[: bisect.bisect_left(filled, end)]
    paragraphs = _paragraphs(kept)
    for paragraph in paragraphs[lead:][-_DISCLAIMER_PARAGRAPHS:]:
        if q.disclaimer(" ".join(lines[n] for n in paragraph)):
            roles.update(dict.fromkeys(paragraph, "disclaimer"))
    count = len(kept)
    while kept and roles.get(kept[-1]) == "disclaimer":  # the signature comes before it
        kept.pop()
    if len(kept) < count:
        paragraphs = _paragraphs(kept)
    for n in kept:
        if q.mobile_signature(lines[n]):
            roles[n] = "signature"
    roles.update(_sign_off(lines, kept))
    if not any(roles.get(n) for n in kept[-1:]):
        roles.update(_contact_block(lines, paragraphs))
    return roles


def _delimiters(lines: list[str], filled: list[int]) -> list[int]:
    """The lines of `filled` that may be a signature delimiter (`-- `), in order: only
    a line starting with a dash, an underscore or a dash of its own is tested."""
    return [
        n
        for n in filled
        if lines[n].startswith(_DELIMITER_STARTS) and q.signature_delimiter(lines[n])
    ]


def _sign_off(lines: list[str], kept: list[int]) -> dict[int, Role]:
    """The sign-off line nearest the end with only a few short lines after it, and those."""
    for at in range(len(kept) - 1, 0, -1):
        after = kept[at + 1 :]
        if len(after) > _AFTER_SIGN_OFF:
            return {}
        if any(len(lines[n].strip()) >= _SHORT for n in after):
            return {}
        if q.sign_off(lines[kept[at]]):
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


def _paragraphs(kept: list[int]) -> list[list[int]]:
    """`kept` grouped into paragraphs: runs with no blank line between."""
    out: list[list[int]] = []
    for n in kept:
        if out and n == out[-1][-1] + 1:
            out[-1].append(n)
        else:
            out.append([n])
    return out
