"""`pptx`: PowerPoint presentations (`.pptx .pptm .ppsx .potx`), one chunk per slide.

Slides come in the presentation's order. A slide's chunk holds its title as a `#`
heading, its text frames and tables (GFM) in reading order (`pptx.shapes`), its comments
and its speaker notes after `Notes:`; `meta` is `{"slide": n}` (1-based). The text OCR
reads in a slide's pictures (`office.picture_text`, under `ocr_mode`) takes the
picture's place, and `metadata["ocr"]` lists the pictures read. A slide
longer than `max_chunk_chars` is split between blocks, and a block too long alone
along its own syntax; every piece keeps the slide's `meta`. Title, author and dates
go in `metadata`, with the slide count as `slides`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc, slide_chunks
from indexer.formats.office.charts import chart_blocks
from indexer.formats.office.container import ContainerError, Package, open_zip
from indexer.formats.office.entry import run
from indexer.formats.office.ooxml import (
    core_properties,
    main_part,
    part_xml,
    relationships,
    rels_of_type,
)
from indexer.formats.office.picture_text import PictureText
from indexer.formats.office.pptx.shapes import Positions, frame_lines, slide_blocks

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["pptx"]  # bumped in indexer/formats/__init__.py

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_ACCEPTS = ("pptx",)


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a PowerPoint presentation; never raises for bad input (see `entry.run`)."""
    return run("pptx", _ACCEPTS, partial(read, path=path), data, path, options)


def read(data: bytes, options: Options, path: str = "") -> Doc:
    """Read a presentation package into one chunk (or a few) per slide, its pictures'
    text by OCR; raises `ContainerError`."""
    package = open_zip(data)
    pictures = PictureText(package, options, path)
    main = main_part(package, "ppt/presentation.xml")
    root = part_xml(package, main)
    if root is None:
        raise ContainerError("corrupt: no presentation part")
    rels = relationships(package, main)
    slides = _slide_parts(root, rels)
    doc = Doc(metadata={**core_properties(package), "slides": len(slides)}, chunks=[])
    layouts: dict[str, Positions] = {}
    for number, name in enumerate(slides, start=1):
        try:
            blocks = _slide(package, name, layouts, pictures)
        except ContainerError:  # one broken slide loses its own text only
            doc.degraded = True
            continue
        doc.chunks = [*(doc.chunks or []), *slide_chunks(blocks, number, options)]
    pictures.place(doc)
    return doc


def _slide_parts(root: Any, rels: dict[str, Any]) -> list[str]:
    """The slides in presentation order; without a usable list, in the order of their rels."""
    listed = root.find(f"{P}sldIdLst")
    order = [] if listed is None else [s.get(_R_ID) for s in listed.iter(P + "sldId")]
    names = [rels[rid][1] for rid in order if rid in rels and not rels[rid][2]]
    return names or rels_of_type(rels, "slide")


def _slide(
    package: Package, name: str, layouts: dict[str, Positions], pictures: PictureText
) -> list[Block]:
    root = part_xml(package, name)
    if root is None:
        return []
    rels = relationships(package, name)
    tree = root.find(f"{P}cSld/{P}spTree")
    if tree is None:
        return []
    embedded = partial(_embedded, package, rels, pictures)
    text = slide_blocks(tree, _positions(package, rels, layouts), embedded)
    blocks = [Block("# " + " ".join(text.title), "heading", ())] if text.title else []
    blocks.extend(text.blocks)
    blocks.extend(_comments(package, rels))
    notes = _notes(package, rels)
    if notes:
        blocks.append(Block("Notes:\n" + notes, "para", ()))
    return blocks


def _positions(package: Package, rels: dict[str, Any], cache: dict[str, Positions]) -> Positions:
    """Where the slide's layout and master put their placeholders (each read once)."""
    layout = next(iter(rels_of_type(rels, "slideLayout")), "")
    if layout not in cache:
        try:
            layout_root = part_xml(package, layout) if layout else None
            masters = rels_of_type(relationships(package, layout), "slideMaster") if layout else []
            master_root = part_xml(package, masters[0]) if masters else None
        except ContainerError:  # positions only order the shapes: without them, tree order
            layout_root = master_root = None
        cache[layout] = Positions(layout_root, master_root)
    return cache[layout]


def _embedded(
    package: Package, rels: dict[str, Any], pictures: PictureText, rid: str
) -> list[Block]:
    rel = rels.get(rid)
    if rel is None or rel[2]:
        return []
    if rel[0] == "image":
        return pictures.blocks(rel[1])
    return chart_blocks(package, rel[1]) if rel[0] == "chart" else []


def _notes(package: Package, rels: dict[str, Any]) -> str:
    for name in rels_of_type(rels, "notesSlide"):
        try:
            root = part_xml(package, name)
        except ContainerError:
            return ""
        tree = root.find(f"{P}cSld/{P}spTree") if root is not None else None
        if tree is not None:
            found = slide_blocks(tree, Positions(), lambda rid: [], notes=True)
            return "\n".join(block.text for block in found.blocks)
    return ""


def _comments(package: Package, rels: dict[str, Any]) -> list[Block]:
    blocks = []
    for name in rels_of_type(rels, "comments"):
        try:
            root = part_xml(package, name)
        except ContainerError:
            continue
        for comment in root.iter("{*}cm") if root is not None else ():
            text = " ".join(frame_lines(comment) or [" ".join("".join(comment.itertext()).split())])
            if text:
                blocks.append(Block(f"Comment: {text}", "para", ()))
    return blocks
