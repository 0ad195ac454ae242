"""Where shards begin: after entries picked by their own path, not by their position.

A shard ends after a walk entry whose path hash (the first 8 bytes of the sha256 of its
relative path, as an integer) has its low `shard_boundary_bits` bits zero, once the shard
holds `shard_min_files` entries; it also ends when it holds `shard_files` entries. So a
boundary depends only on the entries since the previous one: a file added, changed or
removed moves no boundary but those of its own shard (and, when it is itself a boundary
entry, its neighbour's), and the shards after it are the same files as before. Within a
shard, `shard_bytes` still cuts a new shard before a record that would not fit; that cut
restarts at the next boundary too. The rule reads only the walk, so the dask driver cuts
its partitions at the same boundaries (`engines.dask.partitions`) and each partition's
writer finds them again from its first entry.
"""

from __future__ import annotations

import hashlib

from indexer.config import Config


class Boundaries:
    """Decides, entry by entry in walk order, which entries begin a new shard."""

    def __init__(self, config: Config) -> None:
        self._mask = (1 << config.shard_boundary_bits) - 1
        self._max = config.shard_files
        self._min = min(config.shard_min_files, config.shard_files)  # a cap below it wins
        self._count = 0
        self._cut = False

    def starts(self, rel: str) -> bool:
        """Whether the next walk entry, `rel`, begins a new shard (the first one never
        needs to: there is no shard before it)."""
        start = self._cut or self._count >= self._max
        if start:
            self._count = 0
        self._count += 1
        self._cut = self._count >= self._min and is_boundary(rel, self._mask)
        return start


def is_boundary(rel: str, mask: int) -> bool:
    """Whether a shard may end after the entry `rel`: its path hash's low bits are zero."""
    digest = hashlib.sha256(rel.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "little") & mask == 0
