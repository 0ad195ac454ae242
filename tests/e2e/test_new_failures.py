"""Cron is red only for news: the exit status counts failures new in this run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def _index(src: Path, out: Path) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "indexer", "run", str(src), "--out", str(out), "--json",
         "--workers", "1", "--pdf-workers", "1"],
        capture_output=True, check=False,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)


def test_known_failures_keep_the_exit_status_zero_new_ones_make_it_one(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "broken.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00damage " * 40)
    (src / "note.txt").write_text("Monday.\n")
    code, first = _index(src, out)
    assert code == 1 and (first["failed_new"], first["failed_known"]) == (1, 0)
    code, again = _index(src, out)  # unchanged
    assert code == 0 and (again["failed"], again["failed_new"], again["failed_known"]) == (1, 0, 1)
    (src / "note.txt").write_text("Tuesday.\n")
    code, changed = _index(src, out)
    assert code == 0 and (changed["failed_new"], changed["failed_known"]) == (0, 1)
    report = json.loads((out / "run.json").read_bytes())
    assert report["failed"] == {"new": 0, "known": 1}
    (src / "worse.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00ruin " * 40)
    code, news = _index(src, out)
    assert code == 1 and (news["failed_new"], news["failed_known"]) == (1, 1)


def test_a_failing_file_whose_content_changed_is_new_again(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "broken.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00damage " * 40)
    assert _index(src, out)[0] == 1
    (src / "broken.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00other damage " * 40)
    code, summary = _index(src, out)
    assert code == 1 and (summary["failed_new"], summary["failed_known"]) == (1, 0)


def test_the_summary_line_shows_new_and_known_failures_apart(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "broken.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00damage " * 40)
    args = [sys.executable, "-m", "indexer", "run", str(src), "--out", str(out), "--quiet"]
    first = subprocess.run([*args, "--max-failures", "1"], capture_output=True, check=False)
    assert first.returncode == 0  # one new failure, one allowed
    assert "; failed: 1 new, 0 known;" in first.stdout.decode()
    (src / "note.txt").write_text("News.\n")
    again = subprocess.run(args, capture_output=True, check=False)
    assert again.returncode == 0 and "; failed: 0 new, 1 known;" in again.stdout.decode()
