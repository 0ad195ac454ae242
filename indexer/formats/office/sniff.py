"""What a file is by its content, whatever its name says.

`sniff` tells containers (ZIP, OLE), PDF, RTF, HTML, XML and text in any encoding
apart; `sniff_format` looks inside a container for the office format it holds. The
office extractors hand a mislabelled file on by these; the spreadsheet extractor
reads web applications' "Excel" exports (HTML tables, UTF-16 text) by them.
"""

from __future__ import annotations

import re

from indexer._text import decode
from indexer.formats.office.container import ENCRYPTED, ContainerError, Package, open_zip
from indexer.formats.office.ole import ole_kind

__all__ = ["OLE_MAGIC", "sniff", "sniff_format"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")


def sniff(data: bytes) -> str:
    """What `data` is by its content, whatever its name says: `zip`, `ole`, `biff4` (a bare
    Excel 2-4 worksheet), `pdf`, `rtf`, `html`, `xml`, `text` (in any encoding: web
    applications export "Excel" files as UTF-16 tab-separated text) or `binary`."""
    if data.startswith(_ZIP_MAGICS):
        return "zip"
    if data.startswith(OLE_MAGIC):
        return "ole"
    if data[:2] in _BIFF2_4 and len(data) > 4 and data[2] in (4, 6, 8, 16) and data[3] == 0:
        return "biff4"
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"{\\rtf"):
        return "rtf"
    text = decode(data[:_TEXT_HEAD]).lstrip()
    lower = text[:256].lower()
    if lower.startswith(_HTML_STARTS) or "<html" in lower:
        return "html"
    if text.startswith("<"):
        return "html" if _HTML_TAGS.search(text, 0, 1024) else "xml"
    if text and len(_CONTROL.findall(text)) <= len(text) // 100:
        return "text"
    return "binary"


_BIFF2_4 = (b"\x09\x00", b"\x09\x02", b"\x09\x04")
"""The BOF record of a BIFF2, BIFF3 or BIFF4 worksheet stream."""
_TEXT_HEAD = 4096
_HTML_STARTS = ("<!doctype html", "<html", "<head", "<body")
_HTML_TAGS = re.compile(r"<(?:table|meta|style)\b", re.I)
"""Tags that make markup HTML however it starts: HTML tables saved as `.xls`."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]")


def sniff_format(data: bytes) -> str:
    """The format of `data` by content: an office format's usual extension (`docx`,
    `pptx`, `xlsx`, `odt`, `epub`, `doc`, `ppt`, `xls`, `msg`, `wordml`, ...), else
    what `sniff` says (`zip` and `ole` when the package is of no known kind).

    Raises `ContainerError` `encrypted` for an encrypted OOXML package, `corrupt`
    for an unreadable ZIP or OLE file."""
    found = sniff(data)
    if found == "ole":
        held = ole_kind(data)
        if held == ENCRYPTED:
            raise ContainerError(ENCRYPTED)
        return held
    if found == "zip":
        return _zip_format(open_zip(data))
    if found == "xml" and _WORDML in data[:4096]:
        return "wordml"
    return found


_WORDML = b"schemas.microsoft.com/office/word/2003/wordml"
_ZIP_PARTS = (("word/document.xml", "docx"), ("ppt/presentation.xml", "pptx"),
              ("xl/workbook.xml", "xlsx"), ("xl/workbook.bin", "xlsb"))  # fmt: skip
_MIMETYPES = ((b".text", "odt"), (b".text-template", "odt"), (b".presentation", "odp"),
              (b".presentation-template", "odp"), (b".spreadsheet", "ods"),
              (b"epub+zip", "epub"))  # fmt: skip


def _zip_format(package: Package) -> str:
    for part, name in _ZIP_PARTS:
        if package.has(part):
            return name
    mimetype = (package.read("mimetype") or b"").strip()
    for tail, name in _MIMETYPES:
        if mimetype.endswith(tail):
            return name
    return "zip"
