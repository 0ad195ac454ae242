"""The default shard layout: what one change costs in rewritten entries, and an output
cut by the previous defaults re-cut by the next run to exactly a fresh run's bytes."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from outputs import committed

import indexer
from indexer.config import Config
from indexer.pipeline.output.boundaries import Boundaries

PREVIOUS = {"shard_min_files": 256, "shard_boundary_bits": 9}
"""The defaults before shards were made smaller and more even."""

Shard = tuple[str, ...]


def _cut(rels: Iterable[str], config: Config) -> Iterator[Shard]:
    """`rels` in shards by `config`'s rule, from a shard start."""
    shard: list[str] = []
    cut = Boundaries(config)
    for rel in rels:
        if cut.starts(rel):
            yield tuple(shard)
            shard = []
        shard.append(rel)
    if shard:
        yield tuple(shard)


def _rewritten(old: list[Shard], rels: list[str], at: int, config: Config) -> list[Shard]:
    """The shards of `rels` (the old entries with one change at position `at`) that are
    not old shards. A cut depends only on the entries since the previous one, so the
    cutting starts at the old shard holding `at` and stops at the first shard past the
    change that begins where an old one began: from there on the shards are the old."""
    starts, begin = {s[0] for s in old}, 0
    for shard in old:
        if begin + len(shard) > at:
            break
        begin += len(shard)
    new: list[Shard] = []
    for shard in _cut(itertools.islice(rels, begin, None), config):
        if new and begin > at and shard[0] in starts:
            break
        new.append(shard)
        begin += len(shard)
    kept = set(old)
    return [s for s in new if s not in kept]


def test_one_change_rewrites_under_700_entries_on_average_and_moves_few_cuts() -> None:
    # The bench's night (docs/benchmarks.md, shards): five scattered changes and the
    # recent 1,800 entries, within 5% of 120,000 entries, leave each change ~700.
    rels = sorted(f"box-{i // 600:04d}/mail-{i:06d}.txt" for i in range(60_000))
    config = Config()
    old = list(_cut(rels, config))
    rng = random.Random(5)
    costs, most = [], 0
    for trial in range(300):
        at = rng.randrange(len(rels))
        if trial % 2:
            changed = [*rels[:at], *rels[at + 1 :]]
        else:
            changed = [*rels[:at], rels[at].replace(".txt", "-b.txt"), *rels[at:]]
        shards = _rewritten(old, changed, at, config)
        costs.append(sum(map(len, shards)))
        most = max(most, len(shards))
    assert sum(costs) / len(costs) <= 700  # the previous defaults: ~1,190
    assert most <= 3  # a cut moved now and then moves one or two more, never a run


def _notes(root: Path, count: int) -> None:
    for i in range(count):
        path = root / f"box-{i // 300:02d}" / f"note-{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"Note {i}: {'minutes ' * (i % 7 + 1)}\n")


def _records(out: Path) -> list[bytes]:
    """Every chunk record, then every document record, in shard order."""
    return [
        line
        for kind in ("chunks", "documents")
        for shard in sorted(out.glob(f"{kind}-*.ndjson"))
        for line in shard.read_bytes().splitlines()
    ]


def _layout(out: Path) -> list[int]:
    """Each chunk shard's count of documents."""
    return [len(p.read_bytes().splitlines()) for p in sorted(out.glob("documents-*.ndjson"))]


@pytest.mark.slow  # four whole runs of 2,400 notes
@pytest.mark.parametrize("edit", [False, True])
def test_an_output_cut_by_the_previous_defaults_is_re_cut_as_a_fresh_run(
    tmp_path: Path, edit: bool
) -> None:
    source, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    _notes(source, 2400)
    indexer.run(source, out, Config(workers=2, **PREVIOUS))  # type: ignore[arg-type]
    old, records = _layout(out), _records(out)
    if edit:
        (source / "box-03" / "note-1000.txt").write_text("Edited tonight.\n")
    indexer.run(source, out, Config(workers=2))
    indexer.run(source, fresh, Config(workers=1))  # and whatever the worker count
    assert _layout(fresh) != old  # the defaults cut this tree otherwise
    if not edit:  # the same records, only cut elsewhere: no new output format
        assert _records(fresh) == records
    assert committed(out) == committed(fresh)
    assert not [p.name for p in out.iterdir() if ".ndjson." in p.name]  # no stray old shard
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["shards"]) == len(_layout(fresh))
