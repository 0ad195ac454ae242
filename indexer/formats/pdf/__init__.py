"""`pdf`: text per page, paragraph chunks that never span pages, `{"page": n}` meta.

`Options.pdf_engine` picks `pdfium` (the default, `pdfium.py`: fast, two-column pages
in reading order) or `pdfplumber` (`plumber.py`: tables as GFM Markdown). A document
that fails whole (not a PDF, encrypted, corrupt, no text layer) gives one chunk
`[pdf extraction failed: <reason>]`, `degraded`, with `error` the reason; pages that
fail in a readable one are listed in `metadata["failed_pages"]`. The parsers can hang
or exhaust memory on hostile files, so the registry runs this extractor `isolated`.
"""

from __future__ import annotations

from typing import Any

from indexer._extract import failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.pdf.text import PdfFailure, PdfText

__all__ = ["NOT_A_PDF", "VERSION", "extract"]

VERSION = VERSIONS["pdf"]  # bumped in indexer/formats/__init__.py

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
    return _assemble(doc)


def _read(data: bytes, options: Options) -> PdfText:
    if options.pdf_engine == "pdfplumber":
        # Imported here: only runs that choose pdfplumber (with pdfminer) pay for it
        from indexer.formats.pdf import plumber as _pdfplumber

        return _pdfplumber.read(data, max_chars=options.max_chunk_chars)
    # Imported here: processes that never read a PDF do not pay for pypdfium2
    from indexer.formats.pdf import pdfium as _pdfium

    return _pdfium.read(data)


def _assemble(doc: PdfText) -> Extracted:
    metadata: dict[str, Any] = {"pages": len(doc.pages)}
    if doc.title:
        metadata["title"] = doc.title
    if doc.failed_pages:
        metadata["failed_pages"] = list(doc.failed_pages)
    chunks = tuple(
        Chunk(text=para, meta={"page": number})
        for number, paras in enumerate(doc.pages, start=1)
        for para in paras
    )
    if not chunks:
        return _failed(_why_empty(doc), metadata)
    text = "\n\n".join(chunk.text for chunk in chunks)
    degraded = bool(doc.failed_pages)
    return Extracted(kind="pdf", text=text, chunks=chunks, degraded=degraded, metadata=metadata)


def _why_empty(doc: PdfText) -> str:
    if not doc.pages:
        return "no pages"
    if len(doc.failed_pages) == len(doc.pages):
        return "corrupt: no page could be read"
    return "no text layer"


def _failed(reason: str, metadata: dict[str, Any] | None = None) -> Extracted:
    return Extracted(
        kind="pdf",
        text="",
        chunks=(Chunk(text=failure_text("pdf", reason)),),
        degraded=True,
        error=reason,
        metadata=metadata or {},
    )
