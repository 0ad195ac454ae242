"""A workbook's document properties (title, author, created, modified); legacy encryption.

From `docProps/core.xml` (xlsx, xlsm, xlsb), `meta.xml` (ods) or the
SummaryInformation stream (xls). Dates are ISO 8601 as the file stores them.
A property that cannot be read is left out; nothing here raises.
"""

from __future__ import annotations

import datetime
import io
import struct
import zipfile
from typing import Any
from xml.etree import ElementTree

from indexer.formats._sheetguard import read_xml

PROPERTIES = ("title", "author", "created", "modified")
_LOCAL = {
    "title": "title",
    "creator": "author",
    "initial-creator": "author",
    "created": "created",
    "creation-date": "created",
    "modified": "modified",
    "date": "modified",
}
_GLOBALS_HEAD = 1 << 16
_FILEPASS = 0x002F
_PAST_FILEPASS = (0x0085, 0x000A)
"""BOUNDSHEET and EOF: FILEPASS, when there is one, comes before either."""
_NAMESPACES = ("purl.org/dc/", "opendocument:xmlns:meta", "core-properties")


def zip_properties(archive: zipfile.ZipFile) -> dict[str, str]:
    """The properties in an OOXML `docProps/core.xml` or an OpenDocument `meta.xml`."""
    for part in ("docProps/core.xml", "meta.xml"):
        if part in archive.NameToInfo:
            try:
                return _from_xml(read_xml(archive, part, limit=1 << 20))
            except (ElementTree.ParseError, zipfile.BadZipFile, OSError, EOFError, ValueError):
                return {}
    return {}


def _from_xml(root: ElementTree.Element) -> dict[str, str]:
    found: dict[str, str] = {}
    for element in root.iter():
        namespace, _, local = element.tag.rpartition("}")
        key = _LOCAL.get(local)
        text = (element.text or "").strip()
        if key and text and key not in found and any(n in namespace for n in _NAMESPACES):
            found[key] = text
    return {key: found[key] for key in PROPERTIES if key in found}


def ole_workbook(data: bytes) -> tuple[bool, dict[str, str]]:
    """Whether a legacy workbook is encrypted (a FILEPASS record in its globals), and the
    properties in its SummaryInformation stream. Unreadable parts read as absent."""
    import olefile  # only legacy workbooks need it

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
            head = ole.openstream(name).read(_GLOBALS_HEAD) if name else b""
            meta = ole.get_metadata()
    except Exception:  # not readable as OLE: the reader says how it is corrupt
        return False, {}
    values: dict[str, Any] = {
        "title": meta.title,
        "author": meta.author,
        "created": meta.create_time,
        "modified": meta.last_saved_time,
    }
    return _filepass(head), {key: text for key, value in values.items() if (text := _text(value))}


def _filepass(stream: bytes) -> bool:
    pos = 0
    while pos + 4 <= len(stream):
        kind, size = struct.unpack_from("<HH", stream, pos)
        if kind == _FILEPASS:
            return True
        if kind in _PAST_FILEPASS:
            return False
        pos += 4 + size
    return False


def _text(value: Any) -> str:
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("cp1252", "replace").strip("\x00 ")
    return ""
