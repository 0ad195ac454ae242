"""The unchanged-tree path on a small tree, in the fast lane: a re-run over a tree the
committed output was made of re-commits it and extracts nothing; any change takes the
full path. `test_incremental` covers the cases at length (in the full suite)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from outputs import committed

import indexer
from indexer.config import Config

CONFIG = Config(workers=1, pdf_workers=1)
PAST = 1_600_000_000  # mtimes well before the run: never "too recent to trust"


def _tree(root: Path) -> Path:
    files = {
        "a.txt": "a note\n\nwith two paragraphs\n",
        "b.csv": "x,y\n1,2\n3,4\n",
        "c/d.json": '{"k": [1, 2, 3]}',
        "c/e.html": "<html><body><h1>T</h1><p>text</p></body></html>",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (PAST, PAST))
    return root


def _unchanged(out: Path) -> bool:
    report = json.loads((out / "run.json").read_bytes())
    assert isinstance(report["unchanged"], bool)
    return report["unchanged"]


def test_a_re_run_over_an_unchanged_tree_re_commits_its_output_and_a_change_does_not(
    tmp_path: Path,
) -> None:
    source, out = _tree(tmp_path / "src"), tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    assert not _unchanged(out) and first.extracted == 4
    before = committed(out)
    again = indexer.run(source, out, CONFIG)
    assert _unchanged(out) and (again.extracted, again.documents) == (0, 4)
    assert committed(out) == before
    (source / "a.txt").write_text("a note, edited\n")
    os.utime(source / "a.txt", (PAST + 5, PAST + 5))
    edited = indexer.run(source, out, CONFIG)
    assert not _unchanged(out) and edited.extracted == 1
    assert committed(out) != before
