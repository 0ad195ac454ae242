"""Reading the members of a zip, a tar (plain, gzip, bzip2, xz) or one compressed file.

Everything happens in memory, a member at a time, within a `Budget` (`budget`): the
members and unpacked bytes one archive (with everything nested in it) may use, and
the unpacked-to-packed ratio past which a member is taken for a bomb. Zip members
are decompressed by `unzip`, tars read by `tars`, each a piece at a time within it.
A member that cannot be read is yielded with the reason; a problem that stops the
archive (damage past which nothing can be read, a limit reached) raises
`ArchiveError` after the members read before it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from indexer.formats.archive.budget import DAMAGE, RATIO_FLOOR, ArchiveError, Budget, Member
from indexer.formats.archive.names import MemberNames, clean_name, zip_names
from indexer.formats.archive.tars import tar_members
from indexer.formats.archive.unzip import Refused, unpack

__all__ = ["ArchiveError", "Budget", "Member", "read_members", "sniff"]

_OPENERS: dict[str, Callable[[IO[bytes]], Any]] = {
    "gz": lambda raw: gzip.GzipFile(fileobj=raw),
    "bz2": lambda raw: bz2.BZ2File(raw),
    "xz": lambda raw: lzma.LZMAFile(raw),  # noqa: SIM115  (in memory: nothing to close)
}
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
_MAGIC = ((b"\x1f\x8b", "gz"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))


def sniff(data: bytes) -> str | None:
    """The archive format of `data`: `zip`, `tar`, `tar.gz`, `gz` (and bz2, xz), or None."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"):
        return "zip"
    for magic, name in _MAGIC:
        if data.startswith(magic):
            try:
                head = _OPENERS[name](io.BytesIO(data)).read(512)
            except DAMAGE:
                return name
            return f"tar.{name}" if _is_tar(head) else name
    if _is_tar(data[:512]):
        return "tar"
    return "zip" if zipfile.is_zipfile(io.BytesIO(data)) else None


def _is_tar(head: bytes) -> bool:
    try:
        tarfile.TarInfo.frombuf(head, "utf-8", "surrogateescape")
    except (tarfile.HeaderError, ValueError):
        return False
    return True


def read_members(data: bytes, fmt: str, inner: str, budget: Budget) -> Iterator[Member]:
    """Yield the members of `data` (of format `fmt`, from `sniff`) in archive order.

    `inner` names the one member of a compressed single file. Raises `ArchiveError`
    when the archive stops.
    """
    if fmt == "zip":
        yield from _zip(data, budget)
        return
    compression = fmt.rpartition(".")[2] if fmt != "tar" else None
    stream: IO[bytes] = io.BytesIO(data)
    if compression is not None:
        stream = _OPENERS[compression](stream)
    if fmt.startswith("tar"):
        yield from tar_members(stream, len(data) if compression else None, budget)
    else:
        yield from _single(stream, inner, len(data), budget)


def _zip(data: bytes, budget: Budget) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except DAMAGE as exc:
        raise ArchiveError(f"damaged: {exc}") from None
    names = MemberNames()
    for info, name in zip(infos, zip_names(infos), strict=True):
        if info.filename.endswith("/"):
            continue
        budget.count()
        path, unsafe = clean_name(name)
        path, size = names.claim(path), info.file_size
        problem = unsafe or _zip_problem(info, budget)
        if problem is None:
            member = _zip_member(archive, data, info, path, budget)
        else:
            # an encrypted member is content that could not be read: a failed record
            member = Member(path, size, None, problem, damaged=problem == "encrypted")
        yield member
        if member.problem is not None and member.problem.startswith("unpacked_limit"):
            raise budget.unpacked_limit()


def _zip_problem(info: zipfile.ZipInfo, budget: Budget) -> str | None:
    limits, size = budget.limits, info.file_size
    if info.flag_bits & 0x1:
        return "encrypted"
    if info.compress_type not in _METHODS:
        return f"unsupported_compression: method {info.compress_type}"
    if info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16):
        return "link"
    if size > limits.max_member_bytes:
        return "too_large"
    if size > RATIO_FLOOR and size > limits.max_ratio * max(info.compress_size, 1):
        return f"compression_ratio: {size} bytes from {info.compress_size}"
    if size > budget.room():
        return "unpacked_limit"
    return None


def _zip_member(
    archive: zipfile.ZipFile, data: bytes, info: zipfile.ZipInfo, path: str, budget: Budget
) -> Member:
    try:
        content = unpack(archive, data, info, budget)
    except Refused as exc:
        return Member(path, info.file_size, None, exc.reason)
    except DAMAGE as exc:
        return Member(path, info.file_size, None, f"damaged: {exc}", damaged=True)
    return Member(path, len(content), content)


def _single(stream: IO[bytes], inner: str, packed: int, budget: Budget) -> Iterator[Member]:
    limits = budget.limits
    caps = (
        (limits.max_member_bytes, "too_large"),
        (max(limits.max_ratio * packed, RATIO_FLOOR), f"compression_ratio: from {packed} bytes"),
        (budget.room(), "unpacked_limit"),
    )
    cap, reason = min(caps, key=lambda c: c[0])
    budget.count()
    try:
        content = stream.read(cap + 1)
    except DAMAGE as exc:
        yield Member(inner, 0, None, f"damaged: {exc}", damaged=True)
        return
    if len(content) > cap:
        budget.take(min(len(content), budget.room()))  # produced all the same
        yield Member(inner, len(content), None, reason)
        if reason == "unpacked_limit":
            raise budget.unpacked_limit()
        return
    budget.take(len(content))
    yield Member(inner, len(content), content)
