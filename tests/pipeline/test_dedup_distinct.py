"""A night over a tree without duplicates skips the duplicate pass, and only then."""

from __future__ import annotations

import builtins
import io
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from outputs import committed, write_notes

import indexer
from indexer.config import Config
from indexer.pipeline.output.dedup import decide

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)


def _copy_after(src: Path) -> None:
    shutil.copy(src / "a" / "n05.txt", src / "e" / "copy-of-a5.txt")


def _copy_before(src: Path) -> None:  # an unchanged later note becomes the duplicate
    shutil.copy(src / "f" / "n11.txt", src / "a" / "a-copy-of-f11.txt")


def _edited_into_a_copy(src: Path) -> None:
    shutil.copy(src / "b" / "n07.txt", src / "d" / "n03.txt")


def _same_text_as_html(src: Path) -> None:
    text = (src / "b" / "n04.txt").read_text().strip()
    (src / "c" / "page.html").write_text(f"<html><body><p>{text}</p></body></html>")


def _two_new_copies(src: Path) -> None:
    (src / "g").mkdir()
    for name in ("x.txt", "y.txt"):
        (src / "g" / name).write_text("The same new note twice.\n")


def _unrelated_edit(src: Path) -> None:
    (src / "c" / "n02.txt").write_text("An edit of its own.\n")


def _deleted(src: Path) -> None:
    (src / "d" / "n09.txt").unlink()


NIGHTS: dict[str, tuple[Callable[[Path], None], bool]] = {
    # name: (the night, whether the pass may be skipped)
    "a new copy after its original": (_copy_after, False),
    "a new copy before its original": (_copy_before, False),
    "an edit makes a copy": (_edited_into_a_copy, False),
    "the same text in another format": (_same_text_as_html, False),
    "two new files alike": (_two_new_copies, False),
    "an unrelated edit": (_unrelated_edit, True),
    "a deletion": (_deleted, True),
}


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the duplicate pass read the shards."""
    calls: list[int] = []
    real = decide._passed

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(decide, "_passed", counted)
    return calls


@pytest.mark.parametrize("mode", ["drop", "mark"])
@pytest.mark.parametrize("night", NIGHTS)
def test_a_night_commits_a_fresh_runs_bytes_and_skips_the_pass_only_when_nothing_repeats(
    tmp_path: Path, night: str, mode: str, passes: list[int]
) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    config = replace(CONFIG, exact=mode)
    write_notes(src)
    indexer.run(src, out, config)
    assert passes == [1]  # a first run decides
    change, skipped = NIGHTS[night]
    change(src)
    indexer.run(src, out, config)
    assert len(passes) == (1 if skipped else 2)
    indexer.run(src, fresh, config)
    assert committed(out) == committed(fresh)


def test_the_note_outlives_an_unchanged_night_and_a_repeat_ends_it(
    tmp_path: Path, passes: list[int]
) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    write_notes(src)
    indexer.run(src, out, CONFIG)
    indexer.run(src, out, CONFIG)  # an unchanged tree: the note is linked forward
    assert json.loads((out / "run.json").read_text())["unchanged"]
    assert (out / ".current" / ".dedup.json").is_file()
    _unrelated_edit(src)
    indexer.run(src, out, CONFIG)
    assert passes == [1]
    _copy_after(src)  # a repeat: decided, and noted as such
    indexer.run(src, out, CONFIG)
    _deleted(src)  # the keys are not distinct now: the pass runs
    indexer.run(src, out, CONFIG)
    assert passes == [1, 1, 1]
    indexer.run(src, fresh, CONFIG)
    assert committed(out) == committed(fresh)


def test_near_duplicates_are_never_skipped(tmp_path: Path, passes: list[int]) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    config = replace(CONFIG, near="mark")
    write_notes(src)
    indexer.run(src, out, config)
    _unrelated_edit(src)
    indexer.run(src, out, config)
    assert passes == [1, 1]


def test_a_skipped_night_reads_each_linked_document_shard_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mail pass's look for messages and the look for a repeated key read every
    document shard: one reading serves both (a shard written anew is read once more,
    for the keys of the documents changed)."""
    src, out = tmp_path / "src", tmp_path / "out"
    write_notes(src)
    indexer.run(src, out, CONFIG)
    _unrelated_edit(src)
    opened: list[str] = []
    real_apply, real_open = decide.apply, io.open

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(str(file)).name.startswith("documents-"):
            opened.append(Path(str(file)).name)
        return real_open(file, *args, **kwargs)

    def counted(*args: Any) -> Any:
        with monkeypatch.context() as patch:
            patch.setattr(builtins, "open", counting_open)
            patch.setattr(io, "open", counting_open)
            return real_apply(*args)

    monkeypatch.setattr(decide, "apply", counted)
    indexer.run(src, out, CONFIG)
    assert json.loads((out / "run.json").read_text())["changes"]["changed"] == 1
    names = {p.name for p in out.glob("documents-*.ndjson")}
    assert len(names) > 2 and set(opened) == names
    rewritten = [name for name in names if opened.count(name) > 1]
    assert len(rewritten) == 1 and opened.count(rewritten[0]) == 2
