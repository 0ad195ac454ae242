"""The TNEF attribute stream (MS-OXTNEF 2.1.3): a signature, then attributes.

Each attribute is a level byte (1: the message, 2: an attachment), a 32-bit id whose
high half is its type, a 32-bit length, the data and a 16-bit checksum (the sum of
the data bytes). `read_stream` reads what is there and says what was wrong (a stream
cut short, a length past its end, a checksum that does not add up, bytes after the
last attribute) rather than raising: a damaged `winmail.dat` still gives what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SIGNATURE", "Attribute", "Stream", "is_tnef", "read_stream"]

SIGNATURE = b"\x78\x9f\x3e\x22"
_HEAD = 6  # the signature and the legacy key
_ATTRIBUTE_HEAD = 9  # level, id, length
MAX_ATTRIBUTES = 100_000
"""Attributes read from one stream; a stream claiming more is cut (its header says so)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribute:
    """One attribute as the stream holds it."""

    level: int
    id: int
    """The attribute's id, its low 16 bits (`0x800C`: attBody)."""
    data: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Stream:
    """What a TNEF stream holds, in stream order, and what was wrong with it."""

    attributes: tuple[Attribute, ...]
    problems: tuple[str, ...]


def is_tnef(data: bytes) -> bool:
    """True when `data` starts with the TNEF signature."""
    return data[:4] == SIGNATURE


def read_stream(data: bytes) -> Stream:
    """Read the attributes of the TNEF stream `data`; raises ValueError when it does not
    start with the TNEF signature."""
    if not is_tnef(data):
        raise ValueError("not TNEF (no TNEF signature)")
    found: list[Attribute] = []
    problems: list[str] = []
    bad_sums = 0
    at = _HEAD
    while at < len(data):
        if len(found) == MAX_ATTRIBUTES:
            problems.append(f"more than {MAX_ATTRIBUTES} attributes: the rest not read")
            break
        if data[at] not in (1, 2) or at + _ATTRIBUTE_HEAD > len(data):
            problems.append(f"{len(data) - at} bytes after the last attribute not read")
            break
        ident = int.from_bytes(data[at + 1 : at + 5], "little")
        length = int.from_bytes(data[at + 5 : at + 9], "little")
        start = at + _ATTRIBUTE_HEAD
        end = start + length
        if end > len(data):
            problems.append(
                f"cut short: an attribute of {length} bytes at byte {at}, {len(data) - start} left"
            )
            break
        value = data[start:end]
        if end + 2 > len(data):
            problems.append("cut short: the last attribute's checksum is missing")
        elif sum(value) & 0xFFFF != int.from_bytes(data[end : end + 2], "little"):
            bad_sums += 1
        found.append(Attribute(level=data[at], id=ident & 0xFFFF, data=value))
        at = end + 2
    if bad_sums:
        problems.insert(0, f"{bad_sums} attributes with a wrong checksum")
    return Stream(attributes=tuple(found), problems=tuple(problems))
