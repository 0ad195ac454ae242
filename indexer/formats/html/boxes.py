"""A page measured as a tree of boxes: block elements with their text and link counts.

`measure(body, hints, strip)` walks the DOM once (Lexbor's child and sibling
links, an explicit stack) and returns its block-level elements (`Box`), in
document order, parents first. Inline elements are transparent: their text
counts for the box they are in. Each box knows the characters of text directly
in it, of that inside links, and its commas, and (filled in by the walk's end)
the same over its whole subtree. Form controls, images whose alt text is a file
name, boxes whose hints say hidden and (with `strip`) navigation, side matter
and boxes whose hints mark them as unlikely content are left out of the boxes
and listed in `Measured.cut`, with why.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from indexer.formats.html import dom
from indexer.formats.html.dom import IMG, KINDS, LINK, SKIP, TEXT
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
) | {dom.CAPTION, dom.LIST, dom.ORDERED, dom.ITEM}
_CONTROLS = tag_ids("button input textarea")
_SIDE = tag_ids("nav aside footer")
"""Cut with the unlikely boxes: navigation, side matter and footers."""
_TABLE = tag_id("table")
LISTS = tag_ids("ul ol")
_FILE_NAME = re.compile(r"(?i)\S+\.(?:jpe?g|png|gif|webp|bmp|tiff?|svg|avif|heic)|https?://\S+")
"""An image's alt text that only names its file (or its address) says nothing."""


class Box:
    """A block element and the text measured in it (in characters, whitespace trimmed)."""

    __slots__ = (
        "all_commas", "candidate", "children", "cls", "commas", "direct", "direct_links",
        "flags", "links", "listed", "node", "parent", "score", "state", "tag", "text", "weight",
    )  # fmt: skip

    def __init__(self, node: LexborNode, parent: Box | None, tag: int, hint: Hint | None) -> None:
        self.node = node
        self.parent = parent
        self.tag = tag
        self.children: list[Box] = []
        self.direct = self.direct_links = self.commas = 0
        """Text directly in this box (not in a child box): all, inside links, its commas."""
        self.text = self.links = self.all_commas = self.listed = 0
        """The same over the subtree, and the text inside its outermost lists."""
        self.flags, self.weight, self.cls = hint if hint is not None else (0, 0, "")
        self.score = 0.0
        self.candidate = False
        self.state = 0
        """Left to its users (`maincontent` marks what it keeps and drops)."""

    def count(self, text: str, linked: int) -> None:
        """Count a text node's `text` as directly in this box (inside a link if `linked`)."""
        size = len(text.strip())
        self.direct += size
        if linked:
            self.direct_links += size
        self.commas += text.count(",") if text.isascii() else _commas(text)

    def count_link(self, node: LexborNode) -> bool:
        """Count link `node` if it is the commonest, `<a>text</a>` (True), so that the
        walk need not descend into it."""
        child = node.first_child
        if child is None or child.next is not None or not child.is_text_node:
            return False
        size = len((child.text_content or "").strip())
        self.direct += size
        self.direct_links += size
        return True


Cut = tuple[LexborNode, Box, str]
"""An element cut out of the boxes: the element, the box it was in, why."""


class Measured:
    """The boxes of a page, parents first, and what the walk cut out, with why."""

    __slots__ = ("boxes", "cut")

    def __init__(self, boxes: list[Box], cut: list[Cut]) -> None:
        self.boxes = boxes
        self.cut = cut
        """(element, the box it was in, why)."""


_INLINE, _BOX, _LINK = 0, 1, 2


def measure(body: LexborNode, hints: Hints, strip: bool) -> Measured:
    """Measure `body`'s subtree (see the module docstring). Never raises."""
    kinds = KINDS
    cut: list[Cut] = []
    box = root = Box(body, None, body.tag_id, None)
    boxes = [root]
    stack: list[tuple[int, LexborNode]] = []
    links = tables = 0  # open links and tables (nothing in a table is unlikely)
    node = body.first_child
    while node is not None:
        tag = node.tag_id
        kind = kinds.get(tag, 0)
        action = -1  # no descent
        if kind == TEXT:
            if not node.is_empty_text_node:
                box.count(node.text_content or "", links)
        elif kind == LINK:
            if not box.count_link(node):
                links += 1
                action = _LINK
        elif kind in _BOX_KINDS:
            opened = _open_box(node, box, hints, strip and not tables, cut)
            if opened is not None:
                box = opened
                boxes.append(box)
                tables += tag == _TABLE
                action = _BOX
        elif kind == IMG or tag in _CONTROLS:
            _cut_leaf(node, box, kind, cut)
        elif kind != SKIP:
            action = _INLINE
        if action >= 0:
            stack.append((action, node))
            after = node.first_child  # None: an empty element, left at once below
        else:
            after = node.next
        # On to the next node, leaving the elements that end here.
        while after is None and stack:
            action, node = stack.pop()
            if action == _BOX:
                tables -= box.tag == _TABLE
                box = box.parent  # type: ignore[assignment]
            elif action == _LINK:
                links -= 1
            after = node.next
        node = after
    _sum_subtrees(boxes)
    return Measured(boxes, cut)


def _open_box(
    node: LexborNode, parent: Box, hints: Hints, strip: bool, cut: list[Cut]
) -> Box | None:
    """A new box for `node` inside `parent`, or None when it is cut (listed in `cut`)."""
    attrs = node.attributes
    hint = hints.read(attrs) if attrs else None
    why = _why_cut(node.tag_id, hint, strip)
    if why:
        cut.append((node, parent, why))
        return None
    box = Box(node, parent, node.tag_id, hint)
    parent.children.append(box)
    return box


def _cut_leaf(node: LexborNode, box: Box, kind: int, cut: list[Cut]) -> None:
    """List an image or form control that says nothing in `cut`."""
    if kind != IMG:
        cut.append((node, box, "a form control"))
    elif _FILE_NAME.fullmatch((node.attributes.get("alt") or "").strip()):
        cut.append((node, box, "a file name for alt text"))


def _commas(text: str) -> int:
    """Commas in `text`, the full-width one (CJK) too."""
    return text.count(",") + text.count("，")


def _why_cut(tag: int, hint: Hint | None, strip: bool) -> str:
    if hint is not None:
        if hint[0] & HIDDEN:
            return "hidden"
        if strip and hint[0] & UNLIKELY:
            return "unlikely content (class, id or role)"
    if strip and tag in _SIDE:
        return "navigation or side matter"
    return ""


def _sum_subtrees(boxes: list[Box]) -> None:
    """Fill in each box's subtree totals, children before parents."""
    for box in boxes:
        box.text = box.direct
        box.links = box.direct_links
        box.all_commas = box.commas
    lists = LISTS
    for box in reversed(boxes):
        parent = box.parent
        if parent is not None:
            parent.text += box.text
            parent.links += box.links
            parent.all_commas += box.all_commas
            parent.listed += box.text if box.tag in lists else box.listed
