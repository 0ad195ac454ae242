"""`pdf`: text per page, paragraph chunks that never span pages, `{"page": n}` meta.

`Options.pdf_engine` picks `pdfium` (the default, `pdfium.py`: fast, two-column pages
in reading order) or `pdfplumber` (`plumber.py`: tables as GFM Markdown). Pages without
a usable text layer (scans) are read by OCR (`scanned.py`, by `Options.ocr_mode`): their
chunks carry `"ocr": true` and `metadata["ocr"]` names the engine and the pages. A
document that fails whole (not a PDF, encrypted, corrupt) or has no text layer gives one
chunk `[pdf extraction failed: <reason>]`, `degraded`, with `error` the reason (a
document with no text is `empty`: `indexer.reasons`); a scan with OCR off is `skipped`
(`ocr_off: no text layer`); pages
that fail in a readable one are listed in `metadata["failed_pages"]`. The parsers can
hang or exhaust memory on hostile files, so the registry runs this extractor `isolated`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer._extract import failure
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS, ocr
from indexer.formats.pdf.text import PdfFailure, PdfText

if TYPE_CHECKING:
    from indexer.formats.ocr.pages import PageText
    from indexer.formats.pdf.scanned import Scanned

__all__ = ["NOT_A_PDF", "NO_TEXT", "VERSION", "extract"]

VERSION = VERSIONS["pdf"]  # bumped in indexer/formats/__init__.py

NO_TEXT = "no text layer"
NOT_A_PDF = "response is not a PDF (missing %PDF header)"
"""The reference's reason, word for word, so its golden failure chunks match."""
_HEADER = b"%PDF-"
_HEADER_WINDOW = 1024
"""Like the reference: the whole `%PDF-` must lie within the first 1024 bytes."""


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a PDF's text with `options.pdf_engine`; never raises for bad input.

    Returns no chunks for blank input; one failure chunk (`degraded`, `error`
    set) when the document as a whole cannot be read or has no text; else one
    chunk per paragraph or table, each with `{"page": n}` (1-based).
    """
    if not data.strip():
        return Extracted(kind="pdf", text="")
    if _HEADER not in data[:_HEADER_WINDOW]:
        return _failed(NOT_A_PDF)
    try:
        doc = _read(data, options)
    except PdfFailure as exc:
        return _failed(exc.reason)
    from indexer.formats.pdf import scanned  # imports pypdfium2, as both engines do

    result = _assemble(doc, scanned.recognize(data, doc.pages, options))
    off = result.error == NO_TEXT and options.ocr_mode == "off"
    if off and scanned.scanned_pages(data, doc.pages, options):  # a scan, not a blank page
        return _failed(f"ocr_off: {NO_TEXT}", result.metadata)  # `skipped`, by its code
    return result


def _read(data: bytes, options: Options) -> PdfText:
    if options.pdf_engine == "pdfplumber":
        # Imported here: only runs that choose pdfplumber (with pdfminer) pay for it
        from indexer.formats.pdf import plumber as _pdfplumber

        return _pdfplumber.read(data, max_chars=options.max_chunk_chars)
    # Imported here: processes that never read a PDF do not pay for pypdfium2
    from indexer.formats.pdf import pdfium as _pdfium

    return _pdfium.read(data)


def _assemble(doc: PdfText, scans: Scanned | None) -> Extracted:
    metadata: dict[str, Any] = {"pages": len(doc.pages)}
    if doc.title:
        metadata["title"] = doc.title
    read = scans.read.texts if scans and scans.read else {}
    failed = sorted({*doc.failed_pages, *(scans.failed if scans else ())})
    if failed:
        metadata["failed_pages"] = failed
    capped = scans.read.note if scans and scans.read else None
    if scans:
        metadata["ocr"] = scans.metadata()
    if capped:
        metadata["notes"] = [capped]
    chunks = tuple(
        Chunk(text=para, meta=_meta(number, read.get(number)))
        for number, paras in enumerate(doc.pages, start=1)
        for para in (read[number].paragraphs if _has(read.get(number)) else paras)
    )
    if not chunks:
        return _failed(_why_empty(doc, scans), metadata)
    text = "\n\n".join(chunk.text for chunk in chunks)
    degraded = bool(failed or capped)
    return Extracted(kind="pdf", text=text, chunks=chunks, degraded=degraded, metadata=metadata)


def _has(page: PageText | None) -> bool:
    return page is not None and bool(page.paragraphs)


def _meta(number: int, page: PageText | None) -> dict[str, Any]:
    """A chunk's meta: the page, and for an OCR'd one the engine's confidence in it."""
    if page is None or not page.paragraphs:
        return {"page": number}
    return ocr.page_meta(number, page.confidence)


def _why_empty(doc: PdfText, scans: Scanned | None) -> str:
    if not doc.pages:
        return "no pages"
    if len(doc.failed_pages) == len(doc.pages):
        return "corrupt: no page could be read"
    if scans is None:
        return NO_TEXT
    if scans.read is None:
        return f"{NO_TEXT} ({scans.why_not})"
    if scans.failed:
        return f"{NO_TEXT} (OCR failed: {scans.failed[min(scans.failed)]})"
    if scans.read.capped:
        return f"{NO_TEXT} (OCR found no text in the first {scans.read.limit} pages it read)"
    return f"{NO_TEXT} (OCR found no text)"


def _failed(reason: str, metadata: dict[str, Any] | None = None) -> Extracted:
    return failure("pdf", reason, metadata)
