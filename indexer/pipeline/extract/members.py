"""An archive's members as child documents, read inside the worker that opened it.

Each member is judged as the walk judges a file on disk, so that its records equal
the same file's: the walk's include and exclude globs (matched against
`<archive path>/<member path>`, the archive read as a folder; an archive the include
passes over is opened all the same when it could match a member of it, its own
document then `excluded`, as the walk does with one on disk), an extractor that
claims its extension, else `binary` for a known binary extension or a NUL in its
first 8 KiB, else text. `.7z` and `.rar` members are `unsupported_archive`.
Problems the reader found (an unsafe name, a link, encryption, a limit) are
`skipped` records; damage is a `failed` one. Nested archives recurse through
`children.nested`, sharing the outer archive's `Budget`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from indexer._extract import failure_text
from indexer._globs import may_match_below
from indexer._limits import ContainerLimits
from indexer._text import wide_encoding
from indexer._types import Chunk, Extracted, Options
from indexer.formats.archive import UNSUPPORTED, inner_name, listing
from indexer.formats.archive.read import ArchiveError, Budget, Member, read_members, sniff
from indexer.pipeline.extract.nest import UnitFn, nested
from indexer.pipeline.output.units import Child
from indexer.pipeline.walk.walker import BINARY_EXTENSIONS, SNIFF_BYTES, compile_globs
from indexer.registry import ExtractorSpec, Registry, extension_of

_TEXT_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def expand_archive(
    data: bytes,
    rel: str,
    options: Options,
    registry: Registry,
    depth: int,
    budget: Budget,
    context: dict[str, Any],
    *,
    unit: UnitFn,
    defer: bool = False,
) -> tuple[Extracted, tuple[Child, ...]]:
    """The archive `data`'s own document (its member list) and its members, in order.

    Never raises: an archive that stops early is `failed` with the reason, after
    the members read before it.
    """
    paths: list[str] = []
    children: list[Child] = []
    error = fmt = None
    globs = _Globs(options.containers, rel.replace("#", "/"), registry)
    try:
        fmt = sniff(data)
        if fmt is None:
            return listing(None, (), "not a zip, tar or compressed file", options), ()
        for member in read_members(data, fmt, inner_name(rel), budget):
            paths.append(member.path)
            found = _member(
                member, globs, options, registry, rel, depth, budget, context, unit, defer
            )
            children.extend(found)
    except ArchiveError as exc:
        error = exc.reason
    except Exception as exc:  # a reader's bug must cost this archive, not the batch
        error = f"exception in archive reader: {type(exc).__name__}: {exc}"[:500]
    doc = listing(fmt, paths, error, options)
    if depth == 0 and fmt is not None and not globs.included(globs.base):
        doc = _for_members_only(doc)  # let in by the walk for what it holds
    return doc, tuple(children)


def _member(
    member: Member,
    globs: _Globs,
    options: Options,
    registry: Registry,
    rel: str,
    depth: int,
    budget: Budget,
    context: dict[str, Any],
    unit: UnitFn,
    defer: bool,
) -> Iterator[Child]:
    suffix = "#" + member.path
    sha = None if member.data is None else hashlib.sha256(member.data).hexdigest()
    make = partial(Child, suffix=suffix, size=member.size, sha256=sha, context=context)
    if member.damaged:
        claimed = registry.for_path(member.path)
        yield make(kind=claimed.kind, extractor=claimed.name, extracted=_damaged(claimed, member))
        return
    verdict = globs.verdict(member.path)
    skip = member.problem or (verdict if verdict == "excluded" else None)
    spec: ExtractorSpec | None = None
    if skip is None:
        assert member.data is not None
        spec, skip = judge(member.path, member.data, registry)
    if skip is not None or spec is None or member.data is None:
        yield make(kind=None, skip=skip)
        return
    found = nested(
        spec, member.path, member.data, make, options, registry,
        suffix=suffix, rel=rel, depth=depth, budget=budget, context=context,
        unit=unit, defer=defer,
    )  # fmt: skip
    for n, child in enumerate(found):
        if n == 0 and verdict == "members" and child.extracted is not None:
            child = replace(child, extracted=_for_members_only(child.extracted))
        yield child


def judge(name: str, data: bytes, registry: Registry) -> tuple[ExtractorSpec | None, str | None]:
    """The extractor of a member called `name`, or why it is passed over (the walk's rules)."""
    if registry.handles(name):
        return registry.for_path(name), None
    ext = extension_of(name)
    if ext in UNSUPPORTED:
        return None, "unsupported_archive"
    if ext in BINARY_EXTENSIONS:
        return None, "binary"
    head = data[:SNIFF_BYTES]
    if b"\0" in head and not head.startswith(_TEXT_BOMS) and wide_encoding(head) is None:
        return None, "binary"
    return registry.for_path(name), None


def _for_members_only(doc: Extracted) -> Extracted:
    """An archive's own document when the include globs want only its members: `excluded`,
    as the walk records a file they pass over; a failure stays a failure."""
    if doc.error is not None:
        return doc
    return replace(doc, text="", chunks=(), skipped="excluded")


def _damaged(spec: ExtractorSpec, member: Member) -> Extracted:
    reason = member.problem or "damaged"
    chunk = Chunk(text=failure_text(spec.kind, reason))
    return Extracted(kind=spec.kind, text="", chunks=(chunk,), degraded=True, error=reason)


class _Globs:
    """The walk's include and exclude globs, applied to the members of one archive."""

    def __init__(self, limits: ContainerLimits, base: str, registry: Registry) -> None:
        self.patterns = limits.include
        self.include = compile_globs(limits.include)
        self.exclude = compile_globs(limits.exclude)
        self.base = base
        self.registry = registry

    def included(self, path: str) -> bool:
        """True unless include globs are set and `path` matches none of them."""
        return self.include is None or self._match(self.include, path)

    def verdict(self, member: str) -> str | None:
        """`excluded` when the globs pass over the member at `member`; `members` for an
        archive the include globs pass over but whose members they may want; else None."""
        if self.include is None and self.exclude is None:
            return None
        path = f"{self.base}/{member}"
        folders = path.split("/")[:-1]
        for n in range(len(self.base.split("/")) + 1, len(folders) + 1):
            folder = "/".join(folders[:n])
            if self._match(self.exclude, folder, folder + "/"):
                return "excluded"
        if self._match(self.exclude, path):
            return "excluded"
        if self.included(path):
            return None
        archive = self.registry.handles(member) and self.registry.for_path(member).kind == "archive"
        return "members" if archive and may_match_below(self.patterns, path) else "excluded"

    @staticmethod
    def _match(globs: Any, *candidates: str) -> bool:
        return globs is not None and any(globs.fullmatch(c) for c in candidates)
