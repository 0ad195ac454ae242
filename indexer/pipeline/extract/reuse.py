"""Stored outputs made into this run's output for a path: as they are, rebased to
another path (a copy, a rename), or re-packed from their blocks when this run's
packing differs from theirs (`output.stored`). No extractor runs for any of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from indexer._types import Options
from indexer.pipeline.extract.tasks import Job, packed, rendered
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import Stored
from indexer.pipeline.output.blocks import thaw
from indexer.pipeline.output.records import FileOutcome, Rendered
from indexer.pipeline.output.stored import StoredOutput, decode, rebase
from indexer.pipeline.walk.walker import Entry
from indexer.registry import ExtractorSpec


@dataclass(frozen=True, slots=True)
class Hit:
    """A stored output found by key, rendered for the path that asked."""

    docs: tuple[Rendered, ...]
    deps: tuple[str, ...]
    blocks: bytes
    """What it was rendered from, to store again with it."""
    repacked: bool = False
    """Packed from `blocks` under this run's settings, not written as stored."""


@dataclass(frozen=True, slots=True)
class Asker:
    """The file a stored output is wanted for."""

    rel: str
    spec: ExtractorSpec
    sha256: str
    size: int | None
    """The size of the bytes read, when they were (a stored output must match it)."""


class Reuse:
    """Turns stored outputs into hits under this run's keys and packing."""

    def __init__(self, keys: CacheKeys, options: Options) -> None:
        self.keys = keys
        self.options = options

    def as_is(self, output: bytes) -> tuple[Rendered, ...] | None:
        """A path's own stored output, when it was rendered under this run's packing."""
        stored = decode(output)
        return stored.docs if stored.tag == self.keys.tag else None

    def hit(self, found: Stored, asker: Asker) -> Hit | None:
        """`found` rendered for `asker`, or None when it cannot serve (an attachment's
        key changed, another size, a record or blocks that do not read back)."""
        if not self.keys.current(found.deps):
            return None
        stored = decode(found.output)
        if asker.size is not None and _stored_size(stored.docs) != asker.size:
            return None  # an older version took the walk's size of a file rewritten since
        repacked = stored.tag != self.keys.tag
        if repacked:
            docs = self._repacked(stored, asker)
        elif found.path != asker.rel:  # a copy or a rename: the records name the path
            docs = rebase(stored.docs, found.path, asker.rel)
        else:
            docs = stored.docs
        return None if docs is None else Hit(docs, found.deps, stored.blocks, repacked)

    def _repacked(self, stored: StoredOutput, asker: Asker) -> tuple[Rendered, ...] | None:
        """The documents of `stored`'s blocks packed under this run's settings, rendered
        for `asker` as a fresh extraction would render them."""
        if not stored.blocks:
            return None
        try:
            unit, size = thaw(stored.blocks)
        except (ValueError, TypeError):  # not what `freeze` wrote: extract again
            return None
        job = Job(asker.spec, asker.rel, b"", asker.sha256, size)
        return rendered(job, packed(unit, self.options))


def reused(
    seq: int, entry: Entry, docs: tuple[Rendered, ...], *, repacked: bool = False
) -> FileOutcome:
    """The outcome of a file whose output was found stored (and re-packed, with `repacked`)."""
    count = sum(d.status != "skipped" for d in docs)
    return FileOutcome(
        seq=seq, docs=docs, reused=count, repacked=count if repacked else 0,
        in_archive=entry.data is not None, cached=True,
    )  # fmt: skip


def _stored_size(docs: tuple[Rendered, ...]) -> int:
    """The `bytes` a stored output gives its file."""
    size: int = orjson.loads(docs[0].line)["bytes"]
    return size
