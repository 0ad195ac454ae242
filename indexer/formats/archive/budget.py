"""What the readers of zips and tars share: the `Budget`, the `Member` they yield, the
`ArchiveError` that stops an archive, and the errors that mean damage.

One `Budget` is made for a top-level archive and passed down to every archive nested
in it (the pipeline hands the same object on), so the limits hold for everything
inside one document together. It is charged with the bytes actually produced: what a
decompressor put out (also for a member refused or found damaged half-way: the work
was done all the same, and must not be done without end) and what a sparse tar
member expands to, not what a header declares. The readers bound every read by the
room left, so nothing yielded from one archive adds up to more than
`max_unpacked_bytes`.
"""

from __future__ import annotations

import lzma
import tarfile
import zipfile
import zlib
from dataclasses import dataclass

from indexer._limits import ContainerLimits

__all__ = ["DAMAGE", "RATIO_FLOOR", "ArchiveError", "Budget", "Member"]

RATIO_FLOOR = 1 << 20
"""Unpacked bytes below which no ratio is held against a member: a small file of
zeros compresses a thousandfold and harms nothing."""
DAMAGE = (
    zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError,
    ValueError, NotImplementedError, RuntimeError, KeyError,
)  # fmt: skip
"""What the standard readers raise on bytes that are no (longer a) valid archive."""


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
    """What one archive and everything nested in it may still unpack (shared, mutable:
    the one object is passed to every nested archive)."""

    def __init__(self, limits: ContainerLimits) -> None:
        self.limits = limits
        self.members = 0
        self.unpacked = 0
        """Bytes produced so far: never more than `limits.max_unpacked_bytes`."""

    def count(self) -> None:
        """Count one more member; raises `ArchiveError` past `max_members`."""
        self.members += 1
        if self.members > self.limits.max_members:
            raise ArchiveError(f"member_limit: more than {self.limits.max_members} members")

    def room(self) -> int:
        """Unpacked bytes left."""
        return self.limits.max_unpacked_bytes - self.unpacked

    def take(self, produced: int) -> None:
        """Count `produced` more bytes; raises `ArchiveError` when they do not fit (the
        readers ask `room` first where a member should be refused with a record)."""
        if produced > self.room():
            raise self.unpacked_limit()
        self.unpacked += max(produced, 0)

    def shares(self, n: int) -> list[Budget]:
        """`n` budgets that split what is left of this one evenly (bytes and members),
        for `n` containers extracted elsewhere at once (each in another process, with
        a copy it cannot report back from): together they stay within the limits."""
        room, members = self.room(), self.limits.max_members - self.members
        parts = []
        for _ in range(n):
            part = Budget(self.limits)
            part.unpacked = self.limits.max_unpacked_bytes - room // n
            part.members = self.limits.max_members - members // n
            parts.append(part)
        return parts

    def unpacked_limit(self) -> ArchiveError:
        """The error of an archive that reached `max_unpacked_bytes`."""
        return ArchiveError(f"unpacked_limit: more than {self.limits.max_unpacked_bytes} bytes")
