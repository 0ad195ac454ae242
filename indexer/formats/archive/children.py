"""An archive's members, yielded one at a time for the pipeline to nest (`ChildrenFn`).

Each member is read within the budget the whole top-level document shares
(`Nesting.budget`); the pipeline judges it as the walk judges a file (the archive is
a `folder`). The archive's own document, returned at the end, lists the members
read; an archive that stops early is `failed` with the reason, after them.
"""

from __future__ import annotations

from collections.abc import Generator

from indexer._spec import Held, Nesting
from indexer._types import Extracted, Options
from indexer.formats.archive import inner_name, listing
from indexer.formats.archive.read import ArchiveError, read_members, sniff

__all__ = ["children"]


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield each member of the archive `data` (at record path `path`); return its own
    document, the member list. Never raises for a damaged archive or a reader's bug."""
    fmt = sniff(data)
    if fmt is None:
        return listing(None, (), "not a zip, tar or compressed file", options)
    paths: list[str] = []
    error = None
    try:
        for member in read_members(data, fmt, inner_name(path), nesting.budget):
            paths.append(member.path)
            yield Held(
                path=member.path, name=member.path, data=member.data, size=member.size,
                problem=member.problem, damaged=member.damaged,
            )  # fmt: skip
    except ArchiveError as exc:
        error = exc.reason
    except Exception as exc:  # a reader's bug must cost this archive, not the batch
        error = f"exception in archive reader: {type(exc).__name__}: {exc}"[:500]
    return listing(fmt, paths, error, options)
