"""An xlsx's worksheets scanned before the reader loads them.

The reader allocates every cell of a sheet's bounding box, so each sheet's XML
is streamed (never held whole) for that box; a sheet whose box passes the cell
cap is cut to the rows that fit, in a rebuilt copy of the workbook. The same
pass keeps the text of error cells (`#DIV/0!`), which the reader leaves empty.
"""

from __future__ import annotations

import functools
import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field

from indexer.formats.office.container import ContainerError, Package

_READ = 1 << 20
_WORKSHEET = "/relationships/worksheet"
_OFFICE_DOCUMENT = "/relationships/officeDocument"
_WORKSHEET_PART = re.compile(r"(?:^|/)worksheets/[^/]+\.xml$")
"""Worksheet parts by their usual name, scanned even when no relationship names them."""
_PREFIX = re.compile(rb"<(\w+:)?sheetData\b")
_ROW_NUMBER = re.compile(rb'\br="(\d+)"')
_ERROR = re.compile(
    rb'<(?:\w+:)?c\b[^>]*?\bt="e"[^>]*>(?:(?!</(?:\w+:)?c>).)*?<(?:\w+:)?v>([^<]*)<', re.DOTALL
)
_REF = re.compile(rb'\br="([A-Z]{1,3})(\d+)"')
Errors = dict[int, dict[int, str]]


@dataclass(frozen=True, slots=True)
class Cut:
    """A sheet cut to fit the cap: the rows kept of its estimated cells."""

    rows: int
    cells: int
    last_row: int
    """The last row number (1-based, as the sheet numbers them) kept."""


@dataclass(slots=True)
class Scan:
    """What the scan found: parts by sheet name, cuts and error cells by part."""

    parts: dict[str, str]
    cuts: dict[str, Cut] = field(default_factory=dict)
    errors: dict[str, Errors] = field(default_factory=dict)
    rebuilt: bytes | None = None
    """The workbook with its cut sheets, when any sheet was cut."""


_SHARED_STRINGS = re.compile(r"(?:^|/)sharedStrings\.xml$", re.IGNORECASE)
_SST_TAG = re.compile(rb"<(?:\w+:)?sst\b[^>]*>")
_UNIQUE_COUNT = re.compile(rb'\suniqueCount\s*=\s*["\']\s*(\d+)')
_SI_BYTES = 5
"""The fewest bytes a shared string takes (`<si/>`)."""


def check_shared_strings(archive: zipfile.ZipFile) -> None:
    """Raise `ContainerError` (`refused: ...`) when a shared-strings part declares more
    strings (`uniqueCount`) than its bytes can hold: the reader reserves room for the
    declared count before reading one, and a 2 KB workbook declaring two billion
    took its worker down (SIGABRT, out of memory in native code)."""
    for name, info in archive.NameToInfo.items():
        if not _SHARED_STRINGS.search(name):
            continue
        with archive.open(name) as handle:
            head = handle.read(_READ)
        tag = _SST_TAG.search(head)
        count = _UNIQUE_COUNT.search(tag.group()) if tag else None
        if count and int(count.group(1)) > info.file_size // _SI_BYTES:
            raise ContainerError(
                f"refused: {name} declares {count.group(1).decode()[:20]} strings "
                f"in {info.file_size} bytes"
            )


def scan(package: Package, max_cells: int) -> Scan:
    """Scan every worksheet of `package` (its members checked already: `check_all`);
    raises `ContainerError` when a part cannot be read, or declares more shared
    strings than it holds."""
    archive = package.archive
    try:
        check_shared_strings(archive)
        result = Scan(parts=worksheet_parts(package))
        loose = {n for n in archive.NameToInfo if _WORKSHEET_PART.search(n)}
        for part in sorted(loose | set(result.parts.values())):
            cut, errors = _scan_part(archive, part, max_cells)
            if cut is not None:
                result.cuts[part] = cut
            if errors:
                result.errors[part] = errors
        if result.cuts:
            result.rebuilt = _rebuild(archive, result.cuts)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ContainerError(f"corrupt: {exc}") from None
    return result


def worksheet_parts(package: Package) -> dict[str, str]:
    """Each worksheet's zip member name by sheet name, from the workbook's relationships."""
    archive = package.archive
    found = _targets(package, "_rels/.rels", "", _OFFICE_DOCUMENT).values()
    book = next(iter(found), "xl/workbook.xml")
    if book not in archive.NameToInfo:
        return {}
    folder, base = posixpath.split(book)
    targets = _targets(package, posixpath.join(folder, "_rels", base + ".rels"), folder, _WORKSHEET)
    parts = {}
    for sheet in package.xml(book).iter():
        # the relationship id's namespace differs between transitional and strict OOXML
        rid = next((v for k, v in sheet.attrib.items() if k.endswith("}id")), "")
        if sheet.tag.endswith("}sheet") and targets.get(rid) in archive.NameToInfo:
            parts[sheet.get("name", "")] = targets[rid]
    return parts


def _targets(package: Package, rels: str, folder: str, kind: str) -> dict[str, str]:
    if rels not in package.archive.NameToInfo:
        return {}
    found = {}
    for rel in package.xml(rels):
        target = rel.get("Target", "")
        if rel.get("Type", "").endswith(kind) and rel.get("TargetMode") != "External":
            path = target[1:] if target.startswith("/") else posixpath.join(folder, target)
            found[rel.get("Id", "")] = posixpath.normpath(path)
    return found


def _stream(archive: zipfile.ZipFile, part: str) -> Iterator[bytes]:
    """Yield the part's bytes in pieces that end before a `<`, so no tag is split."""
    carry = b""
    with archive.open(part) as handle:
        while piece := handle.read(_READ):
            text = carry + piece
            cut = text.rfind(b"<")
            if cut <= 0:
                carry = text
                continue
            carry = text[cut:]
            yield text[:cut]
    if carry:
        yield carry


def _prefix(text: bytes) -> bytes:
    """The namespace prefix of the sheet's elements (`x:` from some generators), or none."""
    found = _PREFIX.search(text)
    return (found.group(1) or b"") if found else b""


class _Extent:
    """The bounding box of a worksheet's cells, as the reader will allocate it."""

    def __init__(self, prefix: bytes) -> None:
        self.row_tag = re.compile(b"<" + prefix + rb"row[\s>/]")
        self.cell_ref = re.compile(b"<" + prefix + rb'c\b[^>]*? r="([A-Z]{1,3})\d')
        self.cell_tags = (b"<" + prefix + b"c ", b"<" + prefix + b"c>")
        self.cell_past = rb' r="[A-Z]{1,3}\d{%d}'
        self.contradicted = False
        self.first_row = self.last_row = self.rows = self.cells = 0
        self.first_col = 1 << 20
        self.last_col = 0
        self.errors: Errors = {}

    def feed(self, text: bytes) -> None:
        rows = self.row_tag.findall(text)
        if rows:
            self.rows += len(rows)
            first = _ROW_NUMBER.search(text, text.find(rows[0]))
            last = _ROW_NUMBER.search(text, text.rfind(rows[-1]))
            if first and not self.first_row:
                self.first_row = int(first.group(1))
            if last:
                self.last_row = max(self.last_row, int(last.group(1)))
        letters = set(self.cell_ref.findall(text))
        if not letters:  # cells without references, placed one after another
            self.cells += sum(map(text.count, self.cell_tags))
        else:
            numbers = [_column(ref) for ref in letters]
            self.first_col = min(self.first_col, *numbers)
            self.last_col = max(self.last_col, *numbers)
        if not self.contradicted:
            self.contradicted = self._cell_row_past(text)
        if b't="e"' in text:
            self._errors(text)

    def _cell_row_past(self, text: bytes) -> bool:
        """True when a cell's reference names a row of more digits than any row has:
        the reader places a cell by its reference, so its box would reach that row."""
        digits = len(str(max(self.last_row, self.rows))) + 1
        return digits <= 7 and re.search(self.cell_past % digits, text) is not None

    def _errors(self, text: bytes) -> None:
        for match in _ERROR.finditer(text):
            ref = _REF.search(match.group(0))
            if ref:
                row, col = int(ref.group(2)) - 1, _column(ref.group(1)) - 1
                self.errors.setdefault(row, {})[col] = match.group(1).decode("utf-8", "replace")

    def estimate(self) -> tuple[int, int]:
        """Rows times columns of the box (at least the cells seen), and its width."""
        height = max(self.rows, self.last_row - max(self.first_row, 1) + 1, 1)
        width = max(1, self.last_col - self.first_col + 1, -(-self.cells // height))
        return max(height * width, self.cells), width


@functools.lru_cache(maxsize=4096)
def _column(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def _scan_part(archive: zipfile.ZipFile, part: str, max_cells: int) -> tuple[Cut | None, Errors]:
    extent: _Extent | None = None
    for text in _stream(archive, part):
        if extent is None:
            extent = _Extent(_prefix(text))
        extent.feed(text)
    if extent is None:
        return None, {}
    cells, width = extent.estimate()
    if extent.contradicted:  # no cut by rows can bound it: keep none
        return Cut(rows=0, cells=cells, last_row=0), extent.errors
    if cells <= max_cells:
        return None, extent.errors
    rows = max(1, max_cells // width)
    return Cut(rows=rows, cells=cells, last_row=max(extent.first_row, 1) + rows - 1), extent.errors


def _cut_part(archive: zipfile.ZipFile, part: str, cut: Cut) -> bytes:
    """The part's rows up to `cut.last_row` (by number: rows may skip), closed to parse."""
    kept: list[bytes] = []
    number = 0
    prefix: bytes | None = None
    for text in _stream(archive, part):
        if prefix is None:
            prefix = _prefix(text)
        for match in re.finditer(b"<" + prefix + rb"row\b[^>]*>", text):
            given = _ROW_NUMBER.search(match.group(0))
            number = int(given.group(1)) if given else number + 1
            if number > cut.last_row:
                kept.append(text[: match.start()])
                return b"".join(kept) + b"</%ssheetData></%sworksheet>" % (prefix, prefix)
        kept.append(text)
    return b"".join(kept)


def _rebuild(archive: zipfile.ZipFile, cuts: dict[str, Cut]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as rebuilt:
        for info in archive.infolist():
            cut = cuts.get(info.filename)
            body = _cut_part(archive, info.filename, cut) if cut else archive.read(info)
            rebuilt.writestr(zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0)), body)
    return out.getvalue()
