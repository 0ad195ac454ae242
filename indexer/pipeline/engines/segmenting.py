"""The walk cut into segments at shard boundaries, for the writer and for taking one whole.

Each item of the stretch is a walk entry or, for a segment the previous generation holds
unchanged (`output.segments`), one `Whole` that stands for all its entries: the walk
decides it once it has read the segment's last entry and the next boundary, so none of
its files is dispatched, looked up or rendered. Positions count items, not entries.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from indexer import _version
from indexer.config import Config
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.boundaries import Boundaries
from indexer.pipeline.output.segments import PreviousSegments, Whole, segment_digest
from indexer.pipeline.walk.entry import Entry
from indexer.registry import Registry

log = logging.getLogger(__name__)

Item = Entry | Whole


def salt(config: Config, registry: Registry) -> bytes:
    """What else a segment's output depends on: the config, cache keys, extractors."""
    versions = sorted((s.name, s.version) for s in registry.extractors())
    v = _version
    formats = (v.__version__, v.CONTRACT, v.OUTPUT_FORMAT, v.SHARD_LAYOUT)
    keys = CacheKeys(config, registry).digest()
    return f"{config.digest()}|{keys}|{versions}|{formats}|".encode()


class Segmenter:
    """Marks where each segment begins (`starts`) and its digest (`digests`) by the
    position of its first item; yields a `Whole` for a segment the generation in
    `previous` holds (None: take none whole)."""

    def __init__(
        self, config: Config, salt: bytes, previous: Path | None, state: State | None
    ) -> None:
        self.config = config
        self.salt = salt
        self._folder = previous
        self._state = state
        self.previous: PreviousSegments | None = None
        self.starts: set[int] = set()
        """Positions that begin a shard, from the walk to the writer (which removes them)."""
        self.digests: dict[int, str] = {}
        """Each summarisable segment's digest, by its first position (the writer pops it)."""

    def items(self, entries: Iterator[Entry], first_seq: int) -> Iterator[Item]:
        """`entries` as items (blocking: iterate in a thread), a segment at a time."""
        if self._folder is not None and self._state is not None:  # here, in the walk's thread
            self.previous = _previous(self._folder, self._state)
        boundaries = Boundaries(self.config)
        seq, segment = first_seq, list[Entry]()
        for entry in entries:
            if boundaries.starts(entry.rel) and segment:
                items = self._segment(segment, seq, first=seq == first_seq)
                yield from items
                seq, segment = seq + len(items), []
            segment.append(entry)
        if segment:
            yield from self._segment(segment, seq, first=seq == first_seq)

    def _segment(self, segment: list[Entry], seq: int, *, first: bool) -> list[Item]:
        if not first:
            self.starts.add(seq)
        items: list[Item] = [*segment]
        digest = segment_digest(segment, self.salt)
        if digest is None:
            return items
        if self.previous is not None:
            whole = self.previous.whole(digest, len(segment))
            if whole is not None:
                return [whole]
        self.digests[seq] = digest
        return items


def _previous(folder: Path, state: State) -> PreviousSegments | None:
    """The segments of the generation in `folder`, when the state's stored outputs are
    those behind it (its noted walk is that output's, as for an unchanged re-run): the
    slow path would reuse each unchanged file's then. A run that left files to do
    again, or a state set aside, notes no walk: nothing is taken whole."""
    try:
        tree = state.committed_tree
    except Exception as exc:  # a state closed or set aside meanwhile: the slow path
        log.debug("no committed walk in the state: %s", exc)
        return None
    return None if tree is None else PreviousSegments(folder, tree.manifest)
