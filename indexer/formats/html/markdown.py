"""Render a Lexbor DOM subtree as Markdown blocks, each with its heading path.

One iterative walk (no Python recursion, so a page nested 100,000 deep is fine)
with a stack of open containers. Inline text collects raw in the innermost
container's buffer and becomes paragraphs at each block boundary, whitespace
collapsed once per paragraph the way a browser does. Containers (lists, items,
quotes, tables, rows, cells) gather their blocks and, when they close, hand one
rendered block to their parent: a list, a quote or a table is one block.
Headings anywhere update the heading path; every block records the path in force
when it was made (a heading's own path ends with itself). Inside a heading,
block elements are mere separators: a heading is one line.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from indexer.formats.html import dom
from indexer.formats.html.containers import (
    CLOSE,
    END_CELL,
    END_ITEM,
    FLUSH,
    MAX_NEST,
    NO_DESCENT,
    Containers,
    Ctx,
)
from indexer.formats.html.dom import (
    BLOCK,
    CODE,
    FIRST_CONTAINER,
    HEADING,
    HR,
    IMG,
    KINDS,
    LINEBREAK,
    LINK,
    PRE,
    SKIP,
    TEXT,
)
from indexer.formats.html.mdsyntax import (
    BR,
    Block,
    code_block,
    collapse,
    inline_span,
    link_target,
    new_block,
    paragraphs,
)

# Leaving an element: flush its paragraph, finish a heading, add a separator
# (inside a heading), close a container, or close a link or code span.
_FLUSH, _CLOSE = FLUSH, CLOSE
_END_HEADING, _SEPARATE, _UNWRAP = 2, 3, 5
MAX_HEADING = 200
"""Characters of a heading kept in the heading path (the chunk keeps all of it)."""
_MARKS = tuple("#" * level + " " for level in range(7))


def render(root: LexborNode, *, links: bool = True) -> list[Block]:
    """Return the Markdown blocks of `root`'s subtree in order (links as text without `links`)."""
    walker = _Walker(links)
    kinds = KINDS
    buf = walker.buf
    # The open elements and their exit actions, walked along Lexbor's child and
    # sibling links: a child iterator per element costs more than the visit.
    stack: list[tuple[int, LexborNode]] = []
    node = root
    while True:
        kind = kinds.get(node.tag_id, 0)
        action = NO_DESCENT
        # The commonest kinds first; containers skip `enter`'s tests.
        if kind == TEXT:
            # Blank text is a space at most, none where a paragraph starts; Lexbor needs no string.
            if not node.is_empty_text_node:
                buf.append(node.text_content or "")
            elif buf:
                buf.append(" ")
        elif kind == BLOCK and not walker.flat:
            action = walker.block(node)
        elif not kind:
            action = 0
        elif kind >= FIRST_CONTAINER and not walker.flat:
            action = walker.open(node, kind)
            buf = walker.buf
        elif kind != SKIP:
            action = walker.enter(node, kind)
            buf = walker.buf
        if action >= 0:
            child = node.first_child
            if child is not None:
                stack.append((action, node))
                node = child
                continue
            if action:
                walker.leave(action, node)
                buf = walker.buf
        # On to the next sibling, leaving the elements that end here.
        while stack:
            after = node.next
            if after is not None:
                node = after
                break
            action, node = stack.pop()
            if action:
                walker.leave(action, node)
                buf = walker.buf
        else:
            return walker.finish()


class _Wrap:
    """An open link (`href` set) or code span: where its text starts in a buffer."""

    __slots__ = ("ctx", "href", "start")

    def __init__(self, ctx: Ctx, href: str | None) -> None:
        self.ctx = ctx
        self.start = len(ctx.buf)
        self.href = href


class _Walker(Containers):
    """The walk's state: open containers, links and code spans, and the heading path."""

    def __init__(self, links: bool) -> None:
        super().__init__(links)
        self.levels: list[int] = []
        self.wraps: list[_Wrap] = []
        self.flat = 0

    def finish(self) -> list[Block]:
        self.flush()
        return self.ctxs[0].blocks

    def block(self, node: LexborNode) -> int:
        """Open block `node` (outside a heading); return `enter`'s answer."""
        if self.buf:
            self.flush()
        child = node.first_child
        # `<p>text</p>` (outside a link or code span) needs no walk.
        if child is not None and child.next is None and child.is_text_node and not self.wraps:
            self.add_paragraph(child.text_content or "")
            return NO_DESCENT
        return _FLUSH

    def enter(self, node: LexborNode, kind: int) -> int:
        """Open `node`; return its exit action (0 for none), or `NO_DESCENT`."""
        if kind == LINK:
            return self._link(node)
        if kind == LINEBREAK:
            self.buf.append(BR)
            return NO_DESCENT
        if kind == CODE:
            # Code inside code is the same span (nested spans would only grow fences).
            inside = self.wraps and self.wraps[-1].href is None
            return 0 if inside else self._wrap(None)
        if kind == IMG:
            self.buf.append(node.attributes.get("alt") or "")
            return NO_DESCENT
        if kind == SKIP:
            return NO_DESCENT
        if self.flat:
            self.buf.append(" ")
            return _SEPARATE
        if kind == HEADING:
            return self.heading(node)
        if kind == BLOCK:
            self.flush()
            return _FLUSH
        if kind == PRE:
            self.flush()
            self._emit_text(code_block(dom.pre_text(node), dom.pre_language(node)), "pre")
        elif kind == HR:
            self.flush()
            self._emit_text("---", "hr")
        else:
            return self.open(node, kind)
        return NO_DESCENT

    def heading(self, node: LexborNode) -> int:
        """Open heading `node` (outside a heading); return `enter`'s answer."""
        if self.buf:
            self.flush()
        # `<h2>text</h2>` (outside a link or code span) needs no walk.
        child = node.first_child
        if child is not None and child.next is None and child.is_text_node and not self.wraps:
            self._add_heading(node, collapse(child.text_content or ""), None)
            return NO_DESCENT
        self.flat += 1
        return _END_HEADING

    def leave(self, action: int, node: LexborNode | None) -> None:
        """Close `node` with the action its `enter` returned."""
        if action == _FLUSH:
            self.flush()
        elif action == _UNWRAP:
            self._unwrap(self.wraps.pop())
        elif action == _CLOSE:
            self.close()
        elif action == END_ITEM:
            self.end_item()
        elif action == END_CELL:
            self.end_cell()
        elif action == _SEPARATE:
            self.buf.append(" ")
        elif node is not None:
            self.flat -= 1
            self._heading(node)

    def _link(self, node: LexborNode) -> int:
        if not self.links:
            return 0
        href = link_target(node.attributes.get("href"))
        if href is None:
            return 0
        text = dom.only_text(node)
        if text is None:
            return self._wrap(href)
        self.buf.append(inline_span(text, href))
        return NO_DESCENT

    def _wrap(self, href: str | None) -> int:
        if len(self.wraps) >= MAX_NEST:
            return 0
        self.wraps.append(_Wrap(self.ctxs[-1], href))
        return _UNWRAP

    def _unwrap(self, wrap: _Wrap) -> None:
        buf = wrap.ctx.buf
        if len(buf) > wrap.start:
            span = inline_span("".join(buf[wrap.start :]), wrap.href)
            del buf[wrap.start :]
            buf.append(span)

    def _emit_text(self, text: str, kind: str) -> None:
        if text:
            self.emit(Block(text, kind, self.headings))

    def add_paragraph(self, raw: str) -> None:
        """Add a text node's raw text as a paragraph of the innermost container.

        Only where its inline buffer is empty (so nothing precedes the text).
        A text node holds no `BR`: its text is one paragraph at most.
        """
        text = collapse(raw)
        if text:
            self.ctxs[-1].blocks.append(new_block(Block, (text, "para", self.headings)))

    def flush(self) -> None:
        """Turn the innermost container's inline buffer into paragraph blocks."""
        if not self.buf:
            return
        blocks = self.ctxs[-1].blocks
        headings = self.headings
        for para in self._drain():
            blocks.append(new_block(Block, (para, "para", headings)))

    def _drain(self) -> list[str]:
        buf = self.buf
        # A link (or code span) around a block boundary is closed at the
        # boundary and reopened after it, so each paragraph keeps its link.
        if self.wraps:
            for wrap in reversed(self.wraps):
                if wrap.ctx.buf is not buf:
                    break
                self._unwrap(wrap)
                wrap.start = 0
        if not buf:
            return []
        raw = "".join(buf)
        buf.clear()
        return paragraphs(raw)

    def _heading(self, node: LexborNode) -> None:
        text = " ".join(self._drain()).replace("\n", " ")
        self._add_heading(node, text, " ".join(node.text(deep=True).split()))

    def _add_heading(self, node: LexborNode, text: str, name: str | None) -> None:
        """Emit heading `node` as `text`; `name` (else `text`) ends the heading path."""
        if not text:
            return
        level = dom.LEVELS.get(node.tag_id, 1)
        name = name or text
        if len(name) > MAX_HEADING:  # every later chunk's meta carries it
            name = name[: MAX_HEADING - 1] + "…"
        levels = self.levels
        headings = self.headings
        while levels and levels[-1] >= level:
            levels.pop()
            headings = headings[:-1]
        levels.append(level)
        self.headings = headings = (*headings, name)
        block = (f"{_MARKS[level]}{text}", "heading", headings)
        self.ctxs[-1].blocks.append(new_block(Block, block))
