"""A legacy workbook (xls, an OLE file) checked before the reader opens it: whether it
is encrypted, and its document properties (title, author, created, modified).

An OLE file holding an `EncryptedPackage` is an encrypted xlsx; an xls whose globals
have a FILEPASS record is encrypted itself. The properties are read as a Word 97 or
PowerPoint 97 file's are (`office.ole.ole_metadata`).
"""

from __future__ import annotations

import struct
from typing import Any

from indexer.formats.office.container import ENCRYPTED, ContainerError
from indexer.formats.office.ole import kind_of, ole_metadata, open_ole

__all__ = ["ole_workbook"]

_GLOBALS_HEAD = 1 << 16
_FILEPASS = 0x002F
_PAST_FILEPASS = (0x0085, 0x000A)
"""BOUNDSHEET and EOF: FILEPASS, when there is one, comes before either."""


def ole_workbook(data: bytes) -> dict[str, str]:
    """The properties of a legacy workbook; raises `ContainerError` `encrypted` when it is
    encrypted. An OLE file that cannot be read gives none: the reader says how it is
    corrupt."""
    try:
        with open_ole(data) as ole:
            if kind_of(ole) == ENCRYPTED or _filepass(_globals(ole)):
                raise ContainerError(ENCRYPTED)
            return ole_metadata(ole)
    except ContainerError as exc:
        if exc.reason == ENCRYPTED:
            raise
        return {}


def _globals(ole: Any) -> bytes:
    """The head of the workbook stream, where its globals (and FILEPASS) are."""
    name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
    return ole.openstream(name).read(_GLOBALS_HEAD) if name else b""


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
