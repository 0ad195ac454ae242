"""Shard boundaries that do not move: a change rewrites the shard that holds it (and its
neighbour when a boundary entry comes or goes), and the output is a fresh run's."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed, write_notes

import indexer
from indexer._version import SHARD_LAYOUT
from indexer.config import Config
from indexer.pipeline.output.boundaries import Boundaries, is_boundary
from indexer.pipeline.walk.entry import Entry

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)
MASK = (1 << CONFIG.shard_boundary_bits) - 1


def _shards(out: Path) -> list[list[str]]:
    """Each shard's document paths, in order."""
    return [
        [json.loads(line)["path"] for line in p.read_bytes().splitlines()]
        for p in sorted(out.glob("chunks-*.ndjson"))
    ]


def _inodes(out: Path) -> set[int]:
    return {p.stat().st_ino for p in out.glob("chunks-*.ndjson")}


def _name(folder: str, stem: str, boundary: bool) -> str:
    """The first `folder/<stem><k>.txt` whose path hash makes it a boundary entry or not."""
    return next(
        rel for k in range(1000)
        if is_boundary(rel := f"{folder}/{stem}{k}.txt", MASK) == boundary
    )  # fmt: skip


def _target(shards: list[list[str]], where: str) -> str:
    """An existing file: the first, one in the middle of a shard, the last, or a
    boundary entry (the last of a middle shard that its path hash ended)."""
    paths = [p for shard in shards for p in shard]
    if where == "front":
        return paths[0]
    if where == "end":
        return paths[-1]
    middle = shards[len(shards) // 2]
    if where == "middle":
        return middle[len(middle) // 2]
    return next(s[-1] for s in shards[len(shards) // 2 :] if is_boundary(s[-1], MASK))


def _insert_at(where: str, target: str) -> str:
    folder = target.split("/")[0]
    if where == "front":
        return _name(folder, "m", False)  # "m" sorts before "n00"
    if where == "end":
        return _name(folder, "o", False)  # "o" sorts after "n19"
    stem = target.removesuffix(".txt") + "-"  # right after the target
    return _name(folder, stem.split("/")[1], where == "boundary")


@pytest.mark.slow  # twelve pairs of whole runs
@pytest.mark.parametrize("op", ["insert", "delete", "edit"])
@pytest.mark.parametrize("where", ["front", "middle", "end", "boundary"])
def test_a_change_rewrites_only_its_own_shards_and_gives_a_fresh_runs_bytes(
    tmp_path: Path, op: str, where: str
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    before, shards = _inodes(out), _shards(out)
    assert len(shards) >= 6
    target = _target(shards, where)
    if op == "insert":
        (source / _insert_at(where, target)).write_text("A new note arrives.\n")
    elif op == "delete":
        (source / target).unlink()
    else:
        (source / target).write_text("This note was edited.\n")
    indexer.run(source, out, CONFIG)
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)
    rewritten = _inodes(out) - before
    # Its own shard; a boundary entry that comes or goes also joins or splits a neighbour.
    expected = 2 if (where, op) == ("boundary", "insert") else 1
    assert 1 <= len(rewritten) <= expected
    assert len(_inodes(out) & before) >= len(shards) - 2  # the rest are the old files


@pytest.mark.slow  # two whole runs
def test_an_output_cut_every_shard_files_entries_is_re_cut_on_the_next_run(
    tmp_path: Path,
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    # The layout before path-hash cuts: a shard every 7 entries, and no shard_layout key.
    old = replace(CONFIG, shard_files=7, shard_min_files=7, shard_boundary_bits=0)
    indexer.run(source, out, old)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [len(s) for s in _shards(out)][:3] == [7, 7, 7]
    del manifest["shard_layout"]
    manifest["output_format"] = 2
    (out / "manifest.json").write_text(json.dumps(manifest))
    (source / "c" / "n05.txt").write_text("One change tonight.\n")
    indexer.run(source, out, CONFIG)
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)
    assert json.loads((out / "manifest.json").read_text())["shard_layout"] == SHARD_LAYOUT
    assert not list(out.glob("chunks-*.ndjson.*"))  # no stray shard of the old layout
    shutil.rmtree(fresh)


def _entries(rels: list[str]) -> list[Entry]:
    return [Entry(rel=r, path=r.encode(), size=0, version="", skip=None) for r in rels]


def _starts(rels: list[str], config: Config) -> list[str]:
    cut = Boundaries(config)
    return [r for r in rels if cut.starts(r)]


def test_an_inserted_entry_moves_no_boundary_after_the_next_one() -> None:
    rels = [f"box/{i:05d}.txt" for i in range(3000)]
    before = _starts(rels, CONFIG)
    new = [*rels[:10], "box/00009a.txt", *rels[10:]]
    after = _starts(new, CONFIG)
    assert len(before) > 100
    # Every boundary past the first shard is where it was.
    assert after[1:] == before[1:] or after[2:] == before[1:]
    assert after[-50:] == before[-50:]
