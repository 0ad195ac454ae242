"""Containers that hold only text, recognised without walking into them.

The commonest lists, rows and tables hold nothing but text (`<li>text</li>`,
`<td>text</td>`): `containers` reads these here in one pass along Lexbor's
sibling links and renders them directly, and walks into any other. Each reader
returns None as soon as the container holds anything more than text, whitespace,
comments or scripts.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from indexer.formats.html import dom, tables
from indexer.formats.html.dom import CELL, KINDS, LINK, PART, ROW, SKIP, TEXT, TH
from indexer.formats.html.mdsyntax import inline_span, link_target


def item_text(node: LexborNode, links: bool) -> str | None:
    """The raw text of `<li>text</li>` or `<li><a>text</a></li>` (a link), else None."""
    child = node.first_child
    if child is None or child.next is not None:
        return None
    if child.is_text_node:
        return child.text_content or ""
    if KINDS.get(child.tag_id) != LINK:
        return None
    inner = dom.only_text(child)
    if inner is None:
        return None
    href = link_target(child.attributes.get("href")) if links else None
    return inner if href is None else inline_span(inner, href)


def text_rows(node: LexborNode) -> tuple[list[list[tuple[str, int]]], bool] | None:
    """The non-empty rows of a table of text rows (see `text_row`), and whether
    one has a `<th>`; None for any other table."""
    rows: list[list[tuple[str, int]]] = []
    header = False
    # Row groups (and column groups) are transparent.
    row_nodes = children_of_kind(node, ROW, PART)
    if row_nodes is None:
        return None
    for row in row_nodes:
        found = text_row(row)
        if found is None:
            return None
        if found[0]:
            rows.append(found[0])
        header = header or found[1]
    return rows, header


def children_of_kind(node: LexborNode, kind: int, group: int = 0) -> list[LexborNode] | None:
    """The children of `node` of `kind` (and those of its children of kind `group`,
    at any depth), in order; None when it has others but whitespace, comments, scripts."""
    found: list[LexborNode] = []
    # Lexbor's sibling links, not a child iterator: that costs more than a child.
    pending = [node.first_child]
    while pending:
        child = pending.pop()
        while child is not None:
            child_kind = KINDS.get(child.tag_id, 0)
            if child_kind == kind:
                found.append(child)
            elif group and child_kind == group:
                pending.append(child.next)
                child = child.first_child
                continue
            elif not ignorable(child, child_kind):
                return None
            child = child.next
    return found


def text_row(node: LexborNode) -> tuple[list[tuple[str, int]], bool] | None:
    """The cells of a row that holds only text cells, as (text, column span), and
    whether one is a `<th>`; None for any other row. Text is whitespace-collapsed."""
    cells: list[tuple[str, int]] = []
    header = False
    # Lexbor's sibling links, not a child iterator: that costs more than a cell.
    child = node.first_child
    while child is not None:
        tag = child.tag_id
        kind = KINDS.get(tag, 0)
        if kind == CELL:
            first = child.first_child
            if first is None:
                text = ""
            elif first.is_text_node and first.next is None:
                text = first.text_content or ""
            else:
                return None
            header = header or tag == TH
            colspan = child.attributes.get("colspan")
            span = 1 if colspan is None else dom.int_value(colspan, 1, 1, tables.MAX_SPAN)
            # One text node: no line break in it, so no need for `paragraphs`;
            # and cells are short, so `collapse` would split and join.
            cells.append((" ".join(text.split()), span))
        elif not ignorable(child, kind):
            return None
        child = child.next
    return cells, header


def ignorable(node: LexborNode, kind: int) -> bool:
    # What the walk passes over without a trace between items or cells:
    # whitespace (the buffer is empty there), comments, scripts.
    return kind == SKIP or (kind == TEXT and node.is_empty_text_node)
