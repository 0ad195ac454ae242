"""Exact duplicates: decided in walk order, the same for a fresh and an incremental run."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed, document_records, write_notes
from zips import zip_of

import indexer
from indexer.config import Config

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)
HTML = "<html><body><h1>Note b4.</h1><p>words\nwords  words words words words words</p></body>"


def _tree(root: Path) -> None:
    """The notes, a copy of one in a later folder, the same text as HTML, a mail twice."""
    write_notes(root)
    shutil.copy(root / "a" / "n05.txt", root / "e" / "copy-of-a5.txt")
    (root / "f" / "b4.html").write_text(HTML)
    assert (root / "b" / "n04.txt").read_text() == "Note b4. " + "words " * 7 + "\n"


def _records(out: Path) -> dict[str, dict[str, object]]:
    return {str(r["path"]): r for r in document_records(out)}


def _chunk_paths(out: Path) -> list[str]:
    return [
        json.loads(line)["path"]
        for shard in sorted(out.glob("chunks-*.ndjson"))
        for line in shard.read_bytes().splitlines()
    ]


def test_a_copy_and_the_same_text_in_another_format_name_the_first_and_write_no_chunks(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    summary = indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    records = _records(tmp_path / "out")
    copy, html = records["e/copy-of-a5.txt"], records["f/b4.html"]
    assert copy["duplicate_of"] == "a/n05.txt" and copy["chunks"] == 0
    assert html["duplicate_of"] == "b/n04.txt" and html["chunks"] == 0
    assert copy["status"] == html["status"] == "ok" and copy["reason"] == ""
    assert html["text_sha256"] == records["b/n04.txt"]["text_sha256"] != ""
    assert html["sha256"] != records["b/n04.txt"]["sha256"]
    assert records["a/n05.txt"]["duplicate_of"] == "" and records["a/n05.txt"]["chunks"] == 1
    assert sum(bool(r["duplicate_of"]) for r in records.values()) == 2
    paths = _chunk_paths(tmp_path / "out")
    assert "e/copy-of-a5.txt" not in paths and "f/b4.html" not in paths
    assert summary.chunks == len(paths) == len(records) - 2
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"]["duplicates"] == 2 and manifest["counts"]["chunks"] == len(paths)


def test_the_same_member_three_times_is_extracted_into_chunks_once(tmp_path: Path) -> None:
    report = b"Quarterly report. Revenue grew in the north.\n"
    members = {"a/report.txt": report, "b/report.txt": report, "notes.txt": b"Other words.\n"}
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "box.zip").write_bytes(zip_of(members))
    (tmp_path / "src" / "report.txt").write_bytes(report)
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    first = "box.zip#a/report.txt"
    records = _records(tmp_path / "out")
    assert records[first]["duplicate_of"] == "" and records[first]["chunks"] == 1
    for copy in ("box.zip#b/report.txt", "report.txt"):
        assert records[copy]["duplicate_of"] == first and records[copy]["chunks"] == 0
    assert records["box.zip"]["duplicate_of"] == records["box.zip#notes.txt"]["duplicate_of"] == ""
    assert _chunk_paths(tmp_path / "out") == [first, "box.zip#notes.txt"]


@pytest.mark.parametrize("mode", ["mark", "off"])
def test_mark_keeps_the_duplicates_chunks_and_off_decides_nothing(
    tmp_path: Path, mode: str
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", replace(CONFIG, exact=mode))
    records = _records(tmp_path / "out")
    assert records["e/copy-of-a5.txt"]["duplicate_of"] == ("a/n05.txt" if mode == "mark" else "")
    assert records["e/copy-of-a5.txt"]["chunks"] == 1
    assert _chunk_paths(tmp_path / "out").count("e/copy-of-a5.txt") == 1
    counts = json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]
    assert counts.get("duplicates", 0) == (2 if mode == "mark" else 0)


def _new_earlier_copy(src: Path) -> None:
    shutil.copy(src / "f" / "n11.txt", src / "a" / "a-copy-of-f11.txt")


def _original_deleted(src: Path) -> None:
    (src / "a" / "n05.txt").unlink()


def _original_edited(src: Path) -> None:
    (src / "a" / "n05.txt").write_text("Now a note of its own.\n")


def _original_renamed_after_its_copy(src: Path) -> None:
    (src / "g").mkdir()
    (src / "a" / "n05.txt").rename(src / "g" / "n05.txt")


def _html_first(src: Path) -> None:
    (src / "f" / "b4.html").rename(src / "a" / "b4.html")


def _unrelated_edit(src: Path) -> None:
    (src / "c" / "n02.txt").write_text("An edit elsewhere.\n")


NIGHTS: dict[str, Callable[[Path], None]] = {
    "a new earlier copy": _new_earlier_copy,
    "the original deleted": _original_deleted,
    "the original edited": _original_edited,
    "a rename puts the copy first": _original_renamed_after_its_copy,
    "a rename puts the other format first": _html_first,
    "an unrelated edit": _unrelated_edit,
}


@pytest.mark.parametrize("mode", ["drop", "mark"])
@pytest.mark.parametrize("night", NIGHTS)
def test_each_incremental_night_commits_a_fresh_runs_bytes(
    tmp_path: Path, night: str, mode: str
) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    config = replace(CONFIG, exact=mode)
    _tree(src)
    indexer.run(src, out, config)
    NIGHTS[night](src)
    summary = indexer.run(src, out, config)
    assert summary.extracted <= 2  # the rest reused: segments whole or stored outputs
    indexer.run(src, fresh, config)
    assert committed(out) == committed(fresh)
    # and the night after, with nothing changed, again
    indexer.run(src, out, replace(config, workers=2))
    assert committed(out) == committed(fresh)


def _changes(out: Path) -> dict[str, str]:
    lines = (out / "changes.ndjson").read_text().splitlines()
    return {json.loads(line)["path"]: json.loads(line)["change"] for line in lines}


def test_changes_name_the_documents_whose_decision_changed_and_no_others(
    tmp_path: Path,
) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    _tree(src)
    indexer.run(src, out, CONFIG)
    _unrelated_edit(src)
    indexer.run(src, out, CONFIG)
    assert _changes(out) == {"c/n02.txt": "changed"}  # the duplicates' records are as they were
    _original_deleted(src)
    indexer.run(src, out, CONFIG)
    assert _changes(out) == {"a/n05.txt": "removed", "e/copy-of-a5.txt": "changed"}
    _new_earlier_copy(src)
    indexer.run(src, out, CONFIG)
    assert _changes(out) == {"a/a-copy-of-f11.txt": "added", "f/n11.txt": "changed"}
    records = _records(out)
    assert records["f/n11.txt"]["duplicate_of"] == "a/a-copy-of-f11.txt"
    assert records["e/copy-of-a5.txt"]["duplicate_of"] == ""
    assert "e/copy-of-a5.txt" in _chunk_paths(out)


@pytest.mark.slow
def test_the_dask_engine_decides_duplicates_across_partitions_as_the_local_engine(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    _tree(src)
    _new_earlier_copy(src)  # its original in the last folder: another partition
    shape = {"shard_files": 8, "shard_min_files": 2, "shard_boundary_bits": 2}
    config = replace(CONFIG, workers=2, near="mark", boilerplate=1, partition_files=8, **shape)
    local = indexer.run(src, tmp_path / "local", config)
    dask = indexer.run(src, tmp_path / "dask", replace(config, engine="dask"))
    assert committed(tmp_path / "dask") == committed(tmp_path / "local")
    layout = ".current/.layout.ndjson"
    assert (tmp_path / "dask" / layout).read_bytes() == (tmp_path / "local" / layout).read_bytes()
    assert dask.shards == local.shards > 8
    records = _records(tmp_path / "dask")
    assert records["f/n11.txt"]["duplicate_of"] == "a/a-copy-of-f11.txt"


def test_the_text_hash_is_the_blocks_whatever_the_chunking(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    paragraphs = [f"Paragraph {i} " + "of the long report " * 40 for i in range(12)]
    (src / "long.txt").write_text("\n\n".join(paragraphs) + "\n")
    (src / "page.html").write_text("".join(f"<p>{p}</p>" for p in paragraphs))
    seen = {}
    for name, chunking in {
        "blocks": {"chunking": "blocks"},
        "packed": {},
        "overlapping": {"chunk_overlap": 200, "chunk_max": 900, "chunk_target": 600},
    }.items():
        indexer.run(src, tmp_path / name, replace(CONFIG, **chunking))
        records = _records(tmp_path / name)
        seen[name] = {p: (r["text_sha256"], r["duplicate_of"]) for p, r in records.items()}
    assert seen["blocks"] == seen["packed"] == seen["overlapping"]
    assert seen["blocks"]["page.html"] == (seen["blocks"]["long.txt"][0], "long.txt")
