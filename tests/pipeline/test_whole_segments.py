"""A night takes unchanged segments whole: their shards linked, their counts from the
layout's summaries, and everything it commits and reports the slow path's."""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import orjson
import pytest
from outputs import committed, write_notes

import indexer
from indexer.config import Config
from indexer.pipeline.output.segments import plain, segment_digest
from indexer.pipeline.walk.entry import Entry

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)
LAYOUT = ".current/.layout.ndjson"


def _inodes(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in out.glob("*-*.ndjson")}


def _summaries(out: Path) -> int:
    """How many segments the committed layout summarises."""
    return sum(b'"seg":' in line for line in (out / LAYOUT).read_bytes().splitlines())


def _without_summaries(out: Path) -> None:
    """Drop the segments' summaries from OUT's layout: its next run takes the slow path."""
    path = (out / LAYOUT).resolve()
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    path.unlink()  # a hard link shared with other generations: write a file of its own
    path.write_bytes(b"".join(orjson.dumps({k: v for k, v in line.items() if k != "seg"}) + b"\n"
                              for line in lines))  # fmt: skip


def _same_stat_edit(path: Path, *, replace: bool) -> None:
    """Edit `path` keeping its size and mtime: in place (its stat the same), or as a new
    file renamed over it (another inode)."""
    st = path.stat()
    text = path.read_text().replace("Note", "Nota")  # same size
    target = path.with_suffix(".tmp") if replace else path
    target.write_text(text)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    if replace:
        target.replace(path)


def _night(source: Path) -> None:
    """A note added, one edited, one deleted, two edited and touched back to their stat."""
    (source / "b" / "n05-new.txt").write_text("A new note arrives.\n")
    (source / "d" / "n03.txt").write_text("This note was edited.\n")
    (source / "e" / "n07.txt").unlink()
    _same_stat_edit(source / "f" / "n11.txt", replace=False)
    _same_stat_edit(source / "c" / "n13.txt", replace=True)


def _report(out: Path) -> dict[str, object]:
    """run.json without its timings (the slowest documents by path alone)."""
    report = json.loads((out / "run.json").read_text())
    timed = ("seconds", "peak_rss_mb", "files_per_s", "mb_per_s", "pages_per_s", "slowest")
    slowest = sorted(entry["path"] for entry in report["slowest"])
    return {k: v for k, v in report.items() if k not in timed} | {"slowest": slowest}


@pytest.mark.parametrize("held", [50_000, 2])
def test_a_night_taking_segments_whole_commits_and_reports_what_the_slow_path_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: int
) -> None:
    # The previous records are read at the end, or early once `held` documents wait.
    monkeypatch.setattr("indexer.pipeline.output.changes._HELD", held)
    source, out, slow = tmp_path / "src", tmp_path / "out", tmp_path / "slow"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    assert _summaries(out) >= 6
    _night(source)
    shutil.copytree(out, slow, symlinks=True)
    _without_summaries(slow)
    before = _inodes(out)
    fast_summary = indexer.run(source, out, CONFIG)
    slow_summary = indexer.run(source, slow, CONFIG)
    assert committed(out) == committed(slow)
    assert (out / "changes.ndjson").read_bytes() == (slow / "changes.ndjson").read_bytes()
    timing = {"seconds": 0, "out": ""}
    assert asdict(fast_summary) | timing == asdict(slow_summary) | timing
    assert _report(out) == _report(slow)
    assert (out / LAYOUT).read_bytes() == (slow / LAYOUT).read_bytes()
    assert fast_summary.extracted == 3  # the new, the edited, the one with a new inode
    assert fast_summary.changes == {"added": 1, "changed": 2, "removed": 1}
    changed = (out / "changes.ndjson").read_text()
    assert "c/n13.txt" in changed and "f/n11.txt" not in changed  # the state's stat rule
    kept = [name for name, ino in _inodes(out).items() if before.get(name) == ino]
    assert len(kept) >= 2 * (_summaries(out) - 4)  # all but the changed segments' shards


@pytest.mark.parametrize("kind", ["chunks", "documents"])
def test_a_damaged_file_of_an_unchanged_segment_is_rebuilt_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    (source / "a" / "n00.txt").write_text("A change at the front.\n")
    victim = sorted(out.glob(f"{kind}-*.ndjson"))[-1]
    path = victim.resolve()
    data = path.read_bytes()
    damaged = data.replace(b"/n", b"/N", 1)  # in place, the same size
    assert damaged != data
    path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING):
        indexer.run(source, out, CONFIG)
    assert any(victim.name in r.getMessage() for r in caplog.records)
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)


def _entry(rel: str, **changes: object) -> Entry:
    fields: dict[str, object] = {
        "rel": rel, "path": rel.encode(), "size": 10, "version": "10:1:2:3",
        "skip": None,
    }  # fmt: skip
    return Entry(**(fields | changes))  # type: ignore[arg-type]


def test_only_plain_files_are_summarised_and_any_version_change_moves_a_digest() -> None:
    files = [_entry("a/x.txt"), _entry("a/y.eml"), _entry("a/inbox.txt"), _entry("a/post")]
    assert all(plain(e) for e in files)
    digest = segment_digest(files, b"salt")
    assert digest is not None
    assert segment_digest(files, b"other salt") != digest
    for changed in ({"version": "11:1:2:3"}, {"version": "10:2:2:3"}, {"mail": True}):
        assert segment_digest([*files[:3], _entry("a/post", **changed)], b"salt") != digest
    for odd in (
        _entry("a/box.mbox", holds="mbox"), _entry("a/MBOX", holds="mbox"),
        _entry("a/old.PST", holds="pst"), _entry("a/c.ost", holds="pst"),
        _entry("a/big.bin", skip="too_large"), _entry("a/box.mbox#1", data=b"From: x\n"),
    ):  # fmt: skip
        assert not plain(odd)
