"""The `pdfium` PDF engine (pypdfium2): fast, and keeps multi-column pages in order.

Every pdfium handle (document, page, text page) is closed before `read` returns,
whatever happens, so a long-lived worker process does not accumulate them.
"""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Iterator
from contextlib import ExitStack

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from indexer.formats.pdf.text import (
    Line,
    PdfFailure,
    PdfText,
    clean_text,
    paragraphs,
)

__all__ = ["read"]

_LOAD_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: "encrypted (password required)",
    pdfium_c.FPDF_ERR_SECURITY: "encrypted (unsupported security handler)",
    pdfium_c.FPDF_ERR_FORMAT: "corrupt: not a readable PDF structure",
    # `_reset_last_error` leaves FILE behind, which no in-memory load sets: the load
    # failed without an error code, as it does for an empty or unusable page tree.
    pdfium_c.FPDF_ERR_FILE: "corrupt: empty or unreadable page tree",
    pdfium_c.FPDF_ERR_SUCCESS: "corrupt: empty or unreadable page tree",
    pdfium_c.FPDF_ERR_PAGE: "corrupt: page tree cannot be read",
}
# A line whose last character sits lower than its first by this share of the font
# size spans several physical lines (pdfium joins the lines of a hyphenated word).
_FOLD_SHARE = 0.5
# Text indices are looked up from the first character pdfium did not exclude;
# give up on positions (not on text) past this many excluded leading characters.
_MAX_EXCLUDED = 16


def read(data: bytes) -> PdfText:
    """Read `data` with pdfium; return its paragraphs per page.

    Raises `PdfFailure` when the document cannot be opened (encrypted, corrupt).
    A page that cannot be loaded is listed in `failed_pages`; the others are read.
    """
    with warnings.catch_warnings(), ExitStack() as stack:
        warnings.simplefilter("ignore")
        doc = _open(data)
        stack.callback(doc.close)
        pages: list[tuple[str, ...]] = []
        failed: list[int] = []
        for index in range(len(doc)):
            try:
                pages.append(tuple(_page_paragraphs(doc, index)))
            except Exception:  # pypdfium2 raises PdfiumError, and asserts on odd text
                pages.append(())
                failed.append(index + 1)
        return PdfText(pages=tuple(pages), failed_pages=tuple(failed), title=_title(doc))


def _open(data: bytes) -> pdfium.PdfDocument:
    _reset_last_error()
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = _LOAD_ERRORS.get(getattr(exc, "err_code", None))
        raise PdfFailure(reason or "corrupt: document cannot be loaded") from None


def _reset_last_error() -> None:
    """Set pdfium's sticky last-error code to FILE, by failing to open the path "".

    pdfium keeps the code of the last failed load and some failures set none, so
    without this a document's reason would depend on the one read before it.
    """
    stray = pdfium_c.FPDF_LoadDocument(b"", None)
    if stray:
        pdfium_c.FPDF_CloseDocument(stray)


def _title(doc: pdfium.PdfDocument) -> str | None:
    try:
        title = clean_text(doc.get_metadata_value("Title")).strip()
    except (pdfium.PdfiumError, UnicodeDecodeError):
        return None
    return " ".join(title.split()) or None


def _page_paragraphs(doc: pdfium.PdfDocument, index: int) -> list[str]:
    with ExitStack() as stack:
        page = doc.get_page(index)
        stack.callback(page.close)
        textpage = page.get_textpage()
        stack.callback(textpage.close)
        return paragraphs(list(_lines(textpage)))


def _lines(textpage: pdfium.PdfTextPage) -> Iterator[Line]:
    """Yield the page's lines in pdfium's reading order, each with its position."""
    text = textpage.get_text_range()
    first = _first_text_index(textpage)
    probe = _Probe(textpage)
    line: Line | None = None
    offset = 0
    for raw in text.split("\r\n"):
        line = probe.place(raw, None if first is None else first + offset, line)
        yield line
        offset += len(raw) + 2


class _Probe:
    """Looks up where characters of one text page lie, reusing its ctypes buffers."""

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        self.textpage = textpage
        self.x, self.y = ctypes.c_double(), ctypes.c_double()
        self.box = pdfium_c.FS_RECTF()

    def place(self, raw: str, index: int | None, prev: Line | None) -> Line:
        """Return `raw` placed by its first and last characters (text indices from `index`).

        A line pdfium cannot place sits where the previous one ended, so it never
        starts a paragraph by itself.
        """
        width = len(raw.rstrip())
        start = self.origin(index) if index is not None and width else None
        if index is None or start is None:
            return Line(text=raw, x=prev.x if prev else 0.0, y=prev.last_y if prev else 0.0)
        size = self.height(index)
        end = self.origin(index + width - 1)
        folded = end is not None and end[1] - start[1] > _FOLD_SHARE * max(size, 1.0)
        end_y = end[1] if folded and end else None
        return Line(text=raw, x=start[0], y=start[1], end_y=end_y, size=size)

    def origin(self, text_index: int) -> tuple[float, float] | None:
        """Return (x, y) of a character's origin, y growing down the page; None if unknown."""
        char = pdfium_c.FPDFText_GetCharIndexFromTextIndex(self.textpage, text_index)
        if char < 0 or not pdfium_c.FPDFText_GetCharOrigin(self.textpage, char, self.x, self.y):
            return None
        return self.x.value, -self.y.value

    def height(self, text_index: int) -> float:
        """Return the height of a character's font box (its font size, as laid out)."""
        char = pdfium_c.FPDFText_GetCharIndexFromTextIndex(self.textpage, text_index)
        if char < 0 or not pdfium_c.FPDFText_GetLooseCharBox(self.textpage, char, self.box):
            return 0.0
        return abs(float(self.box.top) - float(self.box.bottom))


def _first_text_index(textpage: pdfium.PdfTextPage) -> int | None:
    """Return the text index of the page text's first character, or None if unknown."""
    for char in range(min(textpage.count_chars(), _MAX_EXCLUDED)):
        index = int(pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, char))
        if index >= 0:
            return index
    return None
