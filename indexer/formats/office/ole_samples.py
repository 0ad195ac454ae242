"""Legacy binary samples built in code: a minimal OLE compound file writer, and the
smallest Word 97 document and PowerPoint 97 presentation the readers accept.

`ole_file` writes version 3 (512-byte sectors) with every stream padded to the mini
stream cutoff, so no mini stream is needed; its directory is a chain of right
siblings under the root. Enough for olefile and for tests of damaged structures.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["DOC", "PPT", "doc_file", "ole_file", "picture", "ppt_file"]

_SECTOR = 512
_CUTOFF = 4096
_FREE, _END, _FAT, _NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def ole_file(streams: dict[str, bytes]) -> bytes:
    """An OLE compound file holding `streams` (names at the root) in the order given."""
    body = bytearray()
    chains: list[tuple[int, int]] = []  # (first sector, sector count) of each stream
    for data in streams.values():
        # Padded to the cutoff, sizes included: a smaller stream would be in a mini stream.
        padded = data.ljust(max(_CUTOFF, -(-len(data) // _SECTOR) * _SECTOR), b"\x00")
        chains.append((len(body) // _SECTOR, len(padded) // _SECTOR))
        body += padded
    entries = [_entry("Root Entry", 5, _END, 0, child=1 if streams else _NONE)]
    for i, name in enumerate(streams, start=1):
        right = i + 1 if i < len(streams) else _NONE
        first, count = chains[i - 1]
        entries.append(_entry(name, 2, first, count * _SECTOR, right=right))
    while len(entries) % 4:
        entries.append(
            b"\x00" * 64 + struct.pack("<HBB3I", 0, 0, 0, _NONE, _NONE, _NONE) + b"\x00" * 48
        )
    directory_at = len(body) // _SECTOR
    directory_sectors = len(entries) // 4
    body += b"".join(entries)
    used = directory_at + directory_sectors
    fat_sectors = 1
    while (used + fat_sectors) > fat_sectors * 128:
        fat_sectors += 1
    fat = [_FREE] * (fat_sectors * 128)
    for first, count in [*chains, (directory_at, directory_sectors)]:
        for k in range(count):
            fat[first + k] = first + k + 1 if k < count - 1 else _END
    for k in range(fat_sectors):
        fat[used + k] = _FAT
    body += struct.pack(f"<{len(fat)}I", *fat)
    difat = [used + k for k in range(fat_sectors)] + [_FREE] * (109 - fat_sectors)
    fields = (0x3E, 3, 0xFFFE, 9, 6, 0, fat_sectors, directory_at, 0, _CUTOFF, _END, 0, _END, 0)
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 16
    header += struct.pack("<HHHHH6xIIIIIIIII", *fields) + struct.pack("<109I", *difat)
    return header + bytes(body)


def _entry(
    name: str, kind: int, start: int, size: int, *, right: int = _NONE, child: int = _NONE
) -> bytes:
    encoded = (name + "\x00").encode("utf-16-le")
    return (
        encoded.ljust(64, b"\x00")
        + struct.pack("<HBB3I", len(encoded), kind, 1, _NONE, right, child)
        + b"\x00" * 16  # class id
        + b"\x00" * 4  # state bits
        + b"\x00" * 16  # creation and modification times
        + struct.pack("<IQ", start, size)
    )


def doc_file(
    text: str, *, encrypted: bool = False, n_fib: int = 193, data: bytes | None = None
) -> bytes:
    """A Word 97 document whose main text is `text` (paragraphs end with `\\r`), stored
    as one 8-bit piece; `data` is its `Data` stream (see `picture`)."""
    encoded = text.encode("cp1252")
    text_at = 1024
    fib = bytearray(text_at + len(encoded))
    flags = 0x0200 | (0x0100 if encrypted else 0)  # 1Table; fEncrypted
    struct.pack_into("<HHHHHH", fib, 0, 0xA5EC, n_fib, 0, 0, 0, flags)
    struct.pack_into("<H", fib, 32, 14)  # csw
    struct.pack_into("<H", fib, 62, 22)  # cslw
    struct.pack_into("<i", fib, 64 + 12, len(text))  # ccpText
    struct.pack_into("<H", fib, 152, 93)  # cbRgFcLcb
    clx = bytes([0x02]) + struct.pack("<I", 20) + struct.pack("<II", 0, len(text))
    clx += struct.pack("<HIH", 0, (text_at * 2) | 0x40000000, 0)
    struct.pack_into("<II", fib, 154 + 33 * 8, 0, len(clx))  # fcClx, lcbClx
    fib[text_at:] = encoded
    streams = {"WordDocument": bytes(fib), "1Table": clx}
    return ole_file(streams if data is None else {**streams, "Data": data})


_BLIP_TYPES = {"jpeg": (0xF01D, 0x46A), "png": (0xF01E, 0x6E0), "dib": (0xF01F, 0x7A8),
               "wmf": (0xF01B, 0x216)}  # fmt: skip


def picture(file: bytes, kind: str = "png") -> bytes:
    """An inline picture as Word stores it in the `Data` stream: a picture header
    (`PICF`: size, header size, `MM_SHAPE`) and the BLIP record holding `file`."""
    record_type, instance = _BLIP_TYPES[kind]
    body = b"\x5a" * 16 + (b"\x00" * 34 if kind == "wmf" else b"\xff") + file  # id, tag
    blip = _record(record_type, body, instance)
    return struct.pack("<IHh", 68 + len(blip), 68, 0x64).ljust(68, b"\x00") + blip


def _record(kind: int, body: bytes, instance: int = 0, container: bool = False) -> bytes:
    return struct.pack("<HHI", (instance << 4) | (0xF if container else 0), kind, len(body)) + body


def ppt_object(data: bytes, *, compressed: bool = True, declared: int | None = None) -> bytes:
    """An `ExOleObjStg` record holding the compound file `data`: deflated after its size
    (`declared`, else the true one) or stored as it is."""
    if not compressed:
        return _record(0x1011, data)
    size = len(data) if declared is None else declared
    return _record(0x1011, struct.pack("<I", size) + zlib.compress(data), instance=1)


def ppt_file(title: str, body: str, objects: tuple[bytes, ...] = ()) -> bytes:
    """A PowerPoint 97 presentation of one slide: a title and a body placeholder, their
    text kept in the slide list and referenced from the slide's drawing; `objects`
    (`ppt_object` records) after the rest of the stream."""
    texts = b"".join(
        _record(0x0F9F, struct.pack("<I", kind)) + _record(0x0FA0, text.encode("utf-16-le"))
        for kind, text in ((0, title), (1, body))
    )
    slide_list = _record(0x03F3, struct.pack("<5I", 2, 0, 0, 0, 0)) + texts
    document = _record(0x03E8, _record(0x0FF0, slide_list, 0, True), 0, True)
    boxes = b"".join(
        _record(0xF00D, _record(0x0F9E, struct.pack("<I", i)), 0, True) for i in (0, 1)
    )
    slide = _record(
        0x03EE, _record(0x03EF, b"\x00" * 24) + _record(0x040C, boxes, 0, True), 0, True
    )
    slide_at = len(document)
    directory_at = slide_at + len(slide)
    directory = _record(0x1772, struct.pack("<III", 1 | (2 << 20), 0, slide_at))
    edit_at = directory_at + len(directory)
    edit = _record(0x0FF5, struct.pack("<IHBBIIIIHH", 0, 0, 0, 3, 0, directory_at, 1, 3, 1, 0))
    stream = document + slide + directory + edit + b"".join(objects)
    current = _record(0x0FF6, struct.pack("<III", 20, 0xE391C05F, edit_at) + b"\x00" * 8)
    return ole_file({"PowerPoint Document": stream, "Current User": current})


DOC = doc_file("Legacy memo\rIt still opens.\r")
PPT = ppt_file("Old deck", "Still readable")
