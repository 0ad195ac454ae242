"""The `pdfplumber` PDF engine: tables as GFM Markdown, the text around them as paragraphs.

Slow (pdfminer in pure Python) and it reads two-column pages line by line
across both columns; choose it for table-heavy documents.
"""

from __future__ import annotations

import bisect
import io
import logging
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfpage import PDFPage
from pdfplumber.page import Page
from pdfplumber.pdf import PDF

from indexer.formats.pdf.text import (
    Line,
    PdfFailure,
    PdfText,
    clean_text,
    paragraphs,
    sanitize_message,
)

__all__ = ["markdown_table", "read"]

_NOISY_LOGGERS = ("pdfminer", "pdfplumber")
# pdfminer writes a glyph it cannot map to Unicode as "(cid:123)": noise, not text.
_CID = re.compile(r"\(cid:\d+\)")
Box = tuple[float, float, float, float]


def read(data: bytes, *, max_chars: int) -> PdfText:
    """Read `data` with pdfplumber; return its paragraphs and tables per page.

    A table longer than `max_chars` comes in several blocks of whole rows, each
    under its own copy of the header.

    Raises `PdfFailure` when the document cannot be opened or no page of it can
    be reached. A page that fails is listed in `failed_pages`; when the page
    tree breaks off part way, the page after the last one reached is listed.
    """
    with _quiet():
        pdf = _open(data)
        try:
            texts: list[tuple[str, ...]] = []
            failed: list[int] = []
            try:
                for page in _pages(pdf):
                    blocks = None if page is None else _read_page(page, max_chars)
                    texts.append(blocks or ())
                    if blocks is None:
                        failed.append(len(texts))
            except Exception as exc:
                if not texts:
                    raise PdfFailure(_reason(exc)) from None
                texts.append(())
                failed.append(len(texts))
            return PdfText(pages=tuple(texts), failed_pages=tuple(failed), title=_title(pdf))
        finally:
            _close(pdf)


def _pages(pdf: PDF) -> Iterator[Page | None]:
    """Yield each page of the page tree, or None for a page pdfplumber cannot set up.

    Unlike `PDF.pages`, one broken page does not lose the others.
    """
    doctop = 0.0
    for number, raw in enumerate(PDFPage.create_pages(pdf.doc), start=1):
        try:
            page = Page(pdf, raw, page_number=number, initial_doctop=doctop)
        except Exception:
            yield None
            continue
        doctop += float(page.height)
        yield page


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence pdfminer's warnings and log records while reading, then restore them."""
    loggers = [logging.getLogger(name) for name in _NOISY_LOGGERS]
    levels = [logger.level for logger in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for logger in loggers:
            logger.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            for logger, level in zip(loggers, levels, strict=True):
                logger.setLevel(level)


def _open(data: bytes) -> PDF:
    try:
        return pdfplumber.open(io.BytesIO(data), raise_unicode_errors=False)
    except Exception as exc:
        raise PdfFailure(_reason(exc)) from None


def _close(pdf: PDF) -> None:
    try:
        pdf.close()
    except Exception:  # close() walks the page tree again, which may be what failed
        pdf.stream.close()


def _reason(exc: BaseException) -> str:
    """Return the stable failure reason for an exception pdfplumber raised."""
    inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc
    if isinstance(inner, PDFPasswordIncorrect):
        return "encrypted (password required)"
    if isinstance(inner, PDFEncryptionError):
        return "encrypted (unsupported security handler)"
    detail = str(inner).strip()
    name = type(inner).__name__
    return "corrupt: " + sanitize_message(f"{name}: {detail}" if detail else name)


def _title(pdf: PDF) -> str | None:
    title = pdf.metadata.get("Title")
    if not isinstance(title, str):
        return None
    return " ".join(clean_text(title).split()) or None


def _read_page(page: Page, max_chars: int) -> tuple[str, ...] | None:
    """Return the page's blocks, or None when pdfplumber fails on it; closes the page."""
    try:
        return tuple(_page_blocks(page, max_chars))
    except Exception:
        return None
    finally:
        page.close()


def _page_blocks(page: Page, max_chars: int) -> list[str]:
    """Return a page's paragraphs and Markdown tables, top to bottom."""
    tables = _real_tables(page, max_chars)
    boxes = [box for box, _ in tables]
    text_page = page.filter(lambda obj: not _inside_any(obj, boxes)) if boxes else page
    lines = [
        Line(
            text=_CID.sub("", row["text"]),
            x=float(row["x0"]),
            y=float(row["top"]),
            size=float(row["bottom"]) - float(row["top"]),
        )
        for row in text_page.extract_text_lines(strip=True, return_chars=False)
    ]
    tables.sort(key=lambda item: (item[0][1], item[0][0]))
    tops = [box[1] for box, _ in tables]
    between: list[list[Line]] = [[] for _ in range(len(tables) + 1)]
    for line in lines:
        between[bisect.bisect_right(tops, line.y)].append(line)
    blocks = paragraphs(between[0])
    for (_, table), after in zip(tables, between[1:], strict=True):
        blocks.extend(table)
        blocks.extend(paragraphs(after))
    return blocks


def _real_tables(page: Page, max_chars: int) -> list[tuple[Box, list[str]]]:
    """Return the page's innermost tables that have at least two rows and two columns."""
    found = page.find_tables()
    boxes: list[Box] = [_box(table.bbox) for table in found]
    tables = []
    for table, box in zip(found, boxes, strict=True):
        if any(other != box and _contains(box, other) for other in boxes):
            continue  # a frame around other tables: keep the inner ones
        rendered = markdown_table(table.extract(), max_chars)
        if rendered:
            tables.append((box, rendered))
    return tables


def _box(bbox: Sequence[float]) -> Box:
    x0, top, x1, bottom = bbox
    return float(x0), float(top), float(x1), float(bottom)


def _contains(outer: Box, inner: Box) -> bool:
    x0, top, x1, bottom = outer
    return x0 <= inner[0] and top <= inner[1] and inner[2] <= x1 and inner[3] <= bottom


def _inside_any(obj: dict[str, Any], boxes: Sequence[Box]) -> bool:
    if "x0" not in obj or "top" not in obj:
        return False
    cx = (obj["x0"] + obj["x1"]) / 2
    cy = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= cx <= x1 and top <= cy <= bottom for x0, top, x1, bottom in boxes)


def markdown_table(rows: Sequence[Sequence[str | None]], max_chars: int) -> list[str]:
    """Render table rows as GFM tables, the first row as the header.

    Cells are cleaned, their line breaks and runs of spaces folded, `|` escaped;
    empty rows and empty columns are dropped. The body is cut into pieces of
    whole rows that stay within `max_chars` with the header repeated on each
    (a single row too long for that gets a piece of its own). Returns no piece
    when fewer than two rows or two columns are left: a box around text is not
    a table.
    """
    width = max((len(row) for row in rows), default=0)
    grid = [[_cell(row[i] if i < len(row) else None) for i in range(width)] for row in rows]
    grid = [row for row in grid if any(row)]
    keep = [i for i in range(width) if any(row[i] for row in grid)]
    lines = [_row([row[i] for i in keep]) for row in grid]
    if len(lines) < 2 or len(keep) < 2:
        return []
    head = lines[0] + "\n" + _row(["---"] * len(keep))
    pieces: list[list[str]] = []
    size = max_chars
    for line in lines[1:]:
        if size + 1 + len(line) > max_chars:
            pieces.append([])
            size = len(head)
        pieces[-1].append(line)
        size += 1 + len(line)
    return ["\n".join([head, *piece]) for piece in pieces]


def _cell(value: str | None) -> str:
    text = " ".join(_CID.sub("", clean_text(value or "")).split())
    return text.replace("|", "\\|")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
