"""One zip member's content, decompressed a piece at a time within its limits.

zipfile hands a bzip2 or LZMA decompressor every compressed piece it reads with no
bound on what comes out (4 KiB of bzip2 can hold blocks of 45 MB each), and takes a
member's compressed size on its header's word. Here the compressed bytes are taken
only as far as the zip holds them, fed a piece at a time (4 KiB; 64 KiB of deflate)
to a decompressor asked for at most 256 KiB, and counted: a member whose output
passes `max_ratio` times the compressed bytes it actually used is refused
(`Refused`), as soon as that is certain.
Every byte put out is charged to the `Budget` as it comes. Otherwise the result is
what zipfile gives: the first `file_size` bytes, the CRC checked, the same errors
(`DAMAGE`) for damage.
"""

from __future__ import annotations

import bz2
import lzma
import struct
import zipfile
import zlib
from typing import Protocol

from indexer.formats.archive.budget import RATIO_FLOOR, Budget

__all__ = ["Refused", "unpack"]

_PIECE = 4096
"""Compressed bytes handed over at a time (zipfile's own `MIN_READ_SIZE`): what is
counted as used when a decompressor stops short of its stream's end."""
_PIECES = {zipfile.ZIP_DEFLATED: 64 * 1024}
"""Larger pieces where the decompressor tells exactly what it has not used yet."""
_OUT = 256 * 1024
"""The most output asked for at a time."""
_LOCAL = struct.Struct("<4s5H3L2H")
"""A zip local file header, up to its name (30 bytes)."""


class Refused(Exception):
    """The member outgrew its ratio: `reason` says by how much."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Decoder(Protocol):
    @property
    def eof(self) -> bool: ...
    @property
    def needs_input(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...
    def decompress(self, data: bytes, max_length: int) -> bytes: ...


def unpack(archive: zipfile.ZipFile, data: bytes, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    """The content of the member `info` of `archive`, a zip of the bytes `data`, its
    output charged to `budget` as it comes (`file_size`, checked against the room
    left, bounds it). Raises `Refused` past the ratio, a `DAMAGE` error on damage."""
    with archive.open(info):  # zipfile's checks of the local header; nothing is read
        pass
    raw = _compressed(data, info)
    if info.compress_type == zipfile.ZIP_STORED:
        content = bytes(raw[: info.file_size])
        if len(content) < info.file_size and len(raw) < info.compress_size:
            raise EOFError  # what zipfile raises when the data stops short
        budget.take(len(content))
    else:
        content = _inflate(_decoder(info.compress_type), raw, info, budget)
    if zlib.crc32(content) != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
    return content


def _compressed(data: bytes, info: zipfile.ZipInfo) -> memoryview:
    """The member's compressed bytes, as far as `data` holds them."""
    head = _LOCAL.unpack_from(data, info.header_offset)
    start = info.header_offset + _LOCAL.size + head[9] + head[10]
    return memoryview(data)[start : start + info.compress_size]


def _inflate(decoder: _Decoder, raw: memoryview, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    limits, size = budget.limits, info.file_size
    bound = max(RATIO_FLOOR, limits.max_ratio * len(raw))
    step = _PIECES.get(info.compress_type, _PIECE)
    out: list[bytes] = []
    produced, fed, last = 0, 0, False
    while produced < size and not decoder.eof and not last:
        piece = b""
        if decoder.needs_input:
            if fed >= len(raw) and len(raw) < info.compress_size:
                raise EOFError  # what zipfile raises when the data stops short
            piece, last = raw[fed : fed + step].tobytes(), fed >= len(raw)
            fed += len(piece)
        got = decoder.decompress(piece, min(_OUT, size - produced))
        budget.take(len(got))
        out.append(got)
        produced += len(got)
        if produced > bound:  # more than even all the compressed bytes could give
            raise Refused(f"compression_ratio: more than {produced} bytes from {len(raw)}")
    used = fed - len(decoder.unused_data)
    if produced > RATIO_FLOOR and produced > limits.max_ratio * used:
        raise Refused(f"compression_ratio: {produced} bytes from {used}")
    return b"".join(out)


def _decoder(method: int) -> _Decoder:
    if method == zipfile.ZIP_DEFLATED:
        return _Inflate()
    if method == zipfile.ZIP_BZIP2:
        return bz2.BZ2Decompressor()
    return _ZipLZMA()


class _Inflate:
    """zlib's raw deflate behind the interface bz2 and lzma share."""

    def __init__(self) -> None:
        self._z = zlib.decompressobj(-15)

    @property
    def eof(self) -> bool:
        return self._z.eof

    @property
    def needs_input(self) -> bool:
        return not self._z.unconsumed_tail

    @property
    def unused_data(self) -> bytes:
        """The input not used: past the stream's end, or not reached yet (zlib may
        leave the first in `unconsumed_tail` too)."""
        return self._z.unused_data if self._z.eof else self._z.unconsumed_tail

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if data or self._z.unconsumed_tail:
            return self._z.decompress(self._z.unconsumed_tail or data, max_length)
        return self._z.flush()[:max_length]  # no more input: what zlib still holds


class _ZipLZMA:
    """A zip's LZMA member: a version, the size of the LZMA1 properties, the
    properties, then a raw stream (as zipfile reads it)."""

    def __init__(self) -> None:
        self._head = b""
        self._lz: lzma.LZMADecompressor | None = None

    @property
    def eof(self) -> bool:
        return self._lz is not None and self._lz.eof

    @property
    def needs_input(self) -> bool:
        return self._lz is None or self._lz.needs_input

    @property
    def unused_data(self) -> bytes:
        return b"" if self._lz is None else self._lz.unused_data

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._lz is None:
            self._head += data
            if len(self._head) <= 4 or len(self._head) <= 4 + self._props_size():
                return b""
            end = 4 + self._props_size()
            filters = [_lzma1(self._head[4:end])]
            self._lz = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)
            data = self._head[end:]
        return self._lz.decompress(data, max_length)

    def _props_size(self) -> int:
        return int(struct.unpack_from("<H", self._head, 2)[0])


def _lzma1(props: bytes) -> dict[str, int]:
    """The LZMA1 filter the five property bytes describe (what liblzma decodes)."""
    if len(props) != 5 or props[0] >= 9 * 5 * 5:
        raise lzma.LZMAError("Invalid or unsupported options")
    pb, rest = divmod(props[0], 9 * 5)
    lp, lc = divmod(rest, 9)
    if lc + lp > 4:
        raise lzma.LZMAError("Invalid or unsupported options")
    (dict_size,) = struct.unpack_from("<L", props, 1)
    return {"id": lzma.FILTER_LZMA1, "dict_size": dict_size, "lc": lc, "lp": lp, "pb": pb}
