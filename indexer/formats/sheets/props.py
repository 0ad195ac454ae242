"""A legacy workbook's document properties (title, author, created, modified), and
whether it is encrypted.

From the SummaryInformation stream; dates are ISO 8601. A property that cannot be
read is left out; nothing here raises. (An xlsx's or ods's properties are read as a
Word or OpenDocument file's are: `office.ooxml.core_properties`, `office.odf.properties`.)
"""

from __future__ import annotations

import datetime
import io
import struct
from typing import Any

_GLOBALS_HEAD = 1 << 16
_FILEPASS = 0x002F
_PAST_FILEPASS = (0x0085, 0x000A)
"""BOUNDSHEET and EOF: FILEPASS, when there is one, comes before either."""


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
