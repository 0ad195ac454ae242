"""The text OCR reads in the pictures of an Excel workbook's sheets (`with_pictures`).

A sheet shows pictures through its drawing part (`xl/drawings/drawingN.xml`, named by
the sheet's relationships), each a `a:blip` naming an image part. Their text follows
the workbook's cell chunks, sheet by sheet in workbook order and each sheet's pictures
in drawing order, as chunks of their own: `meta` `sheet` (the sheet's name), `picture`
(its place on the sheet) and the page's OCR flags (`office.picture_text`, which also
keeps the cap and the confidence). A workbook without a non-empty cell whose pictures
hold text is not `empty`: its chunks are those pictures' text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from indexer._types import Chunk, Extracted, Options
from indexer.formats.office.container import ContainerError, Package, open_zip
from indexer.formats.office.ooxml import NS, main_part, part_xml, relationships, rels_of_type
from indexer.formats.office.picture_text import PictureText

__all__ = ["with_pictures"]

_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R_ID = f"{{{NS['r']}}}id"
_R_EMBED = f"{{{NS['r']}}}embed"
_BLIP = f"{{{NS['a']}}}blip"


def with_pictures(result: Extracted, data: bytes, path: str, options: Options) -> Extracted:
    """`result` (an xlsx's extraction) with the text OCR reads in its sheets' pictures
    after its chunks, and their `metadata["ocr"]`; `result` as it is with OCR off, or
    when the package's sheets or drawings cannot be read."""
    if options.ocr_mode == "off" or (result.error is not None and result.status != "empty"):
        return result
    try:
        package = open_zip(data)
        pictures = PictureText(package, options, path)
        chunks = [
            c for name, parts in _sheet_pictures(package) for c in _read(pictures, name, parts)
        ]
    except ContainerError:
        return result
    found = pictures.metadata()
    if found is None:
        return result
    metadata: dict[str, Any] = {**result.metadata, "ocr": found}
    if not chunks:
        return replace(result, metadata=metadata, degraded=result.degraded or pictures.degraded)
    own = () if result.status == "empty" else result.chunks
    text = "\n\n".join(c.text for c in (*own, *chunks))
    return replace(
        result, text=text, chunks=(*own, *chunks), error=None, metadata=metadata,
        degraded=(result.degraded and bool(own)) or pictures.degraded,
    )  # fmt: skip


def _read(pictures: PictureText, sheet: str, parts: list[str]) -> list[Chunk]:
    return [
        chunk
        for number, part in enumerate(parts, start=1)
        for chunk in pictures.chunks(part, {"sheet": sheet, "picture": number})
    ]


def _sheet_pictures(package: Package) -> list[tuple[str, list[str]]]:
    """Each sheet's name and the image parts its drawings show, in workbook order."""
    workbook = main_part(package, "xl/workbook.xml")
    root = part_xml(package, workbook)
    if root is None:
        return []
    rels = relationships(package, workbook)
    found = []
    for sheet in root.iter(_S + "sheet"):
        rel = rels.get(sheet.get(_R_ID) or "")
        if rel is None or rel[2]:
            continue
        parts = _drawn(package, rel[1])
        if parts:
            found.append((sheet.get("name") or "", parts))
    return found


def _drawn(package: Package, sheet: str) -> list[str]:
    """The image parts the drawings of sheet part `sheet` show, in drawing order."""
    parts: list[str] = []
    for drawing in rels_of_type(relationships(package, sheet), "drawing"):
        root = part_xml(package, drawing)
        rels = relationships(package, drawing)
        for blip in root.iter(_BLIP) if root is not None else ():
            rel = rels.get(blip.get(_R_EMBED) or "")
            if rel is not None and rel[0] == "image" and not rel[2] and rel[1] not in parts:
                parts.append(rel[1])
    return parts
