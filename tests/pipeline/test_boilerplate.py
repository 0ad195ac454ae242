"""Repeated paragraphs: indexed in the first N documents only, fresh equal to incremental."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed, document_records
from quoting import QMAIL

import indexer
from indexer.config import Config
from indexer.registry import default_registry

CONFIG = Config(
    workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3,
    boilerplate=2,
)  # fmt: skip
FOOTER = "This message is confidential and meant only for the people it is addressed to."


def _tree(root: Path) -> None:
    """Twelve notes with the same footer paragraph, and one that is only the footer."""
    for i in range(12):
        (root / f"n{i:02d}").mkdir(parents=True)
        (root / f"n{i:02d}" / "note.txt").write_text(
            f"Note {i} says its own thing, number {i}.\n\n{FOOTER}\n"
        )
    (root / "n05" / "footer.txt").write_text(FOOTER + "\n")


def _chunks(out: Path) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for shard in sorted(out.glob("chunks-*.ndjson")):
        for line in shard.read_bytes().splitlines():
            chunk = json.loads(line)
            found.setdefault(chunk["path"], []).append(chunk)
    return found


def _texts(out: Path) -> dict[str, str]:
    return {p: "\n\n".join(str(c["text"]) for c in cs) for p, cs in _chunks(out).items()}


def test_a_footer_is_indexed_in_the_first_two_documents_and_left_out_of_the_rest(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    summary = indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    texts = _texts(tmp_path / "out")
    assert [p for p, t in texts.items() if FOOTER in t] == ["n00/note.txt", "n01/note.txt"]
    assert texts["n07/note.txt"] == "Note 7 says its own thing, number 7."
    records = {r["path"]: r for r in document_records(tmp_path / "out")}
    assert records["n05/footer.txt"]["chunks"] == 0 and records["n05/footer.txt"]["status"] == "ok"
    assert "n05/footer.txt" not in texts
    assert summary.chunks == sum(len(c) for c in _chunks(tmp_path / "out").values()) == 12
    counts = json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]
    assert counts["boilerplate"] == 11  # ten notes and the footer alone


def test_a_short_repeated_line_stays_and_zero_keeps_every_paragraph(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for i in range(4):
        (src / f"n{i}").mkdir(parents=True)
        (src / f"n{i}" / "note.txt").write_text(f"Note {i}.\n\nThanks, Anna\n\n{FOOTER}\n")
    indexer.run(src, tmp_path / "out", replace(CONFIG, boilerplate=1))
    assert _texts(tmp_path / "out")["n3/note.txt"] == "Note 3.\n\nThanks, Anna"
    indexer.run(src, tmp_path / "all", replace(CONFIG, boilerplate=0))
    assert all(FOOTER in t for t in _texts(tmp_path / "all").values())


def _first_deleted(src: Path) -> None:
    (src / "n00" / "note.txt").unlink()


def _new_first(src: Path) -> None:
    (src / "a").mkdir()
    (src / "a" / "early.txt").write_text(f"An early note.\n\n{FOOTER}\n")


def _footer_edited_in_the_second(src: Path) -> None:
    (src / "n01" / "note.txt").write_text("Note 1 without the footer.\n")


NIGHTS: dict[str, Callable[[Path], None]] = {
    "the first deleted": _first_deleted,
    "a new first": _new_first,
    "the second edited": _footer_edited_in_the_second,
}


@pytest.mark.parametrize("night", NIGHTS)
def test_each_incremental_night_commits_a_fresh_runs_bytes(tmp_path: Path, night: str) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    _tree(src)
    indexer.run(src, out, CONFIG)
    NIGHTS[night](src)
    indexer.run(src, out, CONFIG)
    indexer.run(src, fresh, CONFIG)
    assert committed(out) == committed(fresh)
    assert sum(FOOTER in t for t in _texts(fresh).values()) == 2


def test_quoted_text_is_left_out_only_where_its_original_is_indexed(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    original = "The meeting moves to Thursday at ten in the large room upstairs."
    (src / "a-original.txt").write_text(original + "\n")
    (src / "b-reply.qmail").write_text(f"Fine by me.\n>>>\n{original}\n")
    (src / "c-reply.qmail").write_text("Who else comes?\n>>>\nA quote of a mail not here.\n")
    registry = default_registry().copy()
    registry.register(QMAIL)
    config = replace(CONFIG, boilerplate=5, chunking="blocks")
    indexer.run(src, tmp_path / "out", config, registry=registry)
    chunks = _chunks(tmp_path / "out")
    assert [c["text"] for c in chunks["b-reply.qmail"]] == ["Fine by me."]
    assert [c["chunk"] for c in chunks["b-reply.qmail"]] == [0]
    assert [c["text"] for c in chunks["c-reply.qmail"]] == [
        "Who else comes?",
        "A quote of a mail not here.",
    ]
    assert chunks["c-reply.qmail"][1]["meta"]["quoted"] is True
