"""The text of pictures in an office document or e-book, read by OCR where they sit.

`PictureText` hands each picture to the `image` extractor, so its rules hold: nothing
is read with OCR off or without an engine, icons, bullets and logos are too small to
hold text (the rule mail attachments follow), a photograph has no text, a metafile
(EMF, WMF, SVG) is no image OCR reads. A picture used several times is read once, its
text placed where it first appears. At most `ocr_max_pages` pages of one document
reach the engine, whatever the pictures (a multi-page TIFF counts each page it has
read); the pictures left are counted in `metadata["ocr"]["not_read"]` and the document
is `degraded`.

Two placements: `blocks` puts a picture's text among the document's own words (Word,
PowerPoint, OpenDocument, spreadsheets, e-books), where its blocks cannot carry a
flag, so a page read under `LOW_CONFIDENCE` gives no text there (a logo drawn as a
picture, a photo's shadows read as `Na); SS) Vy`); `chunks` gives a picture's text as
chunks of its own (a Word 97 file made of scans, a workbook's, an e-book's), each with
`part` `picture`, `picture`, `ocr` and `ocr_confidence` in its `meta` and
`low_confidence` flagged, as a scanned page's.
`metadata()` is the document's `metadata["ocr"]` (None when no picture reached the
engine): the engine, the pictures whose text was placed, each one's confidence, and
those left out as `low_confidence`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from indexer._text import limit_chunks
from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats.ocr import low_confidence, tally
from indexer.formats.office.blocks import Block, Doc
from indexer.formats.office.container import ContainerError, Package

__all__ = ["IMAGE_NAMES", "PictureText"]

IMAGE_NAMES = (".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".bmp", ".gif", ".webp")
"""Picture names that may hold raster images; others (.emf, .wmf, .svg) are drawings."""
Load = Callable[[str], bytes | None]
"""Reads a picture by its name; None when there is none (or it is over a limit)."""


class PictureText:
    """OCR of one document's pictures, in the order the document shows them."""

    def __init__(self, load: Load | Package, options: Options, path: str) -> None:
        self._load = _part_reader(load) if isinstance(load, Package) else load
        self._options = options
        self._path = path
        self._seen: dict[str, int] = {}
        """Picture name -> the pages of it the engine was given (a repeat is not read)."""
        self._sent = 0
        self._pages = 0
        """Pages the engine was given, the cap's count."""
        self.engine: str | None = None
        self.read: dict[str, float | None] = {}
        """Picture name -> the confidence of the pictures whose text was placed."""
        self.low: dict[str, float | None] = {}
        """Picture name -> the confidence of the pictures read too poorly to place."""
        self.failed: dict[str, str] = {}
        """Picture name -> why the engine failed on it."""
        self.not_read = 0
        self.why_not: str | None = None
        """Why the first picture that gave no text gave none (`OCR is off`, ...)."""

    @classmethod
    def of(cls, pictures: list[bytes], options: Options, path: str) -> PictureText:
        """The OCR of pictures found by their bytes, named `1`, `2`, ... in that order."""
        return cls(lambda name: pictures[int(name) - 1], options, path)

    @property
    def off(self) -> bool:
        """True when no picture will be read: OCR is off (so none is even looked for)."""
        return self._options.ocr_mode == "off"

    def blocks(self, name: str | None, headings: tuple[str, ...] = ()) -> list[Block]:
        """The text OCR reads in picture `name`, as paragraphs under `headings`; none for
        pages read under `LOW_CONFIDENCE`."""
        chunks = self._chunks(name, place=True)
        return [Block(chunk.text, "para", headings) for chunk in chunks]

    def chunks(self, name: str, meta: dict[str, Any]) -> list[Chunk]:
        """The text OCR reads in picture `name` as chunks of its own, each with `meta`,
        `part` `picture` (so packing keeps it apart from the text around it, flags and
        all) and the page's `ocr`, `ocr_confidence` (and `low_confidence`) flags."""
        out = []
        for chunk in self._chunks(name, place=False):
            flags = {k: v for k, v in chunk.meta.items() if k != "page"}
            out.append(make_chunk(chunk.text, {**meta, "part": "picture", **flags}))
        return list(limit_chunks(out, self._options.max_chunk_chars))

    def _chunks(self, name: str | None, *, place: bool) -> tuple[Chunk, ...]:
        if self._options.ocr_mode == "off":
            self.why_not = "OCR is off"
            return ()
        if name is None:
            return ()
        if name in self._seen:
            tally.repeated(self._seen[name])
            return ()
        self._seen[name] = 0
        if not name.lower().endswith(IMAGE_NAMES) and not name.isdigit():
            return ()
        room = self._options.ocr_max_pages - self._pages
        if room <= 0:
            self.not_read += 1
            tally.kept("max_pages")
            return ()
        data = self._load(name)
        result = self._read(name, data, room) if data else None
        if result is None or not result.chunks or result.error is not None:
            return ()
        confidence = _confidence(result)
        if place and low_confidence(confidence):
            self.low[name] = confidence
            return ()
        (self.low if low_confidence(confidence) else self.read)[name] = confidence
        if place:  # pages read poorly in a picture read well stay out all the same
            return tuple(c for c in result.chunks if not c.meta.get("low_confidence"))
        return result.chunks

    def _read(self, name: str, data: bytes, room: int) -> Extracted | None:
        from indexer.formats import image  # OCR is only loaded for a document with pictures

        options = replace(self._options, ocr_max_pages=room)
        with tally.pictures():
            result = image.extract(data, f"{self._path}#{name}", options)
        ocr: dict[str, Any] = result.metadata.get("ocr") or {}
        if not result.chunks or result.error is not None or result.skipped is not None:
            self.why_not = self.why_not or result.skipped or result.error
        if "engine" in ocr:  # decoded and given to the engine (not too small, not skipped)
            pages = min(room, int(result.metadata.get("pages") or 1))
            self._seen[name] = given = max(0, pages - len(ocr.get("blank") or ()))
            self._pages += given
        if not ocr.get("pages") and not ocr.get("failed"):
            return None  # skipped before the engine (too small, no engine) or blank
        self._sent += 1
        self.engine = self.engine or ocr.get("engine")
        if ocr.get("not_read"):
            self.not_read += 1  # a multi-page picture cut by the cap
        if result.error is not None and result.error.startswith("OCR failed"):
            self.failed[name] = result.error
        return result

    def place(self, doc: Doc) -> None:
        """Note in `doc` what OCR read: `metadata["ocr"]`, and `degraded` when a picture's
        text may be missing."""
        read_by_ocr = self.metadata()
        if read_by_ocr is not None:
            doc.metadata["ocr"] = read_by_ocr
            doc.degraded = doc.degraded or self.degraded

    @property
    def degraded(self) -> bool:
        """True when a picture's text may be missing: the engine failed, or the cap cut."""
        return bool(self.failed) or self.not_read > 0

    def metadata(self) -> dict[str, Any] | None:
        """`metadata["ocr"]` of the document, or None when no picture reached the engine."""
        if self._sent == 0 and not self.not_read:
            return None
        meta: dict[str, Any] = {
            "engine": self.engine,
            "pictures": sorted(self.read, key=_order),
            "confidence": dict(sorted({**self.read, **self.low}.items(), key=_pair)),
        }
        if self.low:
            meta["low_confidence"] = sorted(self.low, key=_order)
        if self.failed:
            meta["failed"] = sorted(self.failed, key=_order)
        if self.not_read:
            meta["max_pages"] = self._options.ocr_max_pages
            meta["not_read"] = self.not_read
        return meta


def _part_reader(package: Package) -> Load:
    def load(part: str) -> bytes | None:
        try:
            return package.read(part)
        except ContainerError:  # over the package's limits: the picture is not read
            return None

    return load


def _confidence(result: Extracted) -> float | None:
    """A picture's confidence: its page's, or the mean of its pages' (a TIFF's)."""
    found = (result.metadata.get("ocr") or {}).get("confidence", {})
    values = [v for v in found.values() if isinstance(v, int | float)]
    if len(found) <= 1:
        return found.get("1")  # type: ignore[no-any-return]
    return round(sum(values) / len(values), 1) if values else None


def _order(name: str) -> tuple[int, str]:
    """Picture names in order: numbers (a Word 97 file's pictures) by value."""
    return (int(name), "") if name.isdigit() else (0, name)


def _pair(item: tuple[str, Any]) -> tuple[int, str]:
    return _order(item[0])
