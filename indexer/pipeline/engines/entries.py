"""The walk as engines read it: mbox messages expanded, digested for the state, seen marked,
and taken a bounded stretch at a time."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from indexer.config import Config
from indexer.pipeline.engines.segmenting import Item
from indexer.pipeline.incremental.state import State
from indexer.pipeline.incremental.tree import Digests
from indexer.pipeline.walk.mailbox import expand_mailboxes
from indexer.pipeline.walk.source import Source
from indexer.pipeline.walk.walker import Entry, policy_for
from indexer.registry import Registry

_HELD_BYTES = 64 << 20
"""Bytes of mbox messages one stretch may hold (`take`)."""
_SEEN_BATCH = 256
"""Paths marked seen in one call (`marking_seen`)."""


def walk_entries(
    source: Source,
    config: Config,
    registry: Registry,
    walked: Iterator[Entry] | None = None,
    tree: Digests | None = None,
) -> Iterator[Entry]:
    """The entries a run processes, in order: the walk (`walked` if given, else a new
    one), digested into `tree` if given, each mbox followed by its messages."""
    if walked is None:
        walked = source.walk(policy_for(config, registry))
    if tree is not None:
        walked = tree.follow(walked)
    return expand_mailboxes(
        walked, registry.lister, config.max_file_bytes, source.open, local=source.local
    )


def marking_seen(entries: Iterator[Entry], state: State | None) -> Iterator[Entry]:
    """Yield `entries`, marking each one not skipped as seen in `state` (blocking: iterate
    in a thread), so that the sweep after the commit keeps its row.

    A skipped entry is not seen: the sweep drops its row, so that an output stored
    before it was skipped (an unreadable night; chmod keeps the mtime) never passes
    for current once it is readable again. Only the run that walks marks: a dask
    worker's connection cannot.
    """
    if state is None:
        yield from entries
        return
    seen: list[str] = []
    for entry in entries:
        if entry.skip is None:
            seen.append(entry.rel)
        yield entry
        if len(seen) >= _SEEN_BATCH:
            state.mark_seen(seen)
            seen = []
    if seen:
        state.mark_seen(seen)


def take(entries: Iterator[Item], n: int) -> list[Item]:
    """The next `n` items at most, fewer when their mbox messages' bytes pass a bound."""
    taken: list[Item] = []
    held = 0
    for entry in islice(entries, n):
        taken.append(entry)
        if isinstance(entry, Entry):
            held += len(entry.data or b"")
        if held > _HELD_BYTES:
            break
    return taken
