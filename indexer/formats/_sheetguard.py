"""A workbook's container checked before a parser sees it.

ZIP bombs are refused from the central directory, before anything is unpacked;
an OLE file holding an `EncryptedPackage` is an encrypted OOXML workbook; XML
parts are parsed only without a DTD (so no entity expansion) and when small.
Private to the spreadsheet extractor until the office formats share a module.
"""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"
MAX_RATIO = 100
"""A member that inflates more than this (and past `_RATIO_FLOOR`) is a bomb (as POI)."""
MAX_UNPACKED = 2 << 30
"""The most a whole workbook may unpack to, in bytes."""
_RATIO_FLOOR = 1 << 20
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")


class Refused(Exception):
    """The container must not be parsed; `reason` says why (`encrypted`, `corrupt: ...`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_encrypted_ole(data: bytes) -> bool:
    """True for an OLE compound file with an `EncryptedPackage` stream (encrypted OOXML)."""
    return data.startswith(OLE_MAGIC) and _ENCRYPTED in data


def open_zip(data: bytes) -> zipfile.ZipFile:
    """Open `data` as a ZIP after checking its central directory for a bomb.

    Raises `Refused` (`zip bomb: ...` or `corrupt: ...`).
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise Refused(f"corrupt: {exc}") from None
    total = 0
    for info in archive.infolist():
        total += info.file_size
        ratio = info.file_size / max(1, info.compress_size)
        if info.file_size > _RATIO_FLOOR and ratio > MAX_RATIO:
            raise Refused(f"zip bomb: {info.filename} inflates {ratio:.0f}x")
    if total > MAX_UNPACKED:
        raise Refused(f"zip bomb: members unpack to {total} bytes")
    return archive


def read_xml(archive: zipfile.ZipFile, name: str, limit: int = 16 << 20) -> ElementTree.Element:
    """Parse a small part; refuse a DTD (no entity expansion) or one over `limit` bytes."""
    if archive.getinfo(name).file_size > limit:
        raise ElementTree.ParseError(f"{name} is over {limit} bytes")
    raw = archive.read(name)
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise ElementTree.ParseError(f"{name} declares a DTD")
    return ElementTree.fromstring(raw)
