"""A night rewrites only the shards its changes touch, even where the duplicate pass
altered shards: a shard whose decided bytes are the previous commit's is linked."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed, write_notes

import indexer
from indexer.config import Config

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)


def _inodes(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in out.glob("*-*.ndjson")}


def _duplicates(out: Path) -> int:
    return int(json.loads((out / "manifest.json").read_text())["counts"]["duplicates"])


def _holding(out: Path, rel: str) -> set[str]:
    """The chunk and document shard holding `rel`'s record."""
    needle = f'{{"path":"{rel}"'.encode()
    found = [p for p in out.glob("documents-*.ndjson") if needle in p.read_bytes()]
    assert len(found) == 1
    return {found[0].name, found[0].name.replace("documents-", "chunks-", 1)}


@pytest.mark.parametrize("mode", ["drop", "mark"])
def test_a_night_of_one_edit_rewrites_only_its_shards_with_duplicates_elsewhere(
    tmp_path: Path, mode: str
) -> None:
    source, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    write_notes(source)
    shutil.copy(source / "a" / "n05.txt", source / "e" / "copy-of-a5.txt")
    shutil.copy(source / "c" / "n13.txt", source / "f" / "copy-of-c13.txt")
    config = replace(CONFIG, exact=mode)
    indexer.run(source, out, config)
    assert _duplicates(out) == 2
    (source / "b" / "n07.txt").write_text("This note was edited tonight.\n")
    before = _inodes(out)
    indexer.run(source, out, config)
    assert _duplicates(out) == 2
    written = {name for name, ino in _inodes(out).items() if before.get(name) != ino}
    assert written == _holding(out, "b/n07.txt")
    indexer.run(source, fresh, config)
    assert committed(out) == committed(fresh)
