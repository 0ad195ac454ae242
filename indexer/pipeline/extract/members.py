"""The walk's rules for the members of a `folder` container (an archive), applied by `nest`.

Each member is judged as the walk judges a file on disk, so that its records equal
the same file's: the walk's include and exclude globs (matched against
`<container path>/<member path>`, the container read as a folder; a container the
include passes over is opened all the same when it could match a member of it, its
own document then `excluded`, as the walk does with one on disk), an extractor that
claims its extension, else `binary` for a known binary extension or a NUL in its
first 8 KiB, else text. `.7z` and `.rar` members are `unsupported_archive`.
Problems the reader found (an unsafe name, a link, encryption, a limit) are
`skipped` records; damage is a `failed` one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from indexer._extract import failure
from indexer._globs import may_match_below
from indexer._limits import ContainerLimits
from indexer._types import Extracted
from indexer.pipeline.walk.binary import UNSUPPORTED_ARCHIVES, binary_head
from indexer.pipeline.walk.walker import BINARY_EXTENSIONS, SNIFF_BYTES, compile_globs
from indexer.registry import ExtractorSpec, Held, Registry, extension_of


def judge(name: str, data: bytes, registry: Registry) -> tuple[ExtractorSpec | None, str | None]:
    """The extractor of a member called `name`, or why it is passed over (the walk's rules)."""
    if registry.handles(name):
        return registry.for_path(name), None
    ext = extension_of(name)
    if ext in UNSUPPORTED_ARCHIVES:  # the walk's rule for such a file on disk
        return None, "unsupported_archive"
    if ext in BINARY_EXTENSIONS:
        return None, "binary"
    if binary_head(data[:SNIFF_BYTES]):
        return None, "binary"
    return registry.for_path(name), None


def for_members_only(doc: Extracted) -> Extracted:
    """A container's own document when the include globs want only its members: `excluded`,
    as the walk records a file they pass over; a failure stays a failure."""
    if doc.error is not None:
        return doc
    return replace(doc, text="", chunks=(), skipped="excluded")


def damaged(kind: str, member: Held) -> Extracted:
    """The `failed` document of a member its reader could not read whole, of `kind`
    (`""` when nothing claims its name)."""
    return failure(kind, member.problem or "damaged")


class Globs:
    """The walk's include and exclude globs, applied to the members of one folder container."""

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
        """`excluded` when the globs pass over the member at `member`; `members` for a
        folder container the include globs pass over but whose members they may want; else None."""
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
        opens = self.registry.handles(member) and self.registry.for_path(member).folder
        return "members" if opens and may_match_below(self.patterns, path) else "excluded"

    @staticmethod
    def _match(globs: Any, *candidates: str) -> bool:
        return globs is not None and any(globs.fullmatch(c) for c in candidates)
