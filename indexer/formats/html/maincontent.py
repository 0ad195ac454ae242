"""Main content of a web page: which element holds the article, and what to drop from it.

`find_main(tree)` measures the page (`boxes`) and scores its blocks the way
reader views do. Each paragraph-like box of 25+ characters scores for its
ancestors (more for commas and length, less the further up), class and id hints
and the tag add or take away, and link-heavy boxes lose in proportion to their
links. The best box is the article; it widens to an ancestor that holds several
near-best boxes (a listing) or scores better, and takes in siblings that score
well or read as prose. Inside it, link-heavy or boilerplate-named blocks, share
bars and side matter are dropped. Returns None when no confident article is
found (less than `MIN_CHARS` of text kept, even without the hint-based cut):
then the caller renders the whole page.
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from indexer.formats.html import dom
from indexer.formats.html.boxes import Box, Measured, measure, tag_id, tag_ids, totals
from indexer.formats.html.hints import BYLINE, SHARE, Hints, hidden_elements

MIN_CHARS = 500
"""Less text than this kept means no confident article..."""
SHORT_PAGE_SHARE = 0.8
"""...unless it is this share of a short page's visible text, at least."""

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
_ROWS = tag_ids("tr tbody thead tfoot")
_TABLE = tag_id("table")
_LISTS = tag_ids("ul ol")
_CLEANED = tag_ids("form fieldset table ul div")
_SIDE = tag_ids("nav aside footer")
_TITLES = tag_ids("h1 h2")
_KEEP, _DROP = 1, 2


@dataclass(slots=True)
class Main:
    """The element to render as the page's main content, and what to remove first."""

    root: LexborNode | None
    """None when no confident article was found: render the whole page."""
    drops: list[tuple[LexborNode, str]]
    """Elements inside `root` to remove before rendering, with why (they may nest)."""
    byline: str | None = None
    """The text of the first short element marked as a byline (a class, `rel=author`)."""


def find_main(tree: LexborHTMLParser) -> Main:
    """Return the page's main content; removes the elements the page hides from `tree`."""
    hidden = [(node, "hidden") for node in hidden_elements(tree)]
    for node, _ in hidden:
        node.decompose(recursive=False)  # unlinked, not freed: one may hold another
    body = tree.body
    if body is not None:
        hints = Hints()
        for strip in (True, False):
            main = _attempt(measure(body, hints, strip), strip)
            if main is not None:
                main.drops[:0] = hidden
                return main
    return Main(None, hidden)


def dropped_parts(tree: LexborHTMLParser) -> list[tuple[str, LexborNode]]:
    """What main-content extraction drops from `tree`, as (why, element), in order.

    The parts of the page outside the main content come after the parts dropped
    from inside it. Leaves the hidden elements removed from `tree`.
    """
    main = find_main(tree)
    parts = [(why, node) for node, why in main.drops]
    root = main.root
    body = tree.body
    while root is not None and body is not None and root.mem_id != body.mem_id:
        parent = root.parent
        if parent is None:
            break
        child = parent.first_child
        while child is not None:
            if child.mem_id != root.mem_id and child.is_element_node:
                parts.append(("outside the main content", child))
            child = child.next
        root = parent
    return parts


def _attempt(measured: Measured, strip: bool) -> Main | None:
    boxes = measured.boxes
    totals(boxes)
    top = _top(_candidates(boxes))
    if top is None:
        return None
    kept = _siblings(top) if top is not boxes[0] else [top]
    root = top if kept == [top] else top.parent
    assert root is not None
    drops: list[tuple[LexborNode, str]] = []
    if root is not top:
        drops.extend(_outside(root, kept))
    for box in kept:
        box.state = _KEEP
        _clean(box, drops)
    size = _kept_text(boxes, root, kept)
    if size < MIN_CHARS and (strip or size < SHORT_PAGE_SHARE * boxes[0].text):
        return None
    drops.extend((node, why) for node, box, why in measured.cut if box.state == _KEEP)
    return Main(root.node, drops, _byline(boxes))


def _byline(boxes: list[Box]) -> str | None:
    for box in boxes:
        if box.flags & BYLINE and 0 < box.text < 100:
            return " ".join(box.node.text(deep=True).split()) or None
    return None


def _candidates(boxes: list[Box]) -> list[Box]:
    found: list[Box] = []
    kinds = dom.KINDS
    for box in boxes:
        if box.direct < 25 or kinds.get(box.tag) not in _SCORED or box.tag == _H1:
            continue
        score = 2 + box.commas + min(box.direct // 100, 3)
        ancestor = box if box.children else box.parent
        for divider in _DIVIDERS:
            if ancestor is None:
                break
            if not ancestor.state:
                ancestor.state = -1
                ancestor.score = _TAG_WEIGHT.get(ancestor.tag, 0) + ancestor.weight
                found.append(ancestor)
            ancestor.score += score / divider
            ancestor = ancestor.parent
    for box in found:
        box.state = 0
        if box.text:
            box.score *= 1 - box.links / box.text
    return found


def _top(found: list[Box]) -> Box | None:
    if not found:
        return None
    ranked = sorted(found, key=lambda b: -b.score)[:5]
    top = ranked[0]
    near = [b for b in ranked[1:] if top.score > 0 and b.score / top.score >= 0.75]
    if len(near) >= 3:
        top = _common(top, near) or top
    top = _climb(top)
    while top.tag in _ROWS and top.parent is not None:
        top = top.parent
    parent = top.parent
    while parent is not None and parent.parent is not None and len(parent.children) == 1:
        top, parent = parent, parent.parent
    return top


def _common(top: Box, near: list[Box]) -> Box | None:
    """The nearest ancestor of `top` that holds three of `near`, below the body."""
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
    last = top.score
    floor = last / 3
    parent = top.parent
    while parent is not None and parent.parent is not None:
        if parent.score:
            if parent.score < floor:
                break
            if parent.score > last:
                return parent
            last = parent.score
        parent = parent.parent
    return top


def _siblings(top: Box) -> list[Box]:
    parent = top.parent
    if parent is None:
        return [top]
    threshold = max(10.0, top.score * 0.2)
    kept = []
    for sibling in parent.children:
        bonus = top.score * 0.2 if top.cls and sibling.cls == top.cls else 0.0
        scored = sibling.score and sibling.score + bonus >= threshold
        if sibling is top or scored or (sibling.tag == _P and _reads_as_prose(sibling)):
            kept.append(sibling)
    return kept


def _reads_as_prose(box: Box) -> bool:
    density = box.links / box.text if box.text else 0.0
    if box.text > 80:
        return density < 0.25
    return box.text > 0 and density == 0 and _ends_sentence(box.node)


def _ends_sentence(node: LexborNode) -> bool:
    text = node.text(deep=True).strip()
    return text.endswith(".") or ". " in text


def _outside(root: Box, kept: list[Box]) -> list[tuple[LexborNode, str]]:
    """Children of `root` other than the `kept` boxes (and its own text when short)."""
    mem = {b.node.mem_id for b in kept}
    prose = root.direct > 80 and root.dlinks < 0.25 * root.direct
    drops = []
    child = root.node.first_child
    while child is not None:
        if child.mem_id not in mem and not (prose and child.is_text_node):
            drops.append((child, "outside the main content"))
        child = child.next
    return drops


def _clean(top: Box, drops: list[tuple[LexborNode, str]]) -> None:
    pending = list(reversed(top.children))
    while pending:
        box = pending.pop()
        why = _why_drop(box)
        if why:
            box.state = _DROP
            drops.append((box.node, why))
            continue
        box.state = _KEEP
        pending.extend(reversed(box.children))


def _why_drop(box: Box) -> str:
    tag = box.tag
    if tag in _SIDE:
        return "navigation or side matter"
    if box.flags & SHARE and box.text < 500:
        return "share bar"
    if tag in _TITLES and box.weight < 0:
        return "boilerplate heading"
    if tag not in _CLEANED or (tag == _TABLE and _data_table(box)):
        return ""
    if box.weight < 0:
        return "boilerplate class"
    if box.all_commas >= 10:
        return ""
    density = box.links / box.text if box.text else 0.0
    listy = tag in _LISTS or _list_text(box) > 0.9 * box.text
    if not listy and box.weight < 25 and density > 0.2:
        return "link-dense"
    if box.weight >= 25 and density > 0.5:
        return "link-dense"
    if not listy and box.text < 25 and density > 0:
        return "short and linked"
    return ""


def _data_table(box: Box) -> bool:
    rows = sum(len(part.children) if part.tag in _ROWS else 1 for part in box.children)
    return rows >= 10 or any(c.tag == tag_id("th") for p in box.children for c in p.children)


def _list_text(box: Box) -> int:
    size = 0
    pending = list(box.children)
    while pending:
        child = pending.pop()
        if child.tag in _LISTS:
            size += child.text
        else:
            pending.extend(child.children)
    return size


def _kept_text(boxes: list[Box], root: Box, kept: list[Box]) -> int:
    size = root.direct if root is not kept[0] or len(kept) > 1 else 0
    for box in boxes:
        parent = box.parent
        if box.state == 0 and parent is not None and parent.state == _KEEP:
            box.state = _KEEP
        if box.state == _KEEP:
            size += box.direct
    return size
