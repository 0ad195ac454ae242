"""Pictures stored in a legacy office file's streams, and the text OCR finds in them.

Word keeps an inline picture's file in the `Data` stream and a floating one's in
`WordDocument`, each inside an OfficeArt BLIP record: an 8-byte header, one or two
16-byte ids, a tag byte, then the file. `blips` finds the PNG, JPEG, TIFF and DIB
ones by that header and the file signature after it (a DIB gets the file header a
BMP needs); a metafile (WMF, EMF, PICT) is a vector drawing OCR does not read.
`doc` reads them with `picture_text.PictureText`, as the other office formats'
pictures are read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

__all__ = ["blips"]

_BLIPS = {
    0xF01D: ({0x46A: 1, 0x6E2: 1, 0x46B: 2, 0x6E3: 2}, (b"\xff\xd8\xff",)),  # JPEG
    0xF02A: ({0x46A: 1, 0x6E2: 1, 0x46B: 2, 0x6E3: 2}, (b"\xff\xd8\xff",)),  # CMYK JPEG
    0xF01E: ({0x6E0: 1, 0x6E1: 2}, (b"\x89PNG\r\n\x1a\n",)),
    0xF029: ({0x6E4: 1, 0x6E5: 2}, (b"II*\x00", b"MM\x00*")),  # TIFF
    0xF01F: ({0x7A8: 1, 0x7A9: 2}, (b"\x28\x00\x00\x00",)),  # DIB: a 40-byte info header
}
"""Record type: (instance -> how many 16-byte ids precede the tag, file signatures)."""
_HEADER = struct.Struct("<HHI")


def blips(stream: bytes) -> Iterator[bytes]:
    """The raster picture files held in BLIP records of `stream`, in stream order."""
    found: list[tuple[int, bytes]] = []
    for kind, (instances, signatures) in _BLIPS.items():
        at = stream.find(struct.pack("<H", kind), 2)
        while at >= 0:
            picture = _blip(stream, at - 2, instances, signatures)
            if picture is not None:
                found.append((at, picture))
            at = stream.find(struct.pack("<H", kind), at + 1)
    seen: set[bytes] = set()
    for _, picture in sorted(found, key=lambda item: item[0]):
        if picture not in seen:
            seen.add(picture)
            yield picture


def _blip(
    stream: bytes, at: int, instances: dict[int, int], signatures: tuple[bytes, ...]
) -> bytes | None:
    if at + _HEADER.size > len(stream):
        return None
    version_instance, kind, size = _HEADER.unpack_from(stream, at)
    ids = instances.get(version_instance >> 4)
    start = at + _HEADER.size + 16 * (ids or 0) + 1
    if version_instance & 0xF or ids is None or at + _HEADER.size + size > len(stream):
        return None
    picture = stream[start : at + _HEADER.size + size]
    if not picture.startswith(signatures):
        return None
    return _bmp(picture) if kind == 0xF01F else picture


def _bmp(dib: bytes) -> bytes:
    """A DIB with the 14-byte file header that makes it a `.bmp` Pillow recognises."""
    if len(dib) < 40:
        return dib
    bits, compression, colours = struct.unpack_from("<HI12xI", dib, 14)
    palette = 4 * (colours or (1 << bits if bits <= 8 else 0))
    masks = 12 if compression == 3 else 0  # BI_BITFIELDS: three colour masks
    return b"BM" + struct.pack("<IHHI", 14 + len(dib), 0, 0, 14 + 40 + masks + palette) + dib
