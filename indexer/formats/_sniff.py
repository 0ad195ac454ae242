"""What a file named like a workbook really is, from its first bytes.

Web applications export "Excel" files that are HTML tables or tab-separated
text; old Excel wrote bare BIFF streams with no OLE container.
"""

from __future__ import annotations

import re

from indexer._text import decode
from indexer.formats._container import OLE_MAGIC

_HEAD = 4096
_BIFF2_4 = (b"\x09\x00", b"\x09\x02", b"\x09\x04")
"""The BOF record of a BIFF2, BIFF3 or BIFF4 worksheet stream."""
_MARKUP = re.compile(r"<(?:!doctype html|html|table|\?xml|meta|head|body|style)\b", re.I)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]")
_MAX_CONTROL = 0.01


def sniff(data: bytes) -> str:
    """`zip`, `ole`, `biff4`, `html`, `text` (delimited text) or `unknown`."""
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if data.startswith(OLE_MAGIC):
        return "ole"
    if data[:2] in _BIFF2_4 and len(data) > 4 and data[2] in (4, 6, 8, 16) and data[3] == 0:
        return "biff4"
    text = decode(data[:_HEAD]).lstrip()
    if not text:
        return "unknown"
    if text.startswith("<") and _MARKUP.search(text[:1024]):
        return "html"
    if len(_CONTROL.findall(text)) <= _MAX_CONTROL * len(text):
        return "text"
    return "unknown"
