"""A small fallback for messages whose only body is RTF: decompress it, keep its text.

Outlook stores the RTF body compressed (MS-OXRTFCP, "LZFu"). `rtf_text` undoes that
and keeps the plain text: paragraphs, tabs, `\\'hh` and `\\uN` characters; font
tables, pictures and other `{\\*...}` destinations are dropped. Formatting is lost;
a full RTF extractor, when there is one, should replace this.
"""

from __future__ import annotations

import re

__all__ = ["decompress", "rtf_text"]

_PREBUFFER = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss "
    b"\\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier"
    b"{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)
_COMPRESSED, _RAW = b"LZFu", b"MELA"
_TOKEN = re.compile(
    rb"\\([a-z]+)(-?\d+)? ?|\\'([0-9a-f]{2})|\\(.)|([{}])|[\r\n]+|([^\\{}\r\n]+)", re.I
)
_SKIP = {b"fonttbl", b"colortbl", b"stylesheet", b"info", b"pict", b"object", b"header", b"footer"}
_BREAKS = {
    b"par": "\n",
    b"line": "\n",
    b"sect": "\n\n",
    b"page": "\n\n",
    b"tab": "\t",
    b"cell": "\t",
    b"row": "\n",
}


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


def rtf_text(rtf: bytes) -> str:
    """The plain text of an RTF document; never raises."""
    out: list[str] = []
    skip_depth: list[int] = []
    depth, uc, drop = 0, 1, 0
    for m in _TOKEN.finditer(rtf):
        word, arg, hexa, symbol, brace, text = m.groups()
        if brace is not None:
            depth += 1 if brace == b"{" else -1
            if skip_depth and depth < skip_depth[-1]:
                skip_depth.pop()
            continue
        if symbol == b"*" or (word is not None and word.lower() in _SKIP):
            if not skip_depth or depth < skip_depth[-1]:
                skip_depth.append(depth)
            continue
        if skip_depth:
            continue
        if drop and (text or hexa):
            drop -= 1
            if text and len(text) > 1:
                out.append(text[1:].decode("cp1252", "replace"))
            continue
        if word is not None:
            name = word.lower()
            if name == b"uc" and arg:
                uc = int(arg)
            elif name == b"u" and arg:
                out.append(chr(int(arg) % 0x10000 if int(arg) >= 0 else int(arg) + 0x10000))
                drop = uc
            elif name in _BREAKS:
                out.append(_BREAKS[name])
        elif hexa is not None:
            out.append(bytes([int(hexa, 16)]).decode("cp1252", "replace"))
        elif symbol is not None and symbol in b"\\{}":
            out.append(symbol.decode())
        elif text is not None:
            out.append(text.decode("cp1252", "replace"))
    return "".join(out)
