"""The limits and filters that bound what a container (an archive) may unpack.

They travel inside `Options` to the worker that opens the container, and their
digest is part of the archive extractor's cache key.
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerLimits:
    """What one archive, with everything nested in it, may unpack."""

    include: tuple[str, ...] = ()
    """The walk's include globs, matched against `<archive rel>/<member path>`."""
    exclude: tuple[str, ...] = ()
    """The walk's exclude globs, matched the same way (and against member folders)."""
    max_member_bytes: int = 256 * MiB
    """A member larger than this is `too_large` (the walk's `max_file_bytes`)."""
    max_unpacked_bytes: int = 256 * MiB
    """Bytes all members together may unpack to; past it the archive stops, `failed`."""
    max_members: int = 10_000
    """Members (at any depth) one archive may hold; past it the archive stops, `failed`."""
    max_ratio: int = 100
    """Unpacked to packed size a member (or a compressed tar) may reach past 1 MiB."""
    max_depth: int = 3
    """Archives inside archives opened; one nested deeper is skipped (`depth_limit`)."""

    def __post_init__(self) -> None:
        for name in ("max_member_bytes", "max_unpacked_bytes", "max_members", "max_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.max_depth < 0:
            raise ValueError(f"max_depth must be >= 0, got {self.max_depth}")
