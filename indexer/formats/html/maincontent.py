"""Main content of a web page: the element that holds the article, and what to drop from it.

`find_main(tree)` measures the page (`boxes`) with what it hides, and navigation,
side matter and boxes named or given roles like boilerplate, left out, and
scores it for the article (`scoring`). Inside the article, side matter,
share bars, boilerplate-named headings and link-heavy or boilerplate-named
blocks (forms, tables that are not data, lists, divs) are dropped, as are form
controls and images whose alt text is a file name. Less than `MIN_CHARS` of text
kept is no confident article: the page is measured again with nothing left out
for its names, and if that keeps too little too (unless it is most of a short
page), there is no article: the caller renders the whole page.
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from indexer.formats.html.boxes import LISTS, Box, Measured, measure, tag_id, tag_ids
from indexer.formats.html.hints import BYLINE, SHARE, Hints
from indexer.formats.html.scoring import ROWS, article

MIN_CHARS = 500
"""Less text than this kept means no confident article..."""
SHORT_PAGE_SHARE = 0.8
"""...unless it is this share of the text of a short page, at least."""

_SIDE = tag_ids("nav aside footer")
_TITLES = tag_ids("h1 h2")
_CLEANED = tag_ids("form fieldset table ul div")
_TABLE = tag_id("table")
_TH = tag_id("th")
_HEADINGS = tag_ids("h1 h2 h3 h4 h5 h6")
_KEEP, _DROP = 1, 2
_OUTSIDE = "outside the main content"

Drops = list[tuple[LexborNode, str]]


@dataclass(slots=True)
class Main:
    """The element to render as the page's main content, and what to remove first."""

    root: LexborNode | None
    """None when no confident article was found: render the whole page."""
    drops: Drops
    """Elements to remove from `root` before rendering, with why (one may hold another)."""
    byline: str | None = None
    """The text of the first short element marked as a byline (by class, id or itemprop)."""


def find_main(tree: LexborHTMLParser) -> Main:
    """Return the page's main content; with no `root`, the hidden blocks to drop."""
    body = tree.body
    if body is None:
        return Main(None, [])
    hints = Hints()
    for strip in (True, False):
        measured = measure(body, hints, strip)
        main = _attempt(measured, strip)
        if main is not None:
            return main
    return Main(None, [(node, why) for node, _, why in measured.cut if why == "hidden"])


def dropped_parts(tree: LexborHTMLParser) -> list[tuple[str, LexborNode]]:
    """What `find_main` leaves out of `tree`, as (why, element): the parts dropped from
    the main content, then the parts of the page around it."""
    main = find_main(tree)
    parts = [(why, node) for node, why in main.drops]
    root, body = main.root, tree.body
    while root is not None and body is not None and root.mem_id != body.mem_id:
        parent = root.parent
        if parent is None:
            break
        child = parent.first_child
        while child is not None:
            if child.mem_id != root.mem_id and child.is_element_node:
                parts.append((_OUTSIDE, child))
            child = child.next
        root = parent
    return parts


def _attempt(measured: Measured, strip: bool) -> Main | None:
    boxes = measured.boxes
    kept = article(boxes)
    if kept is None:
        return None
    root = kept[0] if len(kept) == 1 else kept[0].parent
    assert root is not None
    drops: Drops = []
    size = 0
    if root is not kept[0]:
        size = _drop_around(root, kept, drops)
    for box in kept:
        box.state = _KEEP
        _clean(box, drops)
    size += sum(box.direct for box in boxes if box.state == _KEEP)
    if size < MIN_CHARS and (strip or size < SHORT_PAGE_SHARE * boxes[0].text):
        return None
    drops.extend((node, why) for node, box, why in measured.cut if box.state == _KEEP)
    return Main(root.node, drops, _byline(boxes))


def _drop_around(root: Box, kept: list[Box], drops: Drops) -> int:
    """Drop `root`'s children but the `kept` boxes, and its own text unless it reads as
    prose; return the characters of its own text kept."""
    keep = {box.node.mem_id for box in kept}
    prose = root.direct > 80 and root.direct_links < 0.25 * root.direct
    child = root.node.first_child
    while child is not None:
        if child.mem_id not in keep and not (prose and child.is_text_node):
            drops.append((child, _OUTSIDE))
        child = child.next
    return root.direct if prose else 0


def _clean(top: Box, drops: Drops) -> None:
    """Mark the boxes under `top` kept or dropped; add the outermost dropped to `drops`."""
    pending = list(reversed(top.children))
    while pending:
        box = pending.pop()
        why = _why_drop(box)
        if why:
            box.state = _DROP
            drops.append((box.node, why))
        else:
            box.state = _KEEP
            pending.extend(reversed(box.children))


def _why_drop(box: Box) -> str:
    tag = box.tag
    if tag in _SIDE:
        return "navigation or side matter"
    if box.flags & SHARE and box.text < 500:
        return "share bar"
    if tag in _TITLES and box.weight < 0:
        return "boilerplate heading (class or id)"
    if tag not in _CLEANED or (tag == _TABLE and _data_table(box)):
        return ""
    if box.weight < 0:
        return "boilerplate block (class or id)"
    if box.all_commas >= 10:
        return ""
    density = box.links / box.text if box.text else 0.0
    listy = tag in LISTS or box.listed > 0.9 * box.text
    if (density > 0.2 and box.weight < 25 and not listy) or (density > 0.5 and box.weight >= 25):
        return "mostly links"
    if box.text < 25 and density > 0 and not listy and not _only_headings(box):
        return "short and linked"
    return ""


def _data_table(box: Box) -> bool:
    """Ten rows or more, or a header cell: a table of data, not of layout."""
    rows = [row for part in box.children for row in (part.children if part.tag in ROWS else [part])]
    return len(rows) >= 10 or any(cell.tag == _TH for row in rows for cell in row.children)


def _only_headings(box: Box) -> bool:
    headings = sum(child.text for child in box.children if child.tag in _HEADINGS)
    return headings >= 0.9 * box.text


def _byline(boxes: list[Box]) -> str | None:
    for box in boxes:
        if box.flags & BYLINE and 0 < box.text < 100:
            return " ".join(box.node.text(deep=True).split()) or None
    return None
