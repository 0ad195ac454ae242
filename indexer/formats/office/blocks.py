"""What an office reader returns (`Doc`: blocks by part, or ready chunks), and the
helpers that make blocks and chunks of it: heading paths, tables, a slide's chunks.

Blocks are the html extractor's (`html.mdsyntax.Block`): Markdown text, its kind and
the heading path in force, so an office file's chunks read as a web page's do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from indexer._types import Chunk, Options, make_chunk
from indexer.formats.html.mdsyntax import Block, split_block
from indexer.formats.html.tables import text_table

__all__ = ["Block", "Doc", "HeadingPath", "Reader", "block_chunks", "slide_chunks", "table_blocks"]


@dataclass(slots=True)
class Doc:
    """What a reader made of a document: blocks (or ready chunks) and its properties."""

    sections: list[tuple[str | None, list[Block]]] = field(default_factory=list)
    """Blocks by the part of the document they come from (None: the body; else the
    name that goes in their chunks' `meta` as `part`), in output order."""
    chunks: list[Chunk] | None = None
    """Set by readers that chunk by their own unit (a slide, a chapter) instead of blocks."""
    metadata: dict[str, Any] = field(default_factory=dict)
    degraded: bool = False
    no_text: str = "no text"
    """The failure's reason when no chunk comes of it: a reader that knows why says so."""


Reader = Callable[[bytes, Options], Doc]


def block_chunks(blocks: Iterable[Block], part: str | None, opts: Options) -> list[Chunk]:
    """One chunk per block (a block too long split along its syntax), as the html kind."""
    chunks: list[Chunk] = []
    max_chars = opts.max_chunk_chars
    for block in blocks:
        text, _, headings = block
        if not text.strip():
            continue
        meta: dict[str, Any] = {"headings": list(headings)}
        if part is not None:
            meta["part"] = part
        pieces = [text] if len(text) <= max_chars else split_block(block, max_chars)
        chunks.extend(make_chunk(piece, dict(meta)) for piece in pieces)
    return chunks


def slide_chunks(blocks: list[Block], number: int, opts: Options) -> list[Chunk]:
    """A slide as one chunk, or as few as fit `max_chunk_chars` (split between blocks, a
    block too long alone along its syntax), each with `meta` `{"slide": number}`."""
    max_chars = opts.max_chunk_chars
    texts: list[str] = []
    for block in blocks:
        texts.extend(
            [block.text] if len(block.text) <= max_chars else split_block(block, max_chars)
        )
    pieces: list[str] = []
    for text in texts:
        if pieces and len(pieces[-1]) + 2 + len(text) <= max_chars:
            pieces[-1] += "\n\n" + text
        else:
            pieces.append(text)
    return [make_chunk(piece, {"slide": number}) for piece in pieces if piece.strip()]


class HeadingPath:
    """The headings in force: a heading of level n closes those of level n and deeper."""

    __slots__ = ("_levels", "path")

    def __init__(self) -> None:
        self._levels: list[int] = []
        self.path: tuple[str, ...] = ()

    def enter(self, level: int, text: str) -> tuple[str, ...]:
        """Record a heading; return the new path, which ends with it."""
        keep = 0
        while keep < len(self._levels) and self._levels[keep] < level:
            keep += 1
        self._levels = [*self._levels[:keep], level]
        self.path = (*self.path[:keep], " ".join(text.split())[:200])
        return self.path


def table_blocks(rows: list[list[tuple[str, int]]], headings: tuple[str, ...]) -> list[Block]:
    """A table of text cells (text, column span) as one GFM table block, first row the
    header; a table of one column renders as paragraphs, as the HTML kind does."""
    rows = [row for row in rows if any(text for text, _ in row)]
    return text_table(rows, header=False, layout=False, headings=headings) if rows else []
