"""The progress line's total comes from the run's own walk: a tree is never listed twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.config import Config
from indexer.pipeline.run.progress import Progress
from indexer.pipeline.run.runner import execute
from indexer.pipeline.walk.source import LocalFolder
from indexer.pipeline.walk.walker import Entry, WalkPolicy

pytestmark = pytest.mark.slow  # whole runs on real pools


def test_a_run_on_a_terminal_walks_its_tree_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(30):
        (src / f"note-{i:02d}.txt").write_text(f"note {i}\n")
    walks: list[int] = []
    original = LocalFolder.walk

    def counting(self: LocalFolder, policy: WalkPolicy) -> Iterator[Entry]:
        walks.append(1)
        return original(self, policy)

    monkeypatch.setattr(LocalFolder, "walk", counting)
    config = Config(workers=1, pdf_workers=1)
    first = execute(src, tmp_path / "out", config, registry=None, progress=True)
    assert first.files == 30 and len(walks) == 1
    (src / "note-00.txt").write_text("changed\n")  # a changed tree: the check walks, once
    again = execute(src, tmp_path / "out", config, registry=None, progress=True)
    assert again.files == 30 and len(walks) == 2


def test_the_total_is_the_previous_outputs_until_the_walk_ends() -> None:
    bar = Progress(estimate=1000)
    bar("walked", 256)
    assert "0/~1000 files" in bar.line(200)
    bar.total = 998  # the walk ended: its own count
    assert "0/998 files" in bar.line(200)
    grown = Progress(estimate=10)
    grown("walked", 256)  # the tree grew past the estimate
    assert "0/256+ files" in grown.line(200)
