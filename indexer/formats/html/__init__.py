"""`html`: web pages as Markdown, chunked by block, each chunk with its heading path.

The page is decoded as a browser would (`source`) and parsed by Lexbor into the DOM a
browser with scripting on builds, without its scripts, styles, head and other invisible
parts. With `options.html_main_content` (the default) only the main content is rendered
(`maincontent`, links as their text) and the author, date and description join the
title in the metadata (`meta`); without a confident article, or with the option off, the
first non-empty `<main>`, else the one outermost `<article>`, else the body (`markdown`).
Each Markdown block is a chunk with `meta` `{"headings": [...]}`; a block over
`max_chunk_chars` is split along its own syntax. A page with no visible content, or
nested too deep to parse in linear time, gives one `degraded` chunk: the title, else
the untagged source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import unescape

from selectolax.lexbor import LexborHTMLParser, LexborNode

from indexer._text import gc_paused
from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats import VERSIONS
from indexer.formats.html.dom import SVG, TEMPLATE, TITLE
from indexer.formats.html.maincontent import dropped_parts, find_main
from indexer.formats.html.markdown import render
from indexer.formats.html.mdsyntax import Block, split_block
from indexer.formats.html.meta import page_metadata
from indexer.formats.html.source import decode_ascii_html, decode_html, too_deep

__all__ = ["VERSION", "chunk", "dropped", "extract", "page_title", "visible_text"]

VERSION = VERSIONS["html"]  # bumped in indexer/formats/__init__.py

_TAG = re.compile(r"<[^<>]*>")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Decode `data` as a browser would and render it; see `chunk`."""
    return _chunk(*_decoded(data), options)


def _decoded(data: bytes) -> tuple[str, bytes | None]:
    """`data` decoded, and itself when it already is the UTF-8 Lexbor reads."""
    # ASCII source is UTF-8 already (and never UTF-16 without NULs).
    if data.isascii() and b"\x00" not in data:
        return decode_ascii_html(data), data
    return decode_html(data), None


Prepare = Callable[[LexborHTMLParser], object]
"""Changes a parsed page before it is rendered (the mail reader marks reply containers)."""


def chunk(text: str, options: Options, *, prepare: Prepare | None = None) -> Extracted:
    """Render already-decoded HTML as Markdown and chunk it by block.

    Returns no chunks only for blank input; otherwise at least one, none longer
    than `options.max_chunk_chars`. Never raises on any input. `prepare` is called
    with the parsed page before it is rendered (a page too deep to parse is rendered
    `degraded` without it).
    """
    return _chunk(text, None, options, prepare)


def dropped(data: bytes) -> list[tuple[str, str]]:
    """What main-content extraction leaves out of the page `data`: (why, Markdown text)
    of each part, for a user asking why a paragraph is missing. Never raises."""
    text, raw = _decoded(data)
    raw = raw or text.encode("utf-8", "ignore")
    if not text.strip() or too_deep(raw):
        return []
    with gc_paused():
        parts = dropped_parts(LexborHTMLParser(raw, scripting=True))
        rendered = [(why, "\n\n".join(b.text for b in render(node))) for why, node in parts]
    return [(why, text) for why, text in rendered if text]


def _chunk(
    text: str, raw: bytes | None, options: Options, prepare: Prepare | None = None
) -> Extracted:
    # The walk makes a few objects per node, all acyclic: collecting the growing
    # heap again and again would find nothing to free.
    with gc_paused():
        return _render_page(text, raw, options, prepare)


def _render_page(
    text: str, raw: bytes | None, options: Options, prepare: Prepare | None
) -> Extracted:
    if not text.strip():
        return Extracted(kind="html", text="")
    if raw is None:
        raw = text.encode("utf-8", "ignore")  # lone surrogates go, as selectolax drops them
    if too_deep(raw):
        return _degraded(visible_text(text), {}, options)
    tree = LexborHTMLParser(raw, scripting=True)
    if prepare is not None:
        prepare(tree)
    title = page_title(tree)
    metadata = {"title": title} if title else {}
    blocks = []
    if options.html_main_content:
        metadata.update(page_metadata(tree))
        blocks = _render_main(tree, metadata)
    if not blocks:
        blocks = _render_first(tree, links=not options.html_main_content)
    if not blocks:
        return _degraded(title or visible_text(text), metadata, options)
    return Extracted(
        kind="html",
        text="\n\n".join([block.text for block in blocks]),
        chunks=_chunks(blocks, options.max_chunk_chars),
        metadata=metadata,
    )


def page_title(tree: LexborHTMLParser) -> str | None:
    """Return the document's `<title>` text, whitespace collapsed, or None."""
    title = _head_title(tree)
    if title is None:
        # In document order, so a title in the head comes first. (Lexbor's own
        # walk: a CSS query costs a selector compile per call.) Any <title>
        # element has a `<title` in the source, so the walk is the test for it too.
        title = next((node for node in tree.tags("title") if not _in_svg(node)), None)
        if title is None:
            return None
    return " ".join(title.text(deep=True).split()) or None


def _head_title(tree: LexborHTMLParser) -> LexborNode | None:
    """The first `<title>` among the head's children, before any `<template>`; or None.

    That is the document's first `<title>`: only the `<html>` and head elements
    come before the head's children, which hold no elements but a template's.
    Reading a few children is much cheaper than Lexbor's walk of the whole tree.
    """
    head = tree.head
    child = head.first_child if head is not None else None
    while child is not None:
        tag = child.tag_id
        if tag == TITLE:
            return child
        if tag == TEMPLATE:
            return None
        child = child.next
    return None


def visible_text(text: str) -> str:
    """Return `text` without comments and tags, entities decoded, whitespace collapsed.

    When nothing is left, returns `text` trimmed. Linear in the length of `text`.
    """
    stripped = " ".join(unescape(_TAG.sub(" ", _without_comments(text))).split())
    return stripped or text.strip()


def _without_comments(text: str) -> str:
    parts: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0:
        parts.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:  # an unclosed comment runs to the end, as in a browser
            return " ".join(parts)
        pos = end + 3
    parts.append(text[pos:])
    return " ".join(parts)


def _degraded(visible: str, metadata: dict[str, str], options: Options) -> Extracted:
    block = Block(visible, "para", ())
    return Extracted(
        kind="html",
        text=visible,
        chunks=_chunks([block], options.max_chunk_chars),
        degraded=True,
        metadata=metadata,
    )


def _in_svg(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag_id == SVG:
            return True
        parent = parent.parent
    return False


def _render_main(tree: LexborHTMLParser, metadata: dict[str, str]) -> list[Block]:
    """The main content's blocks, links as their text; [] to render the whole page,
    when no article is found."""
    main = find_main(tree)
    if main.byline and "author" not in metadata:
        metadata["author"] = main.byline
        for key in ("date", "description"):  # after the author, as `page_metadata` has it
            if key in metadata:
                metadata[key] = metadata.pop(key)
    for node, _ in main.drops:
        node.decompose(recursive=False)  # unlinked, not freed
    return render(main.root, links=False) if main.root is not None else []


def _render_first(tree: LexborHTMLParser, *, links: bool) -> list[Block]:
    for root in _roots(tree):
        blocks = render(root, links=links)
        if blocks:
            return blocks
    return []


def _roots(tree: LexborHTMLParser) -> Iterator[LexborNode]:
    """The candidate roots, in order; each is looked for only when the one before is empty.

    (Lexbor's own walks: a CSS query costs a selector compile per call.)
    """
    yield from tree.tags("main")[:1]
    articles = tree.tags("article")
    # One outermost <article> is the content; several are a listing (use the body).
    # (A node's `css` matches the node itself too.)
    if len(articles) == 1 or (articles and len(articles[0].css("article")) == len(articles)):
        yield articles[0]
    body = tree.body or tree.root
    if body is not None:
        yield body


def _chunks(blocks: list[Block], max_chars: int) -> tuple[Chunk, ...]:
    chunks: list[Chunk] = []
    for block in blocks:
        text, _, headings = block
        if len(text) <= max_chars:
            chunks.append(make_chunk(text, {"headings": list(headings)}))
        else:
            pieces = split_block(block, max_chars)
            chunks.extend(make_chunk(p, {"headings": list(headings)}) for p in pieces)
    return tuple(chunks)
