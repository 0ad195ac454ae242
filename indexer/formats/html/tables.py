"""HTML tables for the Markdown renderer: data tables as GFM, layout tables as their cells.

A table is a layout table (page scaffolding, as in most HTML e-mail) when it holds
another table, says `role="presentation"`, has a single column and no `<th>`, or
a cell holds a heading, quote, code block or rule: its cells then render as
ordinary blocks, in order. Any other table is data and renders as one GFM table
whose first non-empty row is the header; rows are never reordered, short rows
are padded and a cell's `colspan` adds empty cells after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexer.formats.html.mdsyntax import Block, new_block

MAX_SPAN = 20
"""A cell's `colspan` counts at most this many columns (a huge span would pad every row)."""

_STRUCTURAL = frozenset(("heading", "pre", "quote", "hr", "table"))
"""Blocks that make the table around their cell a layout table."""
_ITEM_MARKER = re.compile(r"(?:-|\d+\.) ")


@dataclass(slots=True)  # not frozen: a frozen one is slower to make, and tables have many
class Cell:
    """One `<td>`/`<th>`: the blocks inside it and how many columns it spans."""

    blocks: tuple[Block, ...]
    span: int = 1

    def text(self) -> str:
        """Return the cell's blocks as one line, `|` escaped, for a GFM table.

        A list's items are joined with `; `, without their markers.
        """
        blocks = self.blocks
        if len(blocks) == 1 and blocks[0].kind == "para" and "\n" not in blocks[0].text:
            # One line of a paragraph: its whitespace is collapsed already.
            return blocks[0].text.replace("|", "\\|")
        joined = " ".join(map(_inline, blocks))
        return " ".join(joined.split()).replace("|", "\\|")


@dataclass(slots=True)
class Table:
    """The rows of one `<table>` as the walk collects them."""

    layout: bool = False
    """Known to be layout before its rows are seen (a role, a nested table)."""
    has_header: bool = False
    caption: list[Block] = field(default_factory=list)
    stray: list[Block] = field(default_factory=list)
    """Blocks found in the table outside any cell."""
    rows: list[list[Cell]] = field(default_factory=list)

    def add_row(self, cells: list[Cell], *, stray: list[Block], header: bool) -> None:
        """Append a row of `cells`; `stray` blocks sat in it outside any cell."""
        self.stray.extend(stray)
        if cells:
            self.rows.append(cells)
        if not self.layout:
            structural = (b.kind in _STRUCTURAL for cell in cells for b in cell.blocks)
            self.layout = any(structural)
        self.has_header = self.has_header or header

    def add_text_row(self, cells: list[Cell], *, header: bool) -> None:
        """Append a row of `cells` that hold paragraphs at most, with nothing beside them."""
        if cells:
            self.rows.append(cells)
        self.has_header = self.has_header or header

    def is_layout(self) -> bool:
        """True when the table is scaffolding rather than data (see the module docstring)."""
        if self.layout:
            return True
        return not self.has_header and all(len(row) == 1 for row in self.rows)

    def blocks(self, headings: tuple[str, ...]) -> list[Block]:
        """Return what the table renders as: stray blocks, caption, then the table or its cells."""
        if self.is_layout():
            cells = [block for row in self.rows for cell in row for block in cell.blocks]
            return [*self.stray, *self.caption, *cells]
        text = self.markdown()
        table = [Block(text, "table", headings)] if text else []
        return [*self.stray, *self.caption, *table]

    def markdown(self) -> str:
        """Return the table as GFM, or '' when every cell is empty."""
        return _grid([row for row in map(_expand, self.rows) if any(row)])


def text_table(
    rows: list[list[tuple[str, int]]], *, header: bool, layout: bool, headings: tuple[str, ...]
) -> list[Block]:
    """Return what a table of text cells renders as, as `Table.blocks` would.

    `rows` are its non-empty rows of (whitespace-collapsed text, column span);
    `header` tells whether it has a `<th>`, `layout` whether it says it is layout.
    """
    if layout or (not header and all(len(row) == 1 for row in rows)):
        return [
            new_block(Block, (text, "para", headings)) for row in rows for text, _ in row if text
        ]
    grid: list[list[str]] = []
    for row in rows:
        line: list[str] = []
        for text, span in row:
            line.append(text.replace("|", "\\|"))
            if span > 1:
                line.extend([""] * (span - 1))
        if any(line):
            grid.append(line)
    text = _grid(grid)
    return [new_block(Block, (text, "table", headings))] if text else []


def _grid(grid: list[list[str]]) -> str:
    """Return rows of cell texts (none all empty) as GFM, the first as the header."""
    if not grid:
        return ""
    width = max(map(len, grid))
    # Each line is `| a | b |`; short rows get empty cells.
    lines = [
        " | ".join(row if len(row) == width else row + [""] * (width - len(row))) for row in grid
    ]
    lines.insert(1, " | ".join(["---"] * width))
    return "| " + " |\n| ".join(lines) + " |"


def _inline(block: Block) -> str:
    if block.kind != "list":
        return block.text
    items = []
    for line in block.text.split("\n"):
        marker = _ITEM_MARKER.match(line)  # match: a search would scan the whole line
        items.append(line[marker.end() :] if marker else line)
    return "; ".join(items)


def _expand(row: list[Cell]) -> list[str]:
    out: list[str] = []
    for cell in row:
        out.append(cell.text())
        if cell.span > 1:
            out.extend([""] * (cell.span - 1))
    return out
