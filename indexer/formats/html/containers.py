"""The open containers of the Markdown walk: lists, items, quotes, tables, rows, cells.

Each container gathers the blocks made inside it and, when it closes, hands its
parent one rendered block: a list (items one per line, nested ones indented under
their marker), a quote (every line prefixed `>`), a table (see `tables`).
Items and cells are the commonest containers, so they own no buffer: their
content flows into their list's or row's, and closing one takes the blocks made
since it opened. Containers nested deeper than `MAX_NEST` render as plain
blocks, so indentation and the work of closing stay bounded however deep a page
nests.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from indexer.formats.html import dom, tables
from indexer.formats.html.dom import (
    CAPTION,
    CELL,
    ITEM,
    KINDS,
    ORDERED,
    PART,
    ROW,
    TABLE,
)
from indexer.formats.html.mdsyntax import (
    Block,
    collapse,
    list_item,
    new_block,
    paragraphs,
    quote,
)
from indexer.formats.html.textonly import ignorable, item_text, text_row, text_rows

MAX_NEST = 32
"""Containers (or links and code spans) nested deeper render flat, bounding the work."""

FLUSH, CLOSE, END_ITEM, END_CELL = 1, 4, 6, 7
"""What `Containers.open` asks the walk to do when it leaves the element."""
NO_DESCENT = -1
"""What `Containers.open` returns when the walk must not enter the element (0: no action)."""

_LISTS = (dom.LIST, ORDERED)
_CTX_KIND = {dom.LIST: "list", ORDERED: "list", dom.QUOTE: "quote", TABLE: "table", ROW: "row"}


class Ctx:
    """An open container: its raw inline buffer and the blocks made inside it."""

    __slots__ = (
        "blocks",
        "buf",
        "cells",
        "header",
        "headings",
        "kind",
        "number",
        "ordered",
        "stray",
        "table",
    )

    def __init__(self, kind: str, headings: tuple[str, ...]) -> None:
        self.kind = kind
        self.headings = headings
        self.buf: list[str] = []
        self.blocks: list[Block] = []
        self.number = 1
        self.ordered = False
        self.header = False
        self.cells: list[tables.Cell] = []
        self.stray: list[Block] = []
        self.table: tables.Table | None = None


class Containers:
    """The stack of open containers, bottom the document; the base of the renderer's walk."""

    def __init__(self, links: bool = True) -> None:
        self.links = links
        """False: links read as their text, without Markdown."""
        self.headings: tuple[str, ...] = ()
        self.ctxs = [Ctx("doc", ())]
        self.buf = self.ctxs[0].buf
        """The innermost container's inline buffer, where text goes."""
        self.items: list[tuple[int, tuple[str, ...]]] = []
        """Open items: where their blocks start in their container's, and their path."""
        self.cells: list[int] = []
        """Open cells: their column span (0 for a caption)."""

    def flush(self) -> None:
        """Turn the inline buffer into paragraph blocks (the walk defines how)."""
        raise NotImplementedError

    def emit(self, block: Block) -> None:
        """Add `block` to the innermost container."""
        self.ctxs[-1].blocks.append(block)

    def open(self, node: LexborNode, kind: int) -> int:
        """Open a container for `node`; return its exit action (0 none), or `NO_DESCENT`."""
        ctx = self.ctxs[-1]
        parent = ctx.kind
        if kind == PART and parent == "table":
            return 0
        if self.buf:
            self.flush()
        if kind == ITEM and len(self.items) < MAX_NEST:
            if parent == "list" and self._simple_item(node):
                return NO_DESCENT
            self.items.append((len(ctx.blocks), self.headings))
            return END_ITEM
        if (kind == CELL and parent == "row") or (kind == CAPTION and parent == "table"):
            return self._open_cell(node, ctx, kind)
        if len(self.ctxs) > MAX_NEST or kind not in _CTX_KIND:
            return FLUSH
        if kind == ROW and parent != "table":
            return FLUSH
        # The commonest lists and rows hold only text: render them without a walk.
        if kind == ROW and ctx.table is not None and self._simple_row(node, ctx.table):
            return NO_DESCENT
        if kind in _LISTS and len(self.items) < MAX_NEST and self._simple_list(node, kind):
            return NO_DESCENT
        if kind == TABLE and self._simple_table(node):
            return NO_DESCENT
        new = Ctx(_CTX_KIND[kind], self.headings)
        if kind == ORDERED:
            new.ordered = True
            new.number = dom.int_attr(node, "start", 1, 0)
        elif kind == TABLE:
            new.table = tables.Table(layout=dom.is_presentation(node))
            self._mark_nested_table()
        self.ctxs.append(new)
        self.buf = new.buf
        return CLOSE

    def close(self) -> None:
        """Close the innermost container, handing its rendered block(s) to its parent."""
        self.flush()
        ctx = self.ctxs.pop()
        parent = self.ctxs[-1]
        self.buf = parent.buf
        if ctx.kind == "row":
            if parent.table is not None:
                stray = [*ctx.stray, *ctx.blocks]
                parent.table.add_row(ctx.cells, stray=stray, header=ctx.header)
        elif ctx.table is not None:
            ctx.table.stray[:0] = [*ctx.stray, *ctx.blocks]
            for block in ctx.table.blocks(ctx.headings):
                self.emit(block)
        elif ctx.blocks:
            sep = "\n\n" if ctx.kind == "quote" else "\n"
            text = sep.join(b.text for b in ctx.blocks)
            self.emit(Block(quote(text) if ctx.kind == "quote" else text, ctx.kind, ctx.headings))

    def end_item(self) -> None:
        """Close the innermost item: the blocks made since it opened become one item."""
        self.flush()
        start, headings = self.items.pop()
        ctx = self.ctxs[-1]
        in_list = ctx.kind == "list"
        marker = f"{ctx.number}." if in_list and ctx.ordered else "-"
        ctx.number += 1
        if len(ctx.blocks) > start:
            text = list_item(marker, "\n".join(b.text for b in ctx.blocks[start:]))
            del ctx.blocks[start:]
            ctx.blocks.append(Block(text, "item" if in_list else "list", headings))

    def end_cell(self) -> None:
        """Close the innermost cell (or caption): its row's new blocks become the cell."""
        self.flush()
        span = self.cells.pop()
        ctx = self.ctxs[-1]
        blocks = tuple(ctx.blocks)
        ctx.blocks.clear()
        if span:
            ctx.cells.append(tables.Cell(blocks=blocks, span=span))
        elif ctx.table is not None:
            ctx.table.caption.extend(blocks)

    def _open_cell(self, node: LexborNode, ctx: Ctx, kind: int) -> int:
        # Blocks already in the row (or table) sit outside any cell.
        ctx.stray.extend(ctx.blocks)
        ctx.blocks.clear()
        if kind == CAPTION:
            self.cells.append(0)
            return END_CELL
        span = dom.int_attr(node, "colspan", 1, 1, tables.MAX_SPAN)
        # A <th> marks its row (and so its table) as having a header.
        ctx.header = ctx.header or node.tag == "th"
        text = dom.only_text(node)
        if text is not None:  # the commonest cell, `<td>text</td>`: no walk inside
            paras = [Block(para, "para", self.headings) for para in paragraphs(text)]
            ctx.cells.append(tables.Cell(blocks=tuple(paras), span=span))
            return NO_DESCENT
        self.cells.append(span)
        return END_CELL

    def _simple_item(self, node: LexborNode) -> bool:
        # Fast path for the commonest item, `<li>text</li>` or `<li><a>text</a></li>`.
        text = item_text(node, self.links)
        if text is None:
            return False
        lst = self.ctxs[-1]
        marker = f"{lst.number}." if lst.ordered else "-"
        lst.number += 1
        paras = paragraphs(text)
        if paras:
            self.emit(Block(list_item(marker, paras[0]), "item", self.headings))
        return True

    def _simple_list(self, node: LexborNode, kind: int) -> bool:
        """Emit a list whose items are all simple (see `item_text`); False if one is not.

        Its children but items may only be whitespace, comments and scripts.
        """
        ordered = kind == ORDERED
        number = dom.int_attr(node, "start", 1, 0) if ordered else 1
        lines: list[str] = []
        # One pass along Lexbor's sibling links, reading each item as it comes.
        child = node.first_child
        while child is not None:
            child_kind = KINDS.get(child.tag_id, 0)
            if child_kind == ITEM:
                text = item_text(child, self.links)
                if text is None:
                    return False
                # One text node: no line break in it, so no need for `paragraphs`.
                line = collapse(text)
                if line:
                    lines.append(f"{number}. {line}" if ordered else f"- {line}")
                number += 1
            elif not ignorable(child, child_kind):
                return False
            child = child.next
        if lines:
            self.emit(new_block(Block, ("\n".join(lines), "list", self.headings)))
        return True

    def _simple_row(self, node: LexborNode, table: tables.Table) -> bool:
        """Add a row whose cells hold only text to `table`; False for any other row."""
        found = text_row(node)
        if found is None:
            return False
        headings = self.headings
        cells = [
            tables.Cell((new_block(Block, (para, "para", headings)),) if para else (), span)
            for para, span in found[0]
        ]
        table.add_text_row(cells, header=found[1])
        return True

    def _simple_table(self, node: LexborNode) -> bool:
        """Emit a table whose rows are all text rows (see `text_row`); False for any other."""
        found = text_rows(node)
        if found is None:
            return False
        rows, header = found
        self._mark_nested_table()
        layout = dom.is_presentation(node)
        for block in tables.text_table(rows, header=header, layout=layout, headings=self.headings):
            self.emit(block)
        return True

    def _mark_nested_table(self) -> None:
        # A table opened inside a row is inside one of its cells: that makes the
        # table around the row a layout table.
        for ctx in reversed(self.ctxs):
            if ctx.kind == "table":
                return
            if ctx.kind == "row":
                break
        for ctx in reversed(self.ctxs):
            if ctx.table is not None:
                ctx.table.layout = True
                return
