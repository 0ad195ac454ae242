"""A page measured as a tree of boxes: block elements with their text and link counts.

`measure(body, hints, strip)` walks the DOM once (Lexbor's child and sibling
links, an explicit stack) and returns its block-level elements (`Box`), in
document order, parents first. Inline elements are transparent: their text
counts for the box they are in. Each box knows the characters of text directly
in it (`direct`), of that inside links, and its commas; `totals` then sums them
over each subtree. Hidden elements, form controls, and (with `strip`) elements
whose hints or roles mark them as unlikely content are left out of the boxes
and listed in `Measured.cut`, with why.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from indexer.formats.html import dom
from indexer.formats.html.dom import KINDS, LINK, SKIP, TEXT
from indexer.formats.html.hints import HIDDEN, UNLIKELY, Hint, Hints

_PROBE = LexborHTMLParser("")


def tag_ids(names: str) -> frozenset[int]:
    """Lexbor's tag ids of the space-separated element `names`."""
    return frozenset(_PROBE.create_node(name).tag_id for name in names.split())


def tag_id(name: str) -> int:
    """Lexbor's tag id of element `name`."""
    return _PROBE.create_node(name).tag_id


_BOX_KINDS = frozenset(
    (dom.BLOCK, dom.HEADING, dom.PRE, dom.QUOTE, dom.TABLE, dom.PART, dom.ROW, dom.CELL)
)
_BOX_KINDS |= {dom.CAPTION, dom.LIST, dom.ORDERED, dom.ITEM}
_CONTROLS = tag_ids("button input textarea")
_CUT_TAGS = tag_ids("nav aside footer")
"""Cut with the unlikely ones: navigation, side matter and footers."""
_TABLE = tag_id("table")


class Box:
    """A block element and the text measured in it."""

    __slots__ = (
        "all_commas", "children", "cls", "commas", "direct", "dlinks", "flags", "links", "node",
        "parent", "score", "state", "tag", "text", "weight",
    )  # fmt: skip

    def __init__(self, node: LexborNode, parent: Box | None, tag: int, hint: Hint | None) -> None:
        self.node = node
        self.parent = parent
        self.tag = tag
        self.children: list[Box] = []
        self.direct = self.dlinks = self.commas = 0
        self.text = self.links = self.all_commas = 0
        self.flags, self.weight, self.cls = hint if hint is not None else (0, 0, "")
        self.score = 0.0
        self.state = 0


class Measured:
    """The boxes of a page, parents first, and what the walk cut out, with why."""

    __slots__ = ("boxes", "cut")

    def __init__(self, boxes: list[Box], cut: list[tuple[LexborNode, Box, str]]) -> None:
        self.boxes = boxes
        self.cut = cut
        """(element, the box it was in, why): hidden, a control, or unlikely content."""


_INLINE, _BOX, _LINK = 0, 1, 2


def measure(body: LexborNode, hints: Hints, strip: bool) -> Measured:
    """Measure `body`'s subtree (see the module docstring). Never raises."""
    kinds = KINDS
    read = hints.read
    root = box = Box(body, None, body.tag_id, None)
    boxes = [root]
    cut: list[tuple[LexborNode, Box, str]] = []
    stack: list[tuple[int, LexborNode]] = []
    links = tables = 0
    node = body.first_child
    while node is not None:
        tag = node.tag_id
        kind = kinds.get(tag, 0)
        action = -1
        if kind == TEXT:
            if not node.is_empty_text_node:
                text = node.text_content or ""
                size = len(text.strip())
                box.direct += size
                if links:
                    box.dlinks += size
                box.commas += text.count(",") + text.count("，")
        elif kind in _BOX_KINDS:
            attrs = node.attributes
            hint = read(attrs) if attrs else None
            why = _why_cut(tag, hint, strip and not tables)
            if why:
                cut.append((node, box, why))
            else:
                box = Box(node, box, tag, hint)
                box.parent.children.append(box)  # type: ignore[union-attr]
                boxes.append(box)
                tables += tag == _TABLE
                action = _BOX
        elif kind == LINK:
            links += 1
            action = _LINK
        elif kind != SKIP:
            if tag in _CONTROLS:
                cut.append((node, box, "control"))
            else:
                action = _INLINE
        if action >= 0:
            child = node.first_child
            if child is not None:
                stack.append((action, node))
                node = child
                continue
            if action == _BOX:
                tables -= box.tag == _TABLE
                box = box.parent  # type: ignore[assignment]
            elif action == _LINK:
                links -= 1
        while True:
            after = node.next
            if after is not None or not stack:
                node = after
                break
            action, node = stack.pop()
            if action == _BOX:
                tables -= box.tag == _TABLE
                box = box.parent  # type: ignore[assignment]
            elif action == _LINK:
                links -= 1
    return Measured(boxes, cut)


def _why_cut(tag: int, hint: Hint | None, strip: bool) -> str:
    if hint is not None:
        if hint[0] & HIDDEN:
            return "hidden"
        if strip and hint[0] & UNLIKELY:
            return "unlikely"
    if strip and tag in _CUT_TAGS:
        return "navigation or side matter"
    return ""


def totals(boxes: list[Box]) -> None:
    """Sum each box's text, link text and commas over its subtree (children last in `boxes`)."""
    for box in boxes:
        box.text = box.direct
        box.links = box.dlinks
        box.all_commas = box.commas
    for box in reversed(boxes):
        parent = box.parent
        if parent is not None:
            parent.text += box.text
            parent.links += box.links
            parent.all_commas += box.all_commas
