"""Which box of a measured page is the article: scored the way reader views score them.

Each paragraph-like box with 25+ characters of its own text scores for up to five
ancestors: 2, plus its commas, plus a point per 100 characters (three at most),
divided by 1, 2, 6, 9, 12 as the ancestor is further up. An ancestor starts from
its tag's weight (a `div` +5, a list or form -3, a heading -5) and its class and id
hints (+-25), and ends scaled by the share of its text that is not link text. The
best box is the article; it widens to the nearest ancestor holding three of the
runners-up within 3/4 of its score (a listing), to a scoring parent that beats
it, from a table row to its table, and past parents it is the only child of.
Then its siblings join it when they score a fifth of it (or 10) or read as prose.
"""

from __future__ import annotations

from indexer.formats.html import dom
from indexer.formats.html.boxes import Box, tag_id, tag_ids

_DIVIDERS = (1.0, 2.0, 6.0, 9.0, 12.0)
_SCORED = frozenset((dom.BLOCK, dom.PRE, dom.CELL, dom.HEADING))
_H1 = tag_id("h1")
_TAG_WEIGHT = {
    **dict.fromkeys(tag_ids("div"), 5),
    **dict.fromkeys(tag_ids("pre td blockquote"), 3),
    **dict.fromkeys(tag_ids("address ol ul dl dd dt li form"), -3),
    **dict.fromkeys(tag_ids("h1 h2 h3 h4 h5 h6 th"), -5),
}
_P = tag_id("p")
ROWS = tag_ids("tr tbody thead tfoot")


def article(boxes: list[Box]) -> list[Box] | None:
    """The boxes that make the article, siblings in document order; None if nothing scores.

    `boxes` are a page's, parents first, with their subtree totals.
    """
    top = _top(_scored(boxes))
    if top is None:
        return None
    return _with_siblings(top) if top.parent is not None else [top]


def _scored(boxes: list[Box]) -> list[Box]:
    """Score the candidates (see the module docstring); return them."""
    found: list[Box] = []
    kinds = dom.KINDS
    for box in boxes:
        if box.direct < 25 or kinds.get(box.tag) not in _SCORED or box.tag == _H1:
            continue
        points = 2 + box.commas + min(box.direct // 100, 3)
        # Text beside child boxes is a paragraph of its own box; a leaf's, of its parent's.
        ancestor = box if box.children else box.parent
        for divider in _DIVIDERS:
            if ancestor is None:
                break
            if not ancestor.candidate:
                ancestor.candidate = True
                ancestor.score = _TAG_WEIGHT.get(ancestor.tag, 0) + ancestor.weight
                found.append(ancestor)
            ancestor.score += points / divider
            ancestor = ancestor.parent
    for box in found:
        if box.text:
            box.score *= 1 - box.links / box.text
    return found


def _top(found: list[Box]) -> Box | None:
    if not found:
        return None
    ranked = sorted(found, key=lambda b: -b.score)[:5]
    top = ranked[0]
    near = [b for b in ranked[1:] if top.score > 0 and b.score >= 0.75 * top.score]
    if len(near) >= 3:
        top = _holding_three(top, near) or top
    top = _climb(top)
    while top.tag in ROWS and top.parent is not None:
        top = top.parent
    parent = top.parent
    while parent is not None and parent.parent is not None and len(parent.children) == 1:
        top, parent = parent, parent.parent
    return top


def _holding_three(top: Box, near: list[Box]) -> Box | None:
    """The nearest ancestor of `top` (below the body) that holds three of `near`."""
    lines = [set(map(id, _ancestors(b))) for b in near]
    for ancestor in _ancestors(top):
        if ancestor.parent is None:
            return None
        if sum(id(ancestor) in line for line in lines) >= 3:
            return ancestor
    return None


def _ancestors(box: Box) -> list[Box]:
    found = []
    parent = box.parent
    while parent is not None:
        found.append(parent)
        parent = parent.parent
    return found


def _climb(top: Box) -> Box:
    """The first scored ancestor (below the body) that beats `top`'s score, while the
    scores on the way stay above a third of it; else `top`."""
    last = top.score
    floor = last / 3
    parent = top.parent
    while parent is not None and parent.parent is not None:
        if parent.candidate:
            if parent.score < floor:
                break
            if parent.score > last:
                return parent
            last = parent.score
        parent = parent.parent
    return top


def _with_siblings(top: Box) -> list[Box]:
    parent = top.parent
    assert parent is not None
    threshold = max(10.0, top.score * 0.2)
    kept = []
    for sibling in parent.children:
        bonus = top.score * 0.2 if top.cls and sibling.cls == top.cls else 0.0
        scores = sibling.candidate and sibling.score + bonus >= threshold
        if sibling is top or scores or (sibling.tag == _P and _reads_as_prose(sibling)):
            kept.append(sibling)
    return kept


def _reads_as_prose(box: Box) -> bool:
    """A paragraph of 80+ characters under a quarter links, or a shorter sentence without."""
    density = box.links / box.text if box.text else 0.0
    if box.text > 80:
        return density < 0.25
    if box.text == 0 or density > 0:
        return False
    text = box.node.text(deep=True).strip()
    return text.endswith(".") or ". " in text
