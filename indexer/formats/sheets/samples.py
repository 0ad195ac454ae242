"""Small valid workbooks built in code: the conformance corpus's and the tests' samples.

`xlsx` writes SpreadsheetML by hand (shared strings, a date style, error cells,
merged ranges, document properties); `ods` writes OpenDocument; `xls5` and `biff4`
write the legacy Excel 5.0/95 and 4.0 record streams. All are deterministic: fixed
member order and timestamps.
"""

from __future__ import annotations

import datetime
import struct
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from indexer.formats.office.ole_samples import ole_file
from indexer.formats.office.samples import zip_package

Value = str | int | float | bool | datetime.date | None
Sheet = tuple[str, Sequence[Sequence[Value]]]
_EPOCH = datetime.date(1899, 12, 30)
_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


def column_letters(index: int) -> str:
    """`A` for 0, `Z` for 25, `AA` for 26: a column's name."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _cell(ref: str, value: Value, strings: dict[str, int]) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, int | float):
        return f'<c r="{ref}"><v>{value!r}</v></c>'
    if isinstance(value, datetime.date):
        return f'<c r="{ref}" s="1"><v>{(value - _EPOCH).days}</v></c>'
    if value.startswith("#") and value.endswith(("!", "?", "A")):
        return f'<c r="{ref}" t="e"><v>{escape(value)}</v></c>'
    index = strings.setdefault(value, len(strings))
    return f'<c r="{ref}" t="s"><v>{index}</v></c>'


def _sheet_xml(rows: Sequence[Sequence[Value]], strings: dict[str, int], merged: str) -> bytes:
    lines = [f'<?xml version="1.0" encoding="UTF-8"?><worksheet {_NS}><sheetData>']
    for r, row in enumerate(rows, start=1):
        cells = "".join(_cell(f"{column_letters(c)}{r}", v, strings) for c, v in enumerate(row))
        lines.append(f'<row r="{r}">{cells}</row>')
    lines.append("</sheetData>")
    if merged:
        refs = merged.split()
        lines.append(f'<mergeCells count="{len(refs)}">')
        lines.extend(f'<mergeCell ref="{ref}"/>' for ref in refs)
        lines.append("</mergeCells>")
    lines.append("</worksheet>")
    return "".join(lines).encode()


def _core(props: dict[str, str]) -> bytes:
    tags = {"title": "dc:title", "creator": "dc:creator"}
    body = "".join(f"<{tags[k]}>{escape(v)}</{tags[k]}>" for k, v in props.items() if k in tags)
    for key in ("created", "modified"):
        if key in props:
            body += f'<dcterms:{key} xsi:type="dcterms:W3CDTF">{props[key]}</dcterms:{key}>'
    return (
        '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties '
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{body}</cp:coreProperties>'
    ).encode()


def xlsx(
    sheets: Sequence[Sheet],
    props: dict[str, str] | None = None,
    merged: dict[str, str] | None = None,
) -> bytes:
    """An xlsx of `sheets` (name, rows); `merged` maps a sheet to ranges like `A1:C1 A2:A3`."""
    strings: dict[str, int] = {}
    parts = [
        (f"xl/worksheets/sheet{i}.xml", _sheet_xml(rows, strings, (merged or {}).get(name, "")))
        for i, (name, rows) in enumerate(sheets, start=1)
    ]
    sst = "".join(f'<si><t xml:space="preserve">{escape(s)}</t></si>' for s in strings)
    return zip_package(dict([
        *_package([name for name, _ in parts]),
        ("docProps/core.xml", _core(props or {})),
        *_workbook([name for name, _ in sheets]),
        ("xl/sharedStrings.xml", (
            f'{_HEAD}<sst {_NS} count="{len(strings)}" uniqueCount="{len(strings)}">{sst}</sst>'
        ).encode()),
        *parts,
    ]))  # fmt: skip


_HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
_SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_BOOK_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"


def _package(parts: list[str]) -> list[tuple[str, bytes]]:
    """The content types and the package relationships of a workbook with `parts`."""
    overrides = "".join(f'<Override PartName="/{p}" ContentType="{_SHEET_TYPE}"/>' for p in parts)
    return [
        ("[Content_Types].xml", (
            f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{_BOOK_TYPE}"/>{overrides}</Types>'
        ).encode()),
        ("_rels/.rels", (
            f'{_HEAD}<Relationships xmlns="{_PKG}">'
            f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="xl/workbook.xml"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/'
            'relationships/metadata/core-properties" Target="docProps/core.xml"/>'
            "</Relationships>"
        ).encode()),
    ]  # fmt: skip


def _workbook(names: list[str]) -> list[tuple[str, bytes]]:
    """The workbook part naming the sheets, its relationships, and a date style."""
    entries = "".join(
        f'<sheet name={quoteattr(name)} sheetId="{i}" r:id="rId{i}"/>'
        for i, name in enumerate(names, start=1)
    )
    rels = "".join(
        f'<Relationship Id="rId{i}" Type="{_REL}/worksheet" Target="worksheets/sheet{i}.xml"/>'
        for i in range(1, len(names) + 1)
    )
    n = len(names)
    return [
        ("xl/workbook.xml", (
            f'{_HEAD}<workbook {_NS} xmlns:r="{_REL}"><sheets>{entries}</sheets></workbook>'
        ).encode()),
        ("xl/_rels/workbook.xml.rels", (
            f'{_HEAD}<Relationships xmlns="{_PKG}">{rels}'
            f'<Relationship Id="rId{n + 1}" Type="{_REL}/sharedStrings" '
            f'Target="sharedStrings.xml"/><Relationship Id="rId{n + 2}" Type="{_REL}/styles" '
            'Target="styles.xml"/></Relationships>'
        ).encode()),
        ("xl/styles.xml", (
            f'{_HEAD}<styleSheet {_NS}><cellXfs count="2"><xf numFmtId="0"/>'
            '<xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>'
        ).encode()),
    ]  # fmt: skip


_ODS_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"'
)


def _ods_cell(value: Value) -> str:
    if value is None:
        return "<table:table-cell/>"
    if isinstance(value, bool):
        flag = str(value).lower()
        return f'<table:table-cell office:value-type="boolean" office:boolean-value="{flag}"/>'
    if isinstance(value, int | float):
        return f'<table:table-cell office:value-type="float" office:value="{value!r}"/>'
    if isinstance(value, datetime.date):
        return f'<table:table-cell office:value-type="date" office:date-value="{value}"/>'
    text = escape(value)
    return (
        f'<table:table-cell office:value-type="string"><text:p>{text}</text:p></table:table-cell>'
    )


def ods(sheets: Sequence[Sheet], props: dict[str, str] | None = None) -> bytes:
    """An OpenDocument spreadsheet of `sheets` (name, rows), with `title`/`creator` props."""
    tables = "".join(
        f"<table:table table:name={quoteattr(name)}>"
        + "".join(
            "<table:table-row>" + "".join(map(_ods_cell, row)) + "</table:table-row>"
            for row in rows
        )
        + "</table:table>"
        for name, rows in sheets
    )
    props = props or {}
    meta = "".join(
        f"<{tag}>{escape(props[key])}</{tag}>"
        for key, tag in (("title", "dc:title"), ("creator", "dc:creator"))
        if key in props
    )
    mime = b"application/vnd.oasis.opendocument.spreadsheet"
    head = '<?xml version="1.0" encoding="UTF-8"?>'
    return zip_package(dict([
        ("mimetype", mime),
        ("META-INF/manifest.xml", (
            f'{head}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
            'manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type='
            f'"{mime.decode()}"/></manifest:manifest>'
        ).encode()),
        ("meta.xml", (
            f"{head}<office:document-meta {_ODS_NS}><office:meta>{meta}</office:meta>"
            "</office:document-meta>"
        ).encode()),
        ("content.xml", (
            f"{head}<office:document-content {_ODS_NS}><office:body><office:spreadsheet>"
            f"{tables}</office:spreadsheet></office:body></office:document-content>"
        ).encode()),
    ]))  # fmt: skip


def _record(kind: int, body: bytes) -> bytes:
    return struct.pack("<HH", kind, len(body)) + body


def _biff_cells(rows: Sequence[Sequence[Value]]) -> bytes:
    """LABEL and NUMBER records (as BIFF3 to BIFF5 write them) of text and number cells."""
    cells = bytearray()
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if isinstance(value, str):
                text = value.encode("cp1252")
                cells += _record(0x0204, struct.pack("<HHHH", r, c, 15, len(text)) + text)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                cells += _record(0x0203, struct.pack("<HHHd", r, c, 15, float(value)))
    return bytes(cells)


def biff4(rows: Sequence[Sequence[Value]]) -> bytes:
    """An Excel 4.0 worksheet (a bare BIFF4 record stream) of text and number cells."""
    bof = _record(0x0409, struct.pack("<HHH", 0, 0x0010, 0))
    xfs = _record(0x0443, bytes(12)) * 16  # the General format's, as the cells' XF 15 needs
    return bof + xfs + _biff_cells(rows) + _record(0x000A, b"")


def xls5(sheets: Sequence[Sheet]) -> bytes:
    """An Excel 5.0/95 workbook (BIFF5: a `Book` stream in an OLE file), code page 1252,
    of text and number cells."""
    bodies = [_bof5(0x0010) + _biff_cells(rows) + _record(0x000A, b"") for _, rows in sheets]
    xfs = b"".join(
        _record(0x00E0, struct.pack("<8H", 0, 0, 0xFFF5 if i < 15 else 1, 0x20, 0, 0, 0, 0))
        for i in range(16)
    )  # 15 style XFs and the cells' XF 15, as every workbook has
    head = _bof5(0x0005) + _record(0x0042, struct.pack("<H", 1252)) + xfs
    names = [name.encode("cp1252") for name, _ in sheets]
    position = len(head) + sum(4 + 7 + len(name) for name in names) + 4
    bound = bytearray()
    for name, body in zip(names, bodies, strict=True):
        bound += _record(0x0085, struct.pack("<IHB", position, 0, len(name)) + name)
        position += len(body)
    return ole_file({"Book": head + bound + _record(0x000A, b"") + b"".join(bodies)})


def _bof5(kind: int) -> bytes:
    return _record(0x0809, struct.pack("<HHHH", 0x0500, kind, 0x096C, 1993))
