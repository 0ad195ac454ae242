"""`odp`: OpenDocument presentations (`.odp .otp`), one chunk per slide, like `pptx`.

Each `draw:page` of `content.xml` is a slide: its title frame as a `#` heading, then
its other frames (text boxes, shapes, tables) top to bottom and left to right, then
its speaker notes after `Notes:`; `meta` is `{"slide": n}`. The text OCR reads in a
slide's pictures (`office.picture_text`) takes the picture's place. Title, author and dates
go in `metadata`, with the slide count as `slides`.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc, slide_chunks
from indexer.formats.office.entry import run
from indexer.formats.office.odf import DRAW, OdfWalker, open_body, properties
from indexer.formats.office.picture_text import PictureText

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["odp"]  # bumped in indexer/formats/__init__.py

_PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_ACCEPTS = ("odp",)
_LENGTH = re.compile(r"\s*(-?[0-9.]+)\s*([a-z]*)")
_UNITS = {"cm": 10.0, "mm": 1.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96}
_FURNITURE = ("page-number", "date-time", "header", "footer", "page")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract an OpenDocument presentation; never raises for bad input (see `entry.run`)."""
    return run("odp", _ACCEPTS, partial(read, path=path), data, path, options)


def read(data: bytes, options: Options, path: str = "") -> Doc:
    """Read an OpenDocument presentation into a chunk (or a few) per slide, the text in
    its pictures by OCR in their place; raises `ContainerError`."""
    package, body = open_body(data, "presentation")
    pictures = PictureText(package, options, path)
    pages = list(body.iter(DRAW + "page"))
    doc = Doc(metadata={**properties(package), "slides": len(pages)}, chunks=[])
    for number, page in enumerate(pages, start=1):
        blocks = _slide(page, pictures)
        doc.chunks = [*(doc.chunks or []), *slide_chunks(blocks, number, options)]
    pictures.place(doc)
    return doc


def _slide(page: Any, pictures: PictureText) -> list[Block]:
    title: list[str] = []
    walker = OdfWalker(picture=pictures.blocks)
    for frame in sorted(_frames(page), key=_position):
        kind = frame.get(_PRESENTATION + "class") or ""
        if kind == "title":
            title.extend(b.text for b in OdfWalker().walk(frame))
        elif kind not in _FURNITURE:
            walker.walk(frame)
    blocks = [Block("# " + " ".join(title), "heading", ())] if title else []
    blocks.extend(walker.blocks)
    notes = page.find(_PRESENTATION + "notes")
    if notes is not None:
        text = "\n".join(
            b.text for f in _frames(notes) if _is_notes(f) for b in OdfWalker().walk(f)
        )
        blocks.extend([Block("Notes:\n" + text, "para", ())] if text else [])
    return blocks


def _is_notes(frame: Any) -> bool:
    return (frame.get(_PRESENTATION + "class") or "notes") == "notes"


def _frames(page: Any) -> list[Any]:
    """The page's shapes, groups flattened (`draw:g`)."""
    found = []
    for child in page:
        if child.tag == DRAW + "g":
            found.extend(_frames(child))
        elif child.tag.startswith(DRAW) and child.tag != DRAW + "page-thumbnail":
            found.append(child)
    return found


def _position(frame: Any) -> tuple[float, float]:
    return _length(frame.get(_SVG + "y")), _length(frame.get(_SVG + "x"))


def _length(value: str | None) -> float:
    match = _LENGTH.match(value or "")
    if match is None:
        return float("inf")
    try:
        return float(match.group(1)) * _UNITS.get(match.group(2), 1.0)
    except ValueError:
        return float("inf")
