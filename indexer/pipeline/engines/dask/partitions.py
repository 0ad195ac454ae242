"""The walk cut into the dask engine's partitions: whole shards, sized for speed only.

A partition may begin only where a shard does (`boundaries.Boundaries`): its writer,
starting a `Boundaries` of its own at that entry, then cuts the shards the whole walk's
writer would, so the output is the same bytes whatever the partition size. Within that
rule the size is free: a partition ends at the first shard start once it holds
`partition_files` entries or `partition_bytes` bytes (docs/distributed.md, "Sizing").
Shards hold `shard_min_files` to `shard_files` entries, so a partition can be no
smaller than the shard it is made of.
"""

from __future__ import annotations

from collections.abc import Iterator

from indexer.config import Config
from indexer.pipeline.output.boundaries import Boundaries
from indexer.pipeline.walk.entry import Entry


def partitions(entries: Iterator[Entry], config: Config) -> Iterator[tuple[Entry, ...]]:
    """The walk in partitions of whole shards, each of at least `config.partition_files`
    entries or `config.partition_bytes` bytes (but the last)."""
    boundaries, part, held = Boundaries(config), list[Entry](), 0
    for entry in entries:
        starts = boundaries.starts(entry.rel)
        if starts and (len(part) >= config.partition_files or held >= config.partition_bytes):
            yield tuple(part)
            part, held = [], 0
        part.append(entry)
        held += max(entry.size, len(entry.data or b""))
    if part:
        yield tuple(part)
