"""OLE compound files for the legacy readers: guarded opening, bounded streams, properties."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from indexer.formats.office.container import ENCRYPTED, ContainerError

__all__ = [
    "MAX_STREAM",
    "kind_of",
    "ole_kind",
    "ole_metadata",
    "open_ole",
    "refuse_looping_chains",
    "stream",
]

MAX_STREAM = 256 << 20
"""The largest stream read: a legacy document's text stream is far smaller."""


@contextmanager
def open_ole(data: bytes) -> Iterator[Any]:
    """Yield an `olefile.OleFileIO` of `data`; damage becomes `ContainerError` `corrupt`."""
    import olefile  # only for legacy input

    try:
        ole = olefile.OleFileIO(data)
    except Exception as exc:  # olefile raises OSError, struct.error, IndexError, ...
        raise ContainerError(f"corrupt: not a readable OLE file ({exc})"[:300]) from None
    try:
        yield ole
    except (ContainerError, RecursionError):
        raise
    except Exception as exc:  # struct.error, IndexError, ... from a damaged structure
        raise ContainerError(f"corrupt: {type(exc).__name__}: {exc}"[:300]) from None
    finally:
        ole.close()


def stream(ole: Any, name: str | list[str]) -> bytes:
    """The stream `name` whole; raises `ContainerError` when missing or over `MAX_STREAM`."""
    if not ole.exists(name):
        raise ContainerError(f"corrupt: no {name} stream")
    if ole.get_size(name) > MAX_STREAM:
        raise ContainerError(f"refused: the {name} stream is {ole.get_size(name)} bytes")
    data: bytes = ole.openstream(name).read()
    return data


def ole_metadata(ole: Any) -> dict[str, str]:
    """Title, author, created and modified from the summary information, those present."""
    try:
        meta = ole.get_metadata()
    except Exception:  # properties are optional: a damaged stream loses only them
        return {}
    codec = _codec(getattr(meta, "codepage", None))
    found: dict[str, str] = {}
    for key, value in (
        ("title", meta.title),
        ("author", meta.author),
        ("created", meta.create_time),
        ("modified", meta.last_saved_time),
    ):
        text = _text(value, codec)
        if text:
            found[key] = text
    return found


def _codec(codepage: Any) -> str:
    """The Python codec of a property set's code page (cp1252 when unknown)."""
    import codecs

    if not isinstance(codepage, int):
        return "cp1252"
    codepage &= 0xFFFF  # stored as a signed 16-bit integer: UTF-8's 65001 reads -535
    name = {1200: "utf-16-le", 65001: "utf-8", 10000: "mac-roman"}.get(codepage, f"cp{codepage}")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "cp1252"


def _text(value: Any, codec: str) -> str:
    if isinstance(value, datetime):
        # 1601-01-01 is a FILETIME of zero: the date was never set
        return value.isoformat() if value.year > 1601 else ""
    if isinstance(value, bytes):
        value = value.decode(codec, "replace")
    # a string property ends at its first NUL: what follows is other properties' bytes
    return " ".join(str(value).split("\x00", 1)[0].split()) if value else ""


def ole_kind(data: bytes) -> str:
    """What an OLE compound file holds: `encrypted` (an encrypted OOXML package),
    `doc`, `ppt`, `xls`, `msg` or `ole`. Raises `ContainerError` `corrupt` when it
    is no readable OLE file."""
    with open_ole(data) as ole:
        return kind_of(ole)


def kind_of(ole: Any) -> str:
    """`ole_kind` of an open `olefile.OleFileIO`."""
    streams = {"/".join(entry).lower() for entry in ole.listdir()}
    if "encryptedpackage" in streams and "encryptioninfo" in streams:
        return ENCRYPTED
    for stream, kind in _OLE_KINDS:
        if stream in streams:
            return kind
    return "ole"


_OLE_KINDS = (
    ("worddocument", "doc"),
    ("powerpoint document", "ppt"),
    ("workbook", "xls"),
    ("book", "xls"),
    ("__properties_version1.0", "msg"),
)


def refuse_looping_chains(data: bytes) -> None:
    """Raise `ContainerError` (`corrupt: ...`) when a sector chain of `data` loops: the
    directory's, the mini FAT's, the mini stream's or a stream's. olefile stops at a
    stream's size, but calamine follows a looping directory chain for ever, growing
    its buffer until the worker dies of it (SIGABRT). A file olefile cannot open is
    let through: the reader says how it is corrupt."""
    try:
        with open_ole(data) as ole:
            problem = _looping_chain(ole)
    except ContainerError:
        return
    if problem is not None:
        raise ContainerError(f"corrupt: the sector chain of {problem} loops")


def _looping_chain(ole: Any) -> str | None:
    """The name of the first chain of `ole`'s FAT that loops within its length (the
    directory's has none: to its end), or None."""
    sector = ole.sectorsize
    starts = [
        ("the directory", ole.first_dir_sector, None),
        ("the mini FAT", ole.first_mini_fat_sector, ole.num_mini_fat_sectors),
    ]
    for entry in ole.direntries:
        if entry is not None and (entry.size >= ole.minisectorcutoff or entry.sid == 0):
            starts.append((repr(entry.name), entry.isectStart, -(-entry.size // sector)))
    for name, start, length in starts:
        if _loops(ole.fat, start, length):
            return name
    return None


def _loops(table: Any, start: int, length: int | None) -> bool:
    """True when following `table` from `start` comes back to a sector already passed
    within `length` sectors (any value past the table's end, ENDOFCHAIN among them,
    ends a chain; a chain that runs on past its stream's length is read no further)."""
    seen: set[int] = set()
    sector = start
    while 0 <= sector < len(table) and (length is None or len(seen) < length):
        if sector in seen:
            return True
        seen.add(sector)
        sector = table[sector]
    return False
