"""`spreadsheet`: xlsx, xlsm, xlsb, xls and ods through calamine, a sheet at a time.

Each sheet becomes header-prefixed row groups (`sheets.rows`), meta `{"sheet":
name, "rows": [first, last]}` with the sheet's own row numbers. The container
is checked first (`office.container`, with `WORKBOOK_LIMITS`): a ZIP bomb, an encrypted
workbook and a corrupt one each give one failure chunk with `error` set
(`refused: ...`, `encrypted`, `corrupt: ...`). A sheet whose cells pass `max_sheet_cells` is cut
to the rows that fit (an xlsx before it is loaded, `sheets.xlsxscan`), and the result
is `degraded` with `metadata["notes"]` saying so; a workbook without a non-empty cell
is `empty` (`no_text`). An `.xls` that is really an
HTML table or delimited text, as web applications export them, goes to the
html or csv extractor. The reader is native code that can panic or exhaust
memory on hostile files, so the registry runs this extractor isolated.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING, Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.container import (
    ENCRYPTED,
    ContainerError,
    Package,
    ZipLimits,
    failed,
    open_zip,
)
from indexer.formats.office.odf import properties
from indexer.formats.office.ole import refuse_looping_chains
from indexer.formats.office.ooxml import core_properties
from indexer.formats.office.sniff import sniff
from indexer.formats.sheets.props import ole_workbook
from indexer.formats.sheets.rows import SheetText, cut_note, group, render

if TYPE_CHECKING:
    from indexer.formats.sheets.xlsxscan import Scan

__all__ = ["KIND", "VERSION", "extract"]

KIND = "spreadsheet"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
_SKIPPED_TYPES = ("ChartSheet", "Vba")
WORKBOOK_LIMITS = ZipLimits(total=2 << 30, member=2 << 30, ratio=100, ratio_floor=1 << 20)
"""The reader unpacks every member itself, so all are checked first, against these
(as POI's: a large sheet is legitimate; a member that inflates 100 times is a bomb)."""


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract every sheet of a workbook; never raises for bad input.

    Returns one failure chunk (`degraded`, `error` set) when the workbook cannot
    be read; a `## name` chunk per sheet (`degraded`) when no sheet has a
    non-empty cell; else the sheets' row groups in workbook order.
    """
    form = sniff(data)
    if form in ("html", "xml", "text"):  # web applications' "Excel" exports
        return _delegated("csv" if form == "text" else "html", data, path, options)
    if form == "biff4":
        return _old_worksheet(data, options)
    if form not in ("zip", "ole"):
        return failed(KIND, "corrupt: not a workbook (no ZIP or OLE container)")
    try:
        book = _Book.open(data, form, options)
        sheets, notes = book.sheets()
    except ContainerError as exc:
        return failed(KIND, exc.reason)
    except Exception as exc:  # a damaged container can fail anywhere in zipfile or calamine
        return failed(KIND, f"corrupt: {type(exc).__name__}: {exc}"[:300])
    names = [str(name) for name in book.reader.sheet_names]
    result = _assemble(Found(book.form, book.props, names, sheets, notes), options)
    if book.form != "xlsx":
        return result
    from indexer.formats.office.sheet_pictures import with_pictures  # the pictures' OCR

    return with_pictures(result, data, path, options)


def _old_worksheet(data: bytes, options: Options) -> Extracted:
    """An Excel 2.x-4.0 worksheet, which calamine cannot read, through xlrd (`sheets.biff`)."""
    from indexer.formats.sheets import biff

    try:
        names, sheets, notes = biff.read(data, options.max_sheet_cells)
    except ContainerError as exc:
        return failed(KIND, exc.reason)
    return _assemble(
        Found("xls", {"format_version": biff.biff_version(data)}, names, sheets, notes), options
    )


def _delegated(form: str, data: bytes, path: str, options: Options) -> Extracted:
    if form == "html":
        from indexer.formats import html as other
    else:
        from indexer.formats import csv as other  # type: ignore[no-redef]
    result = other.extract(data, path, options)
    metadata = {**result.metadata, "format": form}
    return replace(result, kind=KIND, metadata=metadata)


class _Book:
    """An open workbook: its reader, its format, properties and what the scan found."""

    def __init__(self, reader: Any, form: str, props: dict[str, str], scan: Scan | None) -> None:
        self.reader = reader
        self.form = form
        self.props = props
        self.scan = scan
        self.max_cells = 0

    @classmethod
    def open(cls, data: bytes, form: str, options: Options) -> _Book:
        """Check the container and open the reader; raises `ContainerError`."""
        scan: Scan | None = None
        if form == "zip":
            form, props, scan = _open_zip(data, options)
            data = scan.rebuilt or data if scan else data
        else:
            refuse_looping_chains(data)
            props = ole_workbook(data)
            form = "xls"
        book = cls(_reader(data), form, props, scan)
        book.max_cells = options.max_sheet_cells
        return book

    def sheets(self) -> tuple[list[SheetText], list[str]]:
        """Every non-empty sheet rendered, and notes on what was cut or lost."""
        rendered: list[SheetText] = []
        notes: list[str] = []
        for index, meta in enumerate(self.reader.sheets_metadata):
            if str(meta.typ).rpartition(".")[2] in _SKIPPED_TYPES:
                continue
            try:
                sheet = _guarded(self.reader.get_sheet_by_index, index)
            except ContainerError as exc:
                notes.append(f"sheet {meta.name!r} lost: {exc.reason}")
                continue
            text = self._render(meta.name, sheet, notes)
            if text is not None:
                rendered.append(text)
        if self.scan:  # cut parts that no sheet name led to
            named = set(self.scan.parts.values())
            for part, cut in sorted(self.scan.cuts.items()):
                if part not in named:
                    notes.append(cut_note(part, cut.rows, cut.cells, self.max_cells))
        return rendered, notes

    def _render(self, name: str, sheet: Any, notes: list[str]) -> SheetText | None:
        scan = self.scan
        part = scan.parts.get(name, "") if scan else ""
        cut = scan.cuts.get(part) if scan else None
        rows = sheet.height
        if cut is not None:
            notes.append(cut_note(name, cut.rows, cut.cells, self.max_cells))
        elif sheet.height * sheet.width > self.max_cells:
            rows = max(1, self.max_cells // sheet.width)
            notes.append(cut_note(name, rows, sheet.height * sheet.width, self.max_cells))
        start = sheet.start
        if start is None:
            return None
        errors = scan.errors.get(part, {}) if scan else {}
        # The reader's rows start at the sheet's first row, empty up to its first cell.
        numbered = enumerate(islice(sheet.iter_rows(), start[0] + rows), start=1)
        return render(name, numbered, start[1], sheet.merged_cell_ranges or [], errors)


def _open_zip(data: bytes, options: Options) -> tuple[str, dict[str, str], Scan | None]:
    """The workbook's format, properties and (an xlsx's) scan; raises `ContainerError`."""
    package = open_zip(data, WORKBOOK_LIMITS)
    package.check_all()
    try:
        form = _zip_form(package)
        props = properties(package) if form == "ods" else core_properties(package)
        if form != "xlsx":
            return form, props, None
        from indexer.formats.sheets.xlsxscan import scan

        return form, props, scan(package, options.max_sheet_cells)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as exc:
        raise ContainerError(f"corrupt: {exc}") from None


def _zip_form(package: Package) -> str:
    if (package.read("mimetype") or b"").startswith(
        b"application/vnd.oasis.opendocument.spreadsheet"
    ):
        return "ods"
    if package.has("xl/workbook.bin"):
        return "xlsb"
    if package.has("xl/workbook.xml") or package.has("[Content_Types].xml"):
        return "xlsx"
    raise ContainerError("corrupt: a ZIP without a workbook in it")


def _reader(data: bytes) -> Any:
    from python_calamine import CalamineWorkbook  # the native reader, only when needed

    return _guarded(CalamineWorkbook.from_filelike, io.BytesIO(data))


def _guarded(call: Any, *args: Any) -> Any:
    """`call(*args)`, its failures (and the reader's panics) as `ContainerError`."""
    from python_calamine import PasswordError

    try:
        return call(*args)
    except PasswordError:
        raise ContainerError(ENCRYPTED) from None
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except BaseException as exc:  # a Rust panic arrives as a BaseException
        raise ContainerError(f"corrupt: {str(exc).strip()[:200] or type(exc).__name__}") from None


@dataclass(frozen=True, slots=True)
class Found:
    """What a reader found in a workbook: its format, properties, every sheet's name,
    the non-empty sheets rendered and notes on what was cut or lost."""

    form: str
    props: dict[str, str]
    names: list[str]
    sheets: list[SheetText]
    notes: list[str]


def _assemble(found: Found, options: Options) -> Extracted:
    metadata: dict[str, Any] = {"format": found.form, **found.props}
    metadata["sheets"] = [sheet.name for sheet in found.sheets]
    if found.notes:
        metadata["notes"] = found.notes
    if not found.sheets:
        return _without_cells(found.names, metadata)
    chunks = tuple(chunk for sheet in found.sheets for chunk in group(sheet, options))
    text = "\n\n".join(sheet.text for sheet in found.sheets)
    degraded = bool(found.notes)
    return Extracted(kind=KIND, text=text, chunks=chunks, degraded=degraded, metadata=metadata)


def _without_cells(names: list[str], metadata: dict[str, Any]) -> Extracted:
    """A workbook with no cell text (charts, text boxes, embedded files): `empty`
    (`no_text`), its sheet names in `metadata` only."""
    if not names:
        return failed(KIND, "corrupt: a workbook without sheets")
    metadata["notes"] = [*metadata.get("notes", ()), "no sheet has a non-empty cell"]
    return failed(KIND, "no_text: no sheet has a non-empty cell", metadata)
