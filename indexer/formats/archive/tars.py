"""A tar's members, read in order from a plain or a decompressed stream within a `Budget`.

What tarfile reads is metered (`_Meter`): the stream may not run past the compression
ratio, nor further past what the budget was charged with than the room left, so a
header of gigabytes (a GNU long name or a pax record, each read whole by tarfile)
stops the archive while it is read, not once it is held. Each member is charged
before its content is read: the stream up to the end of its data and, for a sparse
member, what its holes expand to, so the budget holds what is produced, not what
the stream holds. A member past a limit is recorded before the archive stops; so is
one whose data is cut short, as damaged.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from typing import IO

from indexer.formats.archive.budget import DAMAGE, RATIO_FLOOR, ArchiveError, Budget, Member
from indexer.formats.archive.names import MemberNames, clean_name

__all__ = ["tar_members"]

SLACK = 2 * tarfile.RECORDSIZE
"""Stream bytes the meter lets pass its limits: tarfile reads a record ahead, and a
tar ends in two empty blocks and padding to a record that no member is charged for."""


def tar_members(stream: IO[bytes], packed: int | None, budget: Budget) -> Iterator[Member]:
    """Yield the members of the tar `stream` in order; `packed` is the size of the
    compressed file it comes from (None for a plain tar). Raises `ArchiveError` when
    the archive stops (damage, a limit)."""
    meter = _Meter(stream, packed, budget)
    names = MemberNames()
    try:
        with tarfile.open(
            fileobj=meter, mode="r|", encoding="utf-8", errors="surrogateescape"
        ) as tar:
            while (info := tar.next()) is not None:
                # tarfile keeps every header for random access, which a stream never
                # does; `members` is missing from the stubs
                tar.members.clear()  # type: ignore[attr-defined]
                over = meter.charge(info, tar.offset)
                if info.isdir():
                    if over is not None:
                        raise over
                    continue
                budget.count()
                member = _member(tar, info, names, budget.limits.max_member_bytes, over)
                yield member
                if over is not None:
                    raise over
                if member.damaged:
                    raise ArchiveError(str(member.problem))  # no reading on past a cut
    except DAMAGE as exc:
        raise ArchiveError(f"damaged: {exc}") from None


class _Meter(io.RawIOBase):
    """The tar stream, read through the ratio and the room left; `charge` charges the
    budget member by member."""

    def __init__(self, stream: IO[bytes], packed: int | None, budget: Budget) -> None:
        super().__init__()
        self.stream, self.packed, self.budget = stream, packed, budget
        ratio = budget.limits.max_ratio
        self.ceiling = None if packed is None else max(ratio * packed, RATIO_FLOOR)
        self.read_bytes = 0
        self.charged_to = 0
        """The stream offset up to which the budget was charged."""
        self.produced = 0
        """The bytes charged for this tar: the stream to `charged_to`, and expansions."""

    def readable(self) -> bool:
        """True: the meter is read from, in order."""
        return True

    def read(self, size: int = -1, /) -> bytes:
        """Up to `size` bytes of the stream; raises `ArchiveError` past a limit."""
        data = self.stream.read(size)
        self.read_bytes += len(data)
        if self.ceiling is not None and self.read_bytes > self.ceiling + SLACK:
            raise ArchiveError(f"compression_ratio: {self.read_bytes} bytes from {self.packed}")
        if self.read_bytes - self.charged_to > self.budget.room() + SLACK:
            raise self.budget.unpacked_limit()
        return data

    def charge(self, info: tarfile.TarInfo, offset: int) -> ArchiveError | None:
        """Charge what the member `info` (its next header at `offset`) produces; the
        error of the limit that refuses it (nothing charged), else None."""
        stored = max(min(info.size, offset - info.offset_data), 0)
        expands = max(info.size - stored, 0) if info.isreg() else 0  # a sparse file's holes
        end = info.offset_data + stored
        cost = max(end - self.charged_to, 0) + expands
        if self.ceiling is not None and self.produced + cost > self.ceiling:
            return ArchiveError(
                f"compression_ratio: {self.produced + cost} bytes from {self.packed}"
            )
        if cost > self.budget.room():
            return self.budget.unpacked_limit()
        self.budget.take(cost)
        self.produced += cost
        self.charged_to = max(self.charged_to, end)
        return None


def _member(
    tar: tarfile.TarFile,
    info: tarfile.TarInfo,
    names: MemberNames,
    largest: int,
    over: ArchiveError | None,
) -> Member:
    path, unsafe = clean_name(info.name)
    path = names.claim(path)
    if over is not None:
        limit = over.reason.partition(":")[0]
        return Member(path, info.size, None, limit if limit == "unpacked_limit" else over.reason)
    problem = (
        unsafe if unsafe
        else "link" if info.issym() or info.islnk()
        else "not_regular_file" if not info.isreg()
        else "too_large" if info.size > largest
        else None
    )  # fmt: skip
    if problem is not None:
        return Member(path, info.size, None, problem)
    try:
        handle = tar.extractfile(info)
        content = b"" if handle is None else handle.read(max(info.size, 0))
    except DAMAGE as exc:
        return Member(path, info.size, None, f"damaged: {exc}", damaged=True)
    return Member(path, len(content), content)
