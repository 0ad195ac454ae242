"""The open containers of the Markdown walk: lists, items, quotes, tables, rows, cells.

Each container gathers the blocks made inside it and, when it closes, hands its
parent one rendered block: a list (items one per line, nested ones indented under
their marker), a quote (every line prefixed `>`), a table (see `_html_tables`).
Containers nested deeper than `MAX_NEST` render as plain blocks, so indentation
and the work of closing stay bounded however deep a page nests.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from indexer.extractors import _html_dom as dom
from indexer.extractors import _html_tables as tables
from indexer.extractors._mdsyntax import (
    Block,
    inline_span,
    link_target,
    list_item,
    paragraphs,
    quote,
)

MAX_NEST = 32
"""Containers (or links and code spans) nested deeper render flat, bounding the work."""

FLUSH, CLOSE = 1, 4
"""What `Containers.open` asks the walk to do when it leaves the element."""

_CTX_KIND = {dom.LIST: "list", dom.ORDERED: "list", dom.ITEM: "item", dom.QUOTE: "quote"}
_CTX_KIND |= {dom.TABLE: "table", dom.ROW: "row", dom.CELL: "cell", dom.CAPTION: "cell"}
_STRUCTURAL = frozenset(("heading", "pre", "quote", "hr", "table"))
"""Blocks that make the table around their cell a layout table."""


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
        "span",
        "structural",
        "table",
    )

    def __init__(self, kind: str, headings: tuple[str, ...]) -> None:
        self.kind = kind
        self.headings = headings
        self.buf: list[str] = []
        self.blocks: list[Block] = []
        self.number = 1
        self.ordered = False
        self.span = 1
        self.header = False
        self.structural = False
        self.cells: list[tables.Cell] = []
        self.table: tables.Table | None = None


class Containers:
    """The stack of open containers, bottom the document; the base of the renderer's walk."""

    def __init__(self) -> None:
        self.headings: tuple[str, ...] = ()
        self.ctxs = [Ctx("doc", ())]
        self.buf = self.ctxs[0].buf
        """The innermost container's inline buffer, where text goes."""

    def flush(self) -> None:
        """Turn the inline buffer into paragraph blocks (the walk defines how)."""
        raise NotImplementedError

    def emit(self, block: Block) -> None:
        """Add `block` to the innermost container."""
        ctx = self.ctxs[-1]
        ctx.blocks.append(block)
        if ctx.kind == "cell" and block.kind in _STRUCTURAL:
            ctx.structural = True

    def open(self, node: LexborNode, kind: int) -> int | None:
        """Open a container for `node`; return its exit action (0 none), None to skip it."""
        parent = self.ctxs[-1].kind
        if kind == dom.PART and parent == "table":
            return 0
        self.flush()
        if kind == dom.ITEM and parent == "list" and self._simple_item(node):
            return None
        if (
            len(self.ctxs) > MAX_NEST
            or kind == dom.PART
            or (kind == dom.ROW and parent != "table")
            or (kind == dom.CELL and parent != "row")
            or (kind == dom.CAPTION and parent != "table")
        ):
            return FLUSH
        ctx = Ctx(_CTX_KIND[kind], self.headings)
        if kind == dom.ORDERED:
            ctx.ordered = True
            ctx.number = dom.int_attr(node, "start", 1, 0)
        elif kind == dom.CELL:
            ctx.span = dom.int_attr(node, "colspan", 1, 1, tables.MAX_SPAN)
            # A <th> marks its row (and so its table) as having a header.
            self.ctxs[-1].header = self.ctxs[-1].header or node.tag == "th"
        elif kind == dom.TABLE:
            ctx.table = tables.Table(layout=dom.is_presentation(node))
            self._mark_nested_table()
        self.ctxs.append(ctx)
        self.buf = ctx.buf
        return CLOSE

    def close(self) -> None:
        """Close the innermost container, handing its rendered block(s) to its parent."""
        self.flush()
        ctx = self.ctxs.pop()
        parent = self.ctxs[-1]
        self.buf = parent.buf
        if ctx.kind in ("cell", "row", "table"):
            self._close_table_part(ctx, parent)
        elif ctx.kind == "item":
            in_list = parent.kind == "list"
            marker = f"{parent.number}." if in_list and parent.ordered else "-"
            parent.number += 1
            if ctx.blocks:
                text = list_item(marker, "\n".join(b.text for b in ctx.blocks))
                self.emit(Block(text, "item" if in_list else "list", ctx.headings))
        elif ctx.blocks:
            sep = "\n\n" if ctx.kind == "quote" else "\n"
            text = sep.join(b.text for b in ctx.blocks)
            self.emit(Block(quote(text) if ctx.kind == "quote" else text, ctx.kind, ctx.headings))

    def _simple_item(self, node: LexborNode) -> bool:
        # Fast path for the commonest item, `<li>text</li>` or `<li><a>text</a></li>`.
        child = node.first_child
        if child is None or child.next is not None:
            return False
        if child.is_text_node:
            text = child.text_content or ""
        elif dom.KINDS.get(child.tag_id) == dom.LINK:
            inner = dom.only_text(child)
            if inner is None:
                return False
            href = link_target(child.attrs.get("href"))
            text = inner if href is None else inline_span(inner, href)
        else:
            return False
        lst = self.ctxs[-1]
        marker = f"{lst.number}." if lst.ordered else "-"
        lst.number += 1
        paras = paragraphs(text)
        if paras:
            self.emit(Block(list_item(marker, paras[0]), "item", self.headings))
        return True

    def _mark_nested_table(self) -> None:
        # A table inside a cell makes its enclosing table a layout table.
        for ctx in reversed(self.ctxs):
            if ctx.table is not None:
                return
            if ctx.kind == "cell":
                break
        for ctx in reversed(self.ctxs):
            if ctx.table is not None:
                ctx.table.layout = True
                return

    def _close_table_part(self, ctx: Ctx, parent: Ctx) -> None:
        if ctx.kind == "cell":
            if parent.kind == "row":
                parent.cells.append(tables.Cell(blocks=tuple(ctx.blocks), span=ctx.span))
                parent.structural = parent.structural or ctx.structural
            elif parent.table is not None:
                parent.table.caption.extend(ctx.blocks)
        elif ctx.kind == "row":
            if parent.table is not None:
                parent.table.add_row(
                    ctx.cells, stray=ctx.blocks, structural=ctx.structural, header=ctx.header
                )
        elif ctx.table is not None:
            ctx.table.stray[:0] = ctx.blocks
            for block in ctx.table.blocks(ctx.headings):
                self.emit(block)
