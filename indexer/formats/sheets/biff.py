"""Excel 2.x to 4.0 worksheets (BIFF2-4: a bare record stream, no OLE container) through
xlrd, as calamine cannot read them; each sheet's cells are rendered as calamine's are.

An Excel 4.0 workbook (several sheets bound in one BIFF4W file) xlrd refuses: that is
an `unsupported` failure naming the version; a damaged file is `corrupt`, naming it too.
"""

from __future__ import annotations

import datetime
import io
from typing import Any

from indexer.formats.office.container import ContainerError
from indexer.formats.sheets.rows import SheetText, cut_note, render

__all__ = ["biff_version", "read"]

_VERSIONS = {b"\x09\x00": "Excel 2.x (BIFF2)", b"\x09\x02": "Excel 3.0 (BIFF3)",
             b"\x09\x04": "Excel 4.0 (BIFF4)"}  # fmt: skip
"""A bare worksheet's version by its first record, BOF."""


def biff_version(data: bytes) -> str:
    """The Excel version that wrote a bare BIFF2-4 stream, as `Excel 4.0 (BIFF4)`."""
    return _VERSIONS.get(data[:2], "Excel 4.0 or older (BIFF2-4)")


def read(data: bytes, max_cells: int) -> tuple[list[str], list[SheetText], list[str]]:
    """The sheet names, the non-empty sheets rendered and notes on what was cut; raises
    `ContainerError` `unsupported: ...` when xlrd cannot read the file."""
    import xlrd  # only for the rare old file

    try:  # xlrd writes its warnings to a log file, stdout unless given one
        book = xlrd.open_workbook(file_contents=data, logfile=io.StringIO())
    except xlrd.XLRDError as exc:  # what it knows and refuses: an Excel 4.0 workbook
        reason = f"unsupported: an {biff_version(data)} file xlrd cannot read: {exc}"
        raise ContainerError(reason[:300]) from None
    except Exception as exc:  # a damaged stream can fail anywhere in the reader
        reason = f"corrupt: an {biff_version(data)} file: {type(exc).__name__}: {exc}"
        raise ContainerError(reason[:300]) from None
    names: list[str] = []
    sheets: list[SheetText] = []
    notes: list[str] = []
    for sheet in book.sheets():
        names.append(sheet.name)
        rows = sheet.nrows
        if rows * sheet.ncols > max_cells:
            rows = max(1, max_cells // sheet.ncols)
            notes.append(cut_note(sheet.name, rows, sheet.nrows * sheet.ncols, max_cells))
        numbered = ((r + 1, [_value(c, book.datemode) for c in sheet.row(r)]) for r in range(rows))
        text = render(sheet.name, numbered, 0, [], {})
        if text is not None:
            sheets.append(text)
    return names, sheets, notes


def _value(cell: Any, datemode: int) -> Any:
    """A cell as calamine gives it: text, a float, a bool, a date, time or datetime, or an
    error's text (`#DIV/0!`)."""
    import xlrd

    kind, value = cell.ctype, cell.value
    if kind == xlrd.XL_CELL_DATE:
        return _date(value, datemode)
    if kind == xlrd.XL_CELL_BOOLEAN:
        return bool(value)
    if kind == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(value, "#N/A")
    return value  # text, a float, or "" for an empty or blank cell


def _date(value: float, datemode: int) -> Any:
    import xlrd

    try:
        moment: datetime.datetime = xlrd.xldate_as_datetime(value, datemode)
    except (ValueError, OverflowError):  # out of the calendar: the serial number itself
        return value
    if 0 <= value < 1:
        return moment.time()
    return moment.date() if value == int(value) else moment
