"""Archives built in tests: ordinary ones, and hostile ones no writer makes (headers patched
or laid out by hand, their checksums kept right)."""

from __future__ import annotations

import bz2
import io
import struct
import tarfile
import zipfile
import zlib

_CENTRAL = struct.Struct("<4s6H3L5H2L")
"""A zip central directory entry, up to its name (46 bytes)."""


def zip_of(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip holding `files` (name -> content), in that order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def patch_central(data: bytes, index: int, **fields: int) -> bytes:
    """`data` with the central directory entry `index` given new `compress_size`,
    `file_size`, `crc` or `header_offset` (what a hostile writer declares)."""
    at = data.index(b"PK\x01\x02")
    for _ in range(index):
        at = data.index(b"PK\x01\x02", at + 1)
    entry = list(_CENTRAL.unpack_from(data, at))
    slots = {"crc": 7, "compress_size": 8, "file_size": 9, "header_offset": 17}
    for name, value in fields.items():
        entry[slots[name]] = value
    return data[:at] + _CENTRAL.pack(*entry) + data[at + _CENTRAL.size :]


def shared_stream_zip(content: bytes, copies: int, declared: int, crc: int | None = None) -> bytes:
    """A bzip2 zip of one member, `content`, whose central directory lists it `copies`
    times (every entry reads the one stream), each declaring `declared` bytes and the
    CRC `crc` (by default the right one for the stream's first `declared` bytes)."""
    data = zip_of({"x.txt": content}, zipfile.ZIP_BZIP2)
    at = data.index(b"PK\x01\x02")
    end = data.index(b"PK\x05\x06")
    entry = patch_central(
        data[at:end],
        0,
        file_size=declared,
        crc=zlib.crc32(content[:declared]) if crc is None else crc,
    )
    record = bytearray(data[end : end + 22])
    struct.pack_into("<HHLL", record, 8, copies, copies, len(entry) * copies, at)
    return data[:at] + entry * copies + bytes(record)


def sparse_tar(members: dict[str, int], stored: int = 8192, *, pax: bool = False) -> bytes:
    """A plain tar of GNU sparse members, each `stored` bytes of data in the archive
    declaring `members[name]` bytes once expanded (the rest a hole): old GNU headers
    (type `S`), or with `pax` the GNU pax format 0.1 (a `GNU.sparse.map` record)."""
    buffer = io.BytesIO()
    for name, size in members.items():
        info = tarfile.TarInfo(name)
        info.size = stored
        if pax:
            info.pax_headers = {"GNU.sparse.map": f"0,{stored}", "GNU.sparse.realsize": f"{size}"}
            buffer.write(info.tobuf(tarfile.PAX_FORMAT))
        else:
            block = bytearray(info.tobuf(tarfile.GNU_FORMAT))
            block[156:157] = tarfile.GNUTYPE_SPARSE
            block[386:410] = b"%011o\0%011o\0" % (0, stored)  # one data region at 0
            block[483:495] = b"%011o\0" % size  # the expanded size
            block[148:156] = b" " * 8
            block[148:156] = b"%06o\0 " % sum(block)
            buffer.write(bytes(block))
        buffer.write(b"s" * stored + b"\0" * (-stored % tarfile.BLOCKSIZE))
    buffer.write(b"\0" * 2 * tarfile.BLOCKSIZE)
    return buffer.getvalue()


def long_name_tar_bz2(name_bytes: int, kind: bytes = tarfile.GNUTYPE_LONGNAME) -> bytes:
    """A .tar.bz2 whose one member has a GNU long-name header (or, with `kind`
    `tarfile.XHDTYPE`, a pax header of one record) of `name_bytes` bytes, compressed
    a MiB at a time."""
    head = tarfile.TarInfo("././@LongLink")
    head.type, head.size = kind, name_bytes
    packer = bz2.BZ2Compressor()
    parts = [packer.compress(head.tobuf(tarfile.GNU_FORMAT))]
    if kind == tarfile.XHDTYPE:  # "<length> comment=aaa...\n", the length its own
        parts.append(packer.compress(b"%d comment=" % name_bytes))
        name_bytes -= len(b"%d comment=\n" % name_bytes)
    for at in range(0, name_bytes, 1 << 20):
        parts.append(packer.compress(b"a" * min(1 << 20, name_bytes - at)))
    if kind == tarfile.XHDTYPE:
        parts.append(packer.compress(b"\n"))
    tail = -head.size % tarfile.BLOCKSIZE
    member = tarfile.TarInfo("x.txt").tobuf(tarfile.GNU_FORMAT)
    parts.append(packer.compress(b"\0" * tail + member + b"\0" * 1024))
    return b"".join([*parts, packer.flush()])
