"""MAPI properties as TNEF carries them (attMAPIProps, attAttachment: MS-OXTNEF 2.1.3.4).

A count, then per property its type and id, a name for a named property (id 0x8000
and up: a GUID and a number or a UTF-16 name), and its value or values, each padded to
4 bytes. `read_properties` keeps the first value of each plain property by id (named
ones are skipped over: nothing indexed here needs them), and stops where the data ends:
a count that lies cannot make it read past the bytes there are.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["Properties", "read_properties"]

Properties = dict[int, Any]
"""Property id (`0x1000`: PR_BODY) to its value: `str`, `bytes`, `int` or `datetime`."""

_FIXED = {0x0002: 2, 0x0003: 4, 0x0004: 4, 0x0005: 8, 0x0006: 8, 0x0007: 8, 0x000A: 4,
          0x000B: 2, 0x0014: 8, 0x0040: 8, 0x0048: 16}  # fmt: skip
_STRING8, _UNICODE, _OBJECT, _BINARY = 0x001E, 0x001F, 0x000D, 0x0102
_VARIABLE = frozenset({_STRING8, _UNICODE, _OBJECT, _BINARY, 0x0000})
_MULTI = 0x1000
_NAMED = 0x8000
_IID = 16
_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)


class _Cut(Exception):
    """The property data ends inside a property."""


class _Reader:
    __slots__ = ("at", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, size: int) -> bytes:
        if size < 0 or self.at + size > len(self.data):
            raise _Cut
        value = self.data[self.at : self.at + size]
        self.at += size
        return value

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "little")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "little")

    def pad(self) -> None:
        self.at += -self.at % 4


def read_properties(data: bytes, codepage: str = "cp1252") -> tuple[Properties, bool]:
    """The plain properties of the MAPI property block `data`, and whether it was whole
    (False: it ended inside a property, the ones before it kept)."""
    reader = _Reader(data)
    found: Properties = {}
    try:
        count = reader.u32()
        for _ in range(count):
            ident, value = _property(reader, codepage)
            if ident is not None:
                found.setdefault(ident, value)
    except _Cut:
        return found, False
    return found, True


def _property(reader: _Reader, codepage: str) -> tuple[int | None, Any]:
    kind, ident = reader.u16(), reader.u16()
    if ident >= _NAMED:
        reader.take(16)
        if reader.u32() == 0:
            reader.take(4)
        else:
            reader.take(reader.u32())
            reader.pad()
    multi = bool(kind & _MULTI)
    kind &= ~_MULTI
    if kind in _FIXED:
        values = [_fixed(kind, reader.take(_FIXED[kind])) for _ in range(_count(reader, multi))]
        reader.pad()
    elif kind in _VARIABLE:
        values = [_variable(kind, reader, codepage) for _ in range(reader.u32())]
    else:  # a type MS-OXTNEF does not define: where the next property starts is unknown
        raise _Cut
    plain = ident < _NAMED and values and not multi
    return (ident, values[0]) if plain else (None, None)


def _count(reader: _Reader, multi: bool) -> int:
    if not multi:
        return 1
    count = reader.u32()
    if count > len(reader.data):  # each value takes a byte at least
        raise _Cut
    return count


def _variable(kind: int, reader: _Reader, codepage: str) -> Any:
    raw = reader.take(reader.u32())
    reader.pad()
    if kind == _UNICODE:
        return raw.decode("utf-16-le", "replace").split("\0", 1)[0]
    if kind == _STRING8:
        return raw.split(b"\0", 1)[0].decode(codepage, "replace")
    return raw[_IID:] if kind == _OBJECT else raw  # an object's data follows its interface id


def _fixed(kind: int, raw: bytes) -> Any:
    if kind == 0x0040:
        ticks = int.from_bytes(raw, "little")
        try:
            return _EPOCH + timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None
    if kind in (0x0002, 0x0003, 0x000B, 0x0014):
        return int.from_bytes(raw, "little", signed=kind != 0x000B)
    return raw
