"""Reading the members of a zip, a tar (plain, gzip, bzip2, xz) or one compressed file.

Everything happens in memory, a member at a time, within a `Budget`: the members
and unpacked bytes one archive (with everything nested in it) may use, and the
unpacked-to-packed ratio past which a member is taken for a bomb. A member that
cannot be read is yielded with the reason; a problem that stops the archive
(damage past which nothing can be read, a limit reached) raises `ArchiveError`
after the members read before it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from indexer._limits import ContainerLimits
from indexer.formats.archive.names import MemberNames, clean_name, zip_names

__all__ = ["ArchiveError", "Budget", "Member", "read_members", "sniff"]

RATIO_FLOOR = 1 << 20
"""Unpacked bytes below which no ratio is held against a member: a small file of
zeros compresses a thousandfold and harms nothing."""
_DAMAGE = (
    zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError,
    ValueError, NotImplementedError, RuntimeError, KeyError,
)  # fmt: skip
_OPENERS: dict[str, Callable[[IO[bytes]], Any]] = {
    "gz": lambda raw: gzip.GzipFile(fileobj=raw),
    "bz2": lambda raw: bz2.BZ2File(raw),
    "xz": lambda raw: lzma.LZMAFile(raw),  # noqa: SIM115  (in memory: nothing to close)
}
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
_MAGIC = ((b"\x1f\x8b", "gz"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))


class ArchiveError(Exception):
    """The archive stops here: `reason` says why (damage, a limit)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Member:
    """One file of an archive, read or not."""

    path: str
    """Its record path inside the archive: safe and unique (see `names`)."""
    size: int
    """Unpacked bytes (as declared, when not read)."""
    data: bytes | None
    """The content; None when `problem` says why it was not read."""
    problem: str | None = None
    damaged: bool = False
    """True when `problem` is damage (a failed record), not a policy (a skipped one)."""


class Budget:
    """What one archive and everything nested in it may still unpack."""

    def __init__(self, limits: ContainerLimits) -> None:
        self.limits = limits
        self.members = 0
        self.unpacked = 0

    def count(self) -> None:
        """Count one more member; raises `ArchiveError` past `max_members`."""
        self.members += 1
        if self.members > self.limits.max_members:
            raise ArchiveError(f"member_limit: more than {self.limits.max_members} members")

    def room(self) -> int:
        """Unpacked bytes left."""
        return self.limits.max_unpacked_bytes - self.unpacked

    def unpacked_limit(self) -> ArchiveError:
        """The error of an archive that reached `max_unpacked_bytes`."""
        return ArchiveError(f"unpacked_limit: more than {self.limits.max_unpacked_bytes} bytes")


def sniff(data: bytes) -> str | None:
    """The archive format of `data`: `zip`, `tar`, `tar.gz`, `gz` (and bz2, xz), or None."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"):
        return "zip"
    for magic, name in _MAGIC:
        if data.startswith(magic):
            try:
                head = _OPENERS[name](io.BytesIO(data)).read(512)
            except _DAMAGE:
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
        yield from _tar(stream, len(data) if compression else None, budget)
    else:
        yield from _single(stream, inner, len(data), budget)


def _zip(data: bytes, budget: Budget) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except _DAMAGE as exc:
        raise ArchiveError(f"damaged: {exc}") from None
    names = MemberNames()
    for info, name in zip(infos, zip_names(infos), strict=True):
        if info.filename.endswith("/"):
            continue
        budget.count()
        path, unsafe = clean_name(name)
        path, size = names.claim(path), info.file_size
        problem = unsafe or _zip_problem(info, budget)
        if problem is not None:
            # an encrypted member is content that could not be read: a failed record
            yield Member(path, size, None, problem, damaged=problem == "encrypted")
            if problem.startswith("unpacked_limit"):
                raise budget.unpacked_limit()
            continue
        yield _zip_member(archive, info, path, budget)


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
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str, budget: Budget
) -> Member:
    try:
        with archive.open(info) as handle:
            content = handle.read(info.file_size + 1)
    except _DAMAGE as exc:
        return Member(path, info.file_size, None, f"damaged: {exc}", damaged=True)
    budget.unpacked += len(content)
    return Member(path, len(content), content)


def _tar(stream: IO[bytes], packed: int | None, budget: Budget) -> Iterator[Member]:
    """A tar's members; `packed` is the compressed size (None for a plain tar)."""
    limits = budget.limits
    ceiling = None if packed is None else max(limits.max_ratio * packed, RATIO_FLOOR)
    names, at = MemberNames(), 0
    try:
        with tarfile.open(
            fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape"
        ) as tar:
            while (info := tar.next()) is not None:
                end = info.offset_data + info.size
                if ceiling is not None and end > ceiling:
                    raise ArchiveError(f"compression_ratio: {end} bytes from {packed}")
                if end - at > budget.room():
                    raise budget.unpacked_limit()
                budget.unpacked += end - at
                at = end
                if info.isdir():
                    continue
                budget.count()
                yield _tar_member(tar, info, names, limits.max_member_bytes)
    except _DAMAGE as exc:
        raise ArchiveError(f"damaged: {exc}") from None


def _tar_member(
    tar: tarfile.TarFile, info: tarfile.TarInfo, names: MemberNames, largest: int
) -> Member:
    path, unsafe = clean_name(info.name)
    path = names.claim(path)
    problem = (
        unsafe if unsafe
        else "link" if info.issym() or info.islnk()
        else "not_regular_file" if not info.isreg()
        else "too_large" if info.size > largest
        else None
    )  # fmt: skip
    if problem is not None:
        return Member(path, info.size, None, problem)
    handle = tar.extractfile(info)
    content = b"" if handle is None else handle.read()
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
    except _DAMAGE as exc:
        yield Member(inner, 0, None, f"damaged: {exc}", damaged=True)
        return
    if len(content) > cap:
        yield Member(inner, len(content), None, reason)
        if reason == "unpacked_limit":
            raise budget.unpacked_limit()
        return
    budget.unpacked += len(content)
    yield Member(inner, len(content), content)
