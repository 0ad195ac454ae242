"""Which pages of a PDF are scans, and their text by OCR.

In `auto` mode a page is OCR'd only when its text layer is unusable: no text over an
image covering at least `ANY_IMAGE_SHARE` of the page, or fewer than `FEW_CHARS`
characters over an image covering at least `SCAN_SHARE` of it (a scan stamped with a
page number, or one an earlier OCR read a word of). Every other page keeps its text
layer, and a document whose pages all have text is not even opened a second time: a
born-digital PDF is never OCR'd. In `force` mode every page is.

A page is rendered in grey at `ocr_dpi`, or at its scan's own resolution when that is
between `NATIVE_DPI` and `ocr_dpi`: resampling a scan smears its specks into its letters.
At most `ocr_max_pages` pages of a document are rendered for OCR (the rest are counted in
`OcrPages.capped`); a rendered page that is blank (`ocr.prepare`) never reaches the engine.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from indexer._types import Options
from indexer.formats import ocr
from indexer.formats.ocr import tally
from indexer.formats.ocr.pages import OcrPages

__all__ = ["ANY_IMAGE_SHARE", "FEW_CHARS", "NATIVE_DPI", "SCAN_SHARE", "Scanned", "recognize"]

FEW_CHARS = 20
"""A page with fewer non-blank characters than this has no usable text layer."""
SCAN_SHARE = 0.5
"""...when an image covers at least this share of it."""
ANY_IMAGE_SHARE = 0.05
"""A page with no text at all is OCR'd when images cover at least this share of it."""
NATIVE_DPI = 200
"""A scan at least this fine is read at its own resolution (up to `ocr_dpi`)."""
_MAX_PIXELS = 40_000_000
"""A rendered page has at most this many pixels, however large the page claims to be."""
_FORM_DEPTH = 2
"""How deep into form XObjects images are looked for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scanned:
    """What OCR made of a document's scanned pages (1-based page numbers)."""

    read: OcrPages | None = None
    """The pages OCR dealt with; None when it could not run."""
    unread: tuple[int, ...] = ()
    """Pages that needed OCR while it could not run (`why_not`)."""
    why_not: str | None = None
    """Why OCR could not run: no engine, a language pack missing."""

    @property
    def failed(self) -> dict[int, str]:
        """Why the engine failed on a page."""
        return self.read.failed if self.read else {}

    def metadata(self) -> dict[str, Any]:
        """`metadata["ocr"]` of the document."""
        if self.read is None:
            return {"engine": None, "pages": [], "unread": list(self.unread)}
        return self.read.metadata()


def recognize(data: bytes, pages: tuple[tuple[str, ...], ...], options: Options) -> Scanned | None:
    """OCR the pages of `data` (whose text layer gave `pages`) that need it.

    Returns None when no page needs OCR (or OCR is off). Never raises for bad input:
    a page pdfium cannot render or measure is left with its text layer.
    """
    if options.ocr_mode == "off":
        return None
    with ExitStack() as stack:
        found = _planned(data, pages, options, stack)
        if found is None:
            return None
        doc, plans = found
        engine = ocr.find_engine(options)
        why_not = ocr.unavailable(options)  # also when `engine` is None: says which is missing
        if engine is None or why_not is not None:
            tally.kept_for(why_not or ocr.NOT_INSTALLED, len(plans))
            return Scanned(unread=tuple(plans), why_not=why_not or ocr.NOT_INSTALLED)
        return Scanned(read=_read(doc, plans, engine, options.ocr_max_pages))


def scanned_pages(data: bytes, pages: tuple[tuple[str, ...], ...], options: Options) -> bool:
    """True when some page of `data` is a scan that OCR in `auto` mode would read: with
    OCR off, a document of such pages is passed over (`ocr_off`), not `empty`."""
    with ExitStack() as stack:
        return _planned(data, pages, replace(options, ocr_mode="auto"), stack) is not None


def _planned(
    data: bytes, pages: tuple[tuple[str, ...], ...], options: Options, stack: ExitStack
) -> tuple[pdfium.PdfDocument, dict[int, int]] | None:
    """The document open (closed by `stack`) and the dpi of each page to OCR; None when
    there is none."""
    force = options.ocr_mode == "force"
    few = [n for n, paras in enumerate(pages, start=1) if force or _chars(paras) < FEW_CHARS]
    if not few:
        return None
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return None
    stack.callback(doc.close)
    plans = {n: dpi for n, dpi in _plans(doc, few, pages, options) if dpi}
    return (doc, plans) if plans else None


def _chars(paras: tuple[str, ...]) -> int:
    return sum(len(para) - sum(c.isspace() for c in para) for para in paras)


def _plans(
    doc: pdfium.PdfDocument,
    numbers: list[int],
    pages: tuple[tuple[str, ...], ...],
    options: Options,
) -> Iterator[tuple[int, int]]:
    """Yield (page number, dpi to render it at; 0 to leave it alone) for each candidate."""
    for number in numbers:
        try:
            with ExitStack() as stack:
                page = doc.get_page(number - 1)
                stack.callback(page.close)
                yield number, _plan(page, _chars(pages[number - 1]), options)
        except Exception:  # pypdfium2 raises PdfiumError, and asserts on odd pages
            yield number, 0


def _plan(page: pdfium.PdfPage, chars: int, options: Options) -> int:
    """The dpi to OCR `page` at, or 0 when it is not a scan."""
    width, height = page.get_size()
    area = max(width * height, 1.0)
    share, native = 0.0, 0.0
    for image in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=_FORM_DEPTH):
        left, bottom, right, top = image.get_bounds()
        shown = max(0.0, min(right, width) - max(left, 0.0)) * max(
            0.0, min(top, height) - max(bottom, 0.0)
        )
        share += shown / area
        if shown >= SCAN_SHARE * area:
            pixels, _ = image.get_px_size()
            native = max(native, pixels * 72 / max(right - left, 1.0))
    needed = ANY_IMAGE_SHARE if chars == 0 else SCAN_SHARE
    if options.ocr_mode != "force" and share < needed:
        return 0
    dpi = min(options.ocr_dpi, round(native)) if native >= NATIVE_DPI else options.ocr_dpi
    budget = (_MAX_PIXELS / area) ** 0.5 * 72  # the dpi at which the page has _MAX_PIXELS
    return max(1, min(dpi, int(budget)))


def _read(
    doc: pdfium.PdfDocument, plans: dict[int, int], engine: ocr.Engine, limit: int
) -> OcrPages:
    out = OcrPages(engine=engine.label, source="pdf", total=len(plans), limit=limit)
    for number, dpi in list(plans.items())[:limit]:
        try:
            with ExitStack() as stack:
                page = doc.get_page(number - 1)
                stack.callback(page.close)
                bitmap = page.render(scale=dpi / 72, grayscale=True)
                stack.callback(bitmap.close)
                out.read(number, engine, bitmap.to_pil(), dpi, _MAX_PIXELS)
        except Exception:  # pypdfium2 raises PdfiumError, and asserts on odd pages
            out.failed[number] = "page cannot be rendered"
    return out
