"""TNEF streams built in code, for the conformance corpus and the tests.

`attribute` writes one attribute (its checksum right unless told otherwise),
`mapi_block` a MAPI property block of strings, numbers and binaries, and `tnef_file`
a whole `winmail.dat`: a subject, bodies, and attachments each with its name and data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from indexer.formats.tnef.stream import SIGNATURE

__all__ = ["SAMPLE", "attribute", "mapi_block", "tnef_file"]


_UNICODE, _BINARY, _LONG, _OBJECT = 0x001F, 0x0102, 0x0003, 0x000D


def attribute(
    level: int, ident: int, data: bytes, *, kind: int = 0x0006, checksum: int | None = None
) -> bytes:
    """One attribute: level, id (`kind` in its high half), length, data, checksum."""
    total = sum(data) & 0xFFFF if checksum is None else checksum
    return (
        bytes([level])
        + (kind << 16 | ident).to_bytes(4, "little")
        + len(data).to_bytes(4, "little")
        + data
        + total.to_bytes(2, "little")
    )


Value = str | bytes | int | tuple[bytes, bytes]
"""A property's value: Unicode, binary, a long, or an object `(interface id, data)`."""


def mapi_block(props: Mapping[int, Value]) -> bytes:
    """A MAPI property block: `str` values as Unicode, `bytes` as binary, `int` as long,
    `(iid, data)` as an object."""
    out = bytearray(len(props).to_bytes(4, "little"))
    for ident, value in props.items():
        if isinstance(value, int):
            out += _LONG.to_bytes(2, "little") + ident.to_bytes(2, "little")
            out += value.to_bytes(4, "little", signed=True)
            continue
        if isinstance(value, tuple):
            raw, kind = value[0] + value[1], _OBJECT
        elif isinstance(value, str):
            raw, kind = (value + "\0").encode("utf-16-le"), _UNICODE
        else:
            raw, kind = value, _BINARY
        out += kind.to_bytes(2, "little") + ident.to_bytes(2, "little")
        out += (1).to_bytes(4, "little") + len(raw).to_bytes(4, "little") + raw
        out += b"\0" * (-len(raw) % 4)
    return bytes(out)


def tnef_file(
    *,
    subject: str = "",
    body: str = "",
    props: Mapping[int, Value] | None = None,
    attachments: Sequence[tuple[str, bytes]] = (),
) -> bytes:
    """A TNEF stream: attSubject, attBody, the message's MAPI properties, then per
    attachment attAttachRendData, attAttachTitle, attAttachData and its long name."""
    out = bytearray(SIGNATURE + b"\x01\x00")
    out += attribute(1, 0x9006, b"\x00\x00\x01\x00", kind=0x0009)  # attTnefVersion
    out += attribute(1, 0x9007, (65001).to_bytes(4, "little") + bytes(4), kind=0x0006)
    if subject:
        out += attribute(1, 0x8004, subject.encode() + b"\0", kind=0x0001)
    if body:
        out += attribute(1, 0x800C, body.encode(), kind=0x0002)
    if props:
        out += attribute(1, 0x9003, mapi_block(props))
    for name, data in attachments:
        out += attribute(2, 0x9002, bytes(14))
        out += attribute(2, 0x8010, name.encode() + b"\0", kind=0x0001)
        out += attribute(2, 0x800F, data)
        out += attribute(2, 0x9005, mapi_block({0x3707: name}))
    return bytes(out)


SAMPLE = tnef_file(
    subject="Quarterly figures",
    props={0x1000: "The figures are attached.\r\n\r\nRegards, Ann", 0x0C1A: "Ann Lee",
           0x0C1F: "ann@example.com"},
    attachments=[("notes.txt", b"Revenue rose in March.\n")],
)  # fmt: skip
"""A small valid `winmail.dat` with a plain body and one text attachment."""
