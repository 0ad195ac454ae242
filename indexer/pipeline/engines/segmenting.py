"""The walk cut into segments at shard boundaries, for the writer and for taking one whole.

Each item of the stretch is a walk entry or, for a segment the previous generation holds
unchanged (`output.segments`), one `Whole` that stands for all its entries: the walk
decides it once it has read the segment's last entry and the next boundary, so none of
its files is dispatched, looked up or rendered. Positions count items, not entries.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from indexer import _version
from indexer.config import Config
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.boundaries import Boundaries
from indexer.pipeline.output.segments import PreviousSegments, Whole, plain, segment_digest
from indexer.pipeline.output.staged import Tally
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
        """`entries` as items (blocking: iterate in a thread). A segment of `plain`
        entries is held until its end; one that holds another entry is passed on from
        there as it comes, so the mbox messages held stay bounded (`entries.take`)."""
        if self._folder is not None and self._state is not None:  # here, in the walk's thread
            self.previous = _previous(self._folder, self._state)
        boundaries = Boundaries(self.config)
        seq, held, streaming = first_seq, list[Entry](), False
        for entry in entries:
            if boundaries.starts(entry.rel) and (held or streaming):
                if held:
                    items = self._settle(held, seq)
                    yield from items
                    seq += len(items)
                held, streaming = [], False
                self.starts.add(seq)
            if streaming:
                yield entry
                seq += 1
            elif plain(entry):
                held.append(entry)
            else:  # this segment is not taken whole nor summarised
                yield from held
                yield entry
                seq, held, streaming = seq + len(held) + 1, [], True
        if held:
            yield from self._settle(held, seq)

    def _settle(self, segment: list[Entry], seq: int) -> list[Item]:
        """A whole segment of plain entries beginning at `seq`: one `Whole`, when the
        previous generation holds it, else its entries (its digest noted)."""
        digest = segment_digest(segment, self.salt)
        if digest is not None and self.previous is not None:
            whole = self.previous.whole(digest, len(segment))
            if whole is not None:
                return [whole]
        if digest is not None:
            self.digests[seq] = digest
        return [*segment]


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


def summary(digest: str, shards: int, tally: Tally, paths: list[str]) -> dict[str, Any] | None:
    """The `"seg"` summary of a segment the writer wrote; None when one of its documents
    failed (a failure may be retried: the next run must look at it)."""
    if "failed" in tally.by_status:
        return None
    return {
        "digest": digest, "shards": shards, "files": tally.files, "chunks": tally.chunks,
        "pages": tally.pages, "by_status": dict(sorted(tally.by_status.items())),
        "by_kind": dict(sorted(tally.by_kind.items())), "paths": paths,
        **({"excluded": tally.excluded} if tally.excluded else {}),
    }  # fmt: skip


def add_whole(tally: Tally, seg: dict[str, Any]) -> None:
    """Count a segment taken whole as the slow path counts its reused files."""
    paths: list[str] = seg["paths"]
    tally.files += seg["files"]
    tally.excluded += seg.get("excluded", 0)
    tally.documents += len(paths)
    tally.chunks += seg["chunks"]
    tally.pages += seg["pages"]
    tally.reused += len(paths) - seg["by_status"].get("skipped", 0)
    for into, counts in ((tally.by_status, seg["by_status"]), (tally.by_kind, seg["by_kind"])):
        for key, n in counts.items():
            into[key] = into.get(key, 0) + n
    # A reused document's extraction took no time here: it ranks by its path alone.
    tally.slowest.extend((0.0, path) for path in heapq.nlargest(10, paths))
    if len(tally.slowest) > 64:
        tally.slowest = sorted(tally.slowest, reverse=True)[:10]
