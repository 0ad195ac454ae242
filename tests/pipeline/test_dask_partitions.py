"""The dask engine's partitions: whole shards, sized by `partition_files` and
`partition_bytes`, never by the output settings (tests/pipeline/test_distributed.py runs
them on a cluster and compares the bytes)."""

from __future__ import annotations

from dataclasses import replace

from indexer.config import Config
from indexer.pipeline.engines.dask.driver import ahead
from indexer.pipeline.engines.dask.partitions import partitions
from indexer.pipeline.output.boundaries import Boundaries
from indexer.pipeline.walk.entry import Entry

CONFIG = Config(shard_files=64, shard_min_files=4, shard_boundary_bits=3, partition_files=200)
RELS = [f"box/{i:05d}.txt" for i in range(3000)]


def _entries(rels: list[str], size: int = 0) -> list[Entry]:
    return [Entry(rel=r, path=r.encode(), size=size, version="", skip=None) for r in rels]


def _starts(rels: list[str], config: Config) -> list[str]:
    """The entries that begin a shard, the first one's included."""
    cut = Boundaries(config)
    return [r for i, r in enumerate(rels) if cut.starts(r) or i == 0]


def _cut(config: Config, size: int = 0) -> list[list[str]]:
    return [[e.rel for e in part] for part in partitions(iter(_entries(RELS, size)), config)]


def test_partitions_are_whole_shards_whose_own_cuts_are_the_whole_walks() -> None:
    parts = _cut(CONFIG)
    assert [rel for part in parts for rel in part] == RELS
    starts = set(_starts(RELS, CONFIG))
    # Each partition begins a shard, and cutting it afresh finds the walk's own cuts.
    assert all(part[0] in starts for part in parts)
    assert {s for part in parts for s in _starts(part, CONFIG)} == starts


def test_a_partition_ends_at_the_first_shard_start_past_partition_files() -> None:
    parts = _cut(CONFIG)
    assert 3000 // (200 + 64) <= len(parts) <= 3000 // 200
    # At least partition_files entries, and less than one more shard beyond them.
    assert all(200 <= len(p) < 200 + CONFIG.shard_files for p in parts[:-1])


def test_a_partition_no_bigger_than_a_shard_is_one_shard() -> None:
    parts = _cut(replace(CONFIG, partition_files=1))
    assert [p[0] for p in parts] == _starts(RELS, CONFIG)
    assert all(_starts(p, CONFIG) == [p[0]] for p in parts)


def test_partition_bytes_ends_a_partition_of_large_files_before_partition_files() -> None:
    config = replace(CONFIG, partition_files=100_000, partition_bytes=1_000_000)
    parts = _cut(config, size=10_000)  # 100 files hold the bytes
    assert len(parts) > 3000 // (100 + 64)
    assert all(100 <= len(p) < 100 + CONFIG.shard_files for p in parts[:-1])
    assert len(_cut(config)) == 1  # files of no size: the file count decides


def test_the_shard_settings_alone_no_longer_size_the_partitions() -> None:
    """A large `shard_files` (the default is 8,192) once made a partition of at least that
    many entries: a corpus of 20,000 files was 3 partitions for 2 workers."""
    wide = replace(CONFIG, shard_files=8192, shard_min_files=4)
    assert len(_cut(wide)) >= 3000 // (200 + 8192) + 10


def test_the_driver_submits_several_partitions_per_worker_thread_ahead() -> None:
    assert ahead(1) == 8 and ahead(2) == 8 and ahead(16) == 64
