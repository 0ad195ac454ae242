"""`archive`: zip, tar (plain, gzip, bzip2, xz) and single compressed files (`.gz`, ...).

An archive's own document is the list of its members, one path a line, `meta`
`{"part": "members"}`; its `metadata` gives the `format` and the member count.
In a run, each member also becomes a child document `a.zip#<member path>`,
extracted by its own extractor (see `indexer.pipeline.extract.members`). The
format is read from the bytes, not the name. An archive that stops early is
`failed` (damage) or `skipped` (a limit of `ContainerLimits`) with the reason, after
the members read before it. A run writes no chunk for the archive's own document:
its members are documents of their own.
"""

from __future__ import annotations

from collections.abc import Iterable

from indexer._text import split_text
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.archive.read import ArchiveError, Budget, Member, read_members, sniff
from indexer.registry import extension_of

__all__ = [
    "VERSION",
    "ArchiveError",
    "Budget",
    "Member",
    "extract",
    "inner_name",
    "listing",
    "sniff",
]

VERSION = VERSIONS["archive"]  # bumped in indexer/formats/__init__.py
_COMPRESSED = ("gz", "bz2", "xz")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """List the members of the archive `data`; never raises.

    Bytes that are no archive give a `failed` result whose chunk says so.
    """
    fmt = sniff(data)
    if fmt is None:
        return listing(None, (), "not a zip, tar or compressed file", options)
    members: list[Member] = []
    error = None
    try:
        members.extend(read_members(data, fmt, inner_name(path), Budget(options.containers)))
    except ArchiveError as exc:
        error = exc.reason
    return listing(fmt, [m.path for m in members], error, options)


def inner_name(path: str) -> str:
    """The name of the one file a compressed file holds: its own without `.gz` (`.bz2`, `.xz`)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].split("#")[-1]
    ext = extension_of(name)
    stem = name[: -len(ext) - 1] if ext in _COMPRESSED else name
    return stem or "data"


def listing(
    fmt: str | None, paths: Iterable[str], error: str | None, options: Options
) -> Extracted:
    """The archive's own document: its members' paths as chunks; `failed` when `error`."""
    names = list(paths)
    text = "\n".join(names)
    chunks = [
        Chunk(text=t, meta={"part": "members"}) for t in split_text(text, options.max_chunk_chars)
    ]
    if error is not None:
        chunks.append(Chunk(text=f"[archive extraction failed: {error}]", meta={"part": "error"}))
    metadata = {"format": fmt, "members": len(names)} if fmt else {}
    return Extracted(
        kind="archive", text=text, chunks=tuple(chunks), error=error, degraded=error is not None,
        metadata=metadata,
    )  # fmt: skip
