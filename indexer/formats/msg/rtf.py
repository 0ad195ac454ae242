"""Outlook's compressed RTF body (MS-OXRTFCP, "LZFu"), for messages with no other body.

`decompress` undoes the compression; the `rtf` extractor's `rtf_to_text` then reads
the text, as it reads any RTF document.
"""

from __future__ import annotations

__all__ = ["decompress"]

_PREBUFFER = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss "
    b"\\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier"
    b"{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)
_COMPRESSED, _RAW = b"LZFu", b"MELA"


def decompress(data: bytes) -> bytes:
    """The RTF of a compressed-RTF property; raises ValueError when it is not one."""
    if len(data) < 16 or data[8:12] not in (_COMPRESSED, _RAW):
        raise ValueError("not compressed RTF")
    size = int.from_bytes(data[4:8], "little")
    if data[8:12] == _RAW:
        return data[16 : 16 + size]
    window = bytearray(4096)
    window[: len(_PREBUFFER)] = _PREBUFFER
    at, out, i = len(_PREBUFFER), bytearray(), 16
    while i < len(data) and len(out) < size:
        flags, i = data[i], i + 1
        for bit in range(8):
            if i >= len(data):
                break
            if not flags >> bit & 1:
                out.append(data[i])
                window[at], at, i = data[i], (at + 1) % 4096, i + 1
                continue
            word, i = int.from_bytes(data[i : i + 2], "big"), i + 2
            offset, length = word >> 4, (word & 0xF) + 2
            if offset == at:
                return bytes(out)
            for k in range(length):
                byte = window[(offset + k) % 4096]
                out.append(byte)
                window[at], at = byte, (at + 1) % 4096
    return bytes(out[:size])
