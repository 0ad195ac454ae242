"""`docx`: Word documents (`.docx .docm .dotx .dotm`) as Markdown blocks with heading paths.

The main document's body is read in order (`docx.body`): Word's heading styles become
Markdown headings and each chunk's `meta` is `{"headings": [...]}`, the path in force
(as for the `html` kind); list paragraphs become list blocks, tables GFM tables (a
large one split with its header repeated). Then the parts beside the body, each once
and with `meta` `{"headings": [], "part": ...}`: footnotes and endnotes (`notes`, as
`[^n]: text`, the body's references marked `[^n]`), comments (`comments`), and the
distinct headers (`header`, first) and footers (`footer`, last). Title, author and
dates go in `metadata`. The text OCR reads in a picture (`office.picture_text`, under
`ocr_mode`) follows the paragraph that shows it, and `metadata["ocr"]` lists the pictures
read. A Word 2003 XML file is read the same way.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc
from indexer.formats.office.charts import chart_blocks
from indexer.formats.office.container import ContainerError, Package, open_zip, parse_xml
from indexer.formats.office.docx.body import Context, Walker, prepare
from indexer.formats.office.docx.notes import comments, notes
from indexer.formats.office.docx.styles import Numbering, Styles
from indexer.formats.office.entry import run
from indexer.formats.office.ooxml import (
    core_properties,
    main_part,
    part_xml,
    relationships,
    rels_kind,
)
from indexer.formats.office.picture_text import PictureText

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["docx"]  # bumped in indexer/formats/__init__.py

_ACCEPTS = ("docx", "wordml")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_WORDML = "{http://schemas.microsoft.com/office/word/2003/wordml}"


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a Word document; never raises for bad input (see `entry.run`)."""
    return run("docx", _ACCEPTS, partial(read, path=path), data, path, options)


def read(data: bytes, options: Options, path: str = "") -> Doc:
    """Read a Word package (or Word 2003 XML) into blocks, the text in its pictures by
    OCR where they sit; raises `ContainerError`."""
    if not data.startswith(b"PK"):
        return _wordml(data)
    package = open_zip(data)
    main = main_part(package, "word/document.xml")
    root = part_xml(package, main)
    if root is None:
        raise ContainerError("corrupt: no main document part")
    rels = relationships(package, main)
    doc = Doc(metadata=core_properties(package))
    styles = Styles(_optional(package, rels, "styles", doc))
    ctx = Context(styles, Numbering(_optional(package, rels, "numbering", doc)))
    ctx.alt_chunk = lambda name, path: _alt_chunk(package, name, path, options)
    ctx.chart = lambda name, path: chart_blocks(package, name, path)
    pictures = PictureText(package, options, path)
    ctx.picture = pictures.blocks
    body = root.find(_W + "body")
    boxes = prepare(root)
    walker = Walker(ctx, rels, boxes)
    blocks = walker.walk(body if body is not None else root)
    for box in boxes.get(None, ()):
        walker.walk(box)
    heads, feet = _headers_footers(package, rels, ctx, doc)
    doc.sections = [
        ("header", heads),
        (None, blocks),
        ("notes", notes(package, rels, ctx, _parts_of(rels, "footnotes", "endnotes"))),
        ("comments", comments(package, rels, ctx)),
        ("footer", feet),
    ]
    pictures.place(doc)
    return doc


def _optional(package: Package, rels: dict[str, Any], kind: str, doc: Doc) -> Any:
    """The first part of relationship type `kind`, parsed; None when absent or broken."""
    for name in _parts_of(rels, kind):
        try:
            return part_xml(package, name)
        except ContainerError:
            doc.degraded = True
    return None


def _parts_of(rels: dict[str, Any], *kinds: str) -> list[str]:
    return [
        target for key, (kind, target, ext) in sorted(rels.items()) if kind in kinds and not ext
    ]


def _headers_footers(
    package: Package, rels: dict[str, Any], ctx: Context, doc: Doc
) -> tuple[list[Block], list[Block]]:
    found: dict[str, list[Block]] = {"header": [], "footer": []}
    seen: set[str] = set()
    for name in _parts_of(rels, "header", "footer"):
        kind = "header" if "header" in rels_kind(rels, name) else "footer"
        try:
            root = part_xml(package, name)
        except ContainerError:
            doc.degraded = True
            continue
        if root is None:
            continue
        boxes = prepare(root)
        walker = Walker(ctx, relationships(package, name), boxes)
        blocks = walker.walk(root)
        for box in boxes.get(None, ()):
            blocks = walker.walk(box)
        for block in blocks:  # each distinct header or footer once, not once per section
            if block.text not in seen:
                seen.add(block.text)
                found[kind].append(block)
    return found["header"], found["footer"]


def _alt_chunk(package: Package, name: str, path: tuple[str, ...], options: Options) -> list[Block]:
    """An imported HTML or MHTML chunk (`w:altChunk`) rendered by the html extractor."""
    try:
        data = package.read(name)
    except ContainerError:
        return []
    if data and data.lstrip()[:1] != b"<":
        data = _mhtml_page(data)
    if not data:
        return []
    from indexer.formats import html

    # Imported into the document whole: no menus or sidebars for main-content extraction.
    rendered = html.extract(data, "chunk.html", replace(options, html_main_content=False))
    return [Block(chunk.text, "para", path) for chunk in rendered.chunks if not rendered.degraded]


def _mhtml_page(data: bytes) -> bytes | None:
    """The first HTML part of an MHTML (MIME) document, decoded to UTF-8, or None."""
    from email import message_from_bytes, policy

    message = message_from_bytes(data, policy=policy.default)
    for part in message.walk():
        if part.get_content_type() == "text/html":
            try:
                return str(part.get_content()).encode("utf-8", "replace")
            except Exception:  # the content manager raises assorted errors on damaged parts
                return None
    return None


def _wordml(data: bytes) -> Doc:
    """A Word 2003 XML document: its paragraphs, in order, as plain blocks."""
    root = parse_xml(data, "wordml")
    doc = Doc(degraded=False)
    blocks: list[Block] = []
    for p in root.iter(_WORDML + "p"):
        text = " ".join("".join(t.text or "" for t in p.iter(_WORDML + "t")).split())
        if text:
            blocks.append(Block(text, "para", ()))
    doc.sections = [(None, blocks)]
    return doc
