"""The walk skips the sniff of a file whose stat the state noted, and only that."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from outputs import committed, documents

import indexer
from indexer.config import Config
from indexer.pipeline.walk.entry import stat_version
from indexer.pipeline.walk.walker import WalkPolicy, walk

CONFIG = Config(workers=1, pdf_workers=1)
BINARY = b"text, then\x00a NUL\n"


def _stat(path: Path) -> str:
    return stat_version(path.stat())


def _tree(root: Path) -> dict[str, Path]:
    paths = {rel: root / rel for rel in ("a/noted.txt", "a/other.txt", "a/moved.txt", "b/x.txt")}
    for path in paths.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(BINARY)
    return paths


def test_a_file_with_the_noted_stat_is_not_sniffed_and_one_folder_is_one_lookup(
    tmp_path: Path,
) -> None:
    paths = _tree(tmp_path)
    noted = {"a/noted.txt": _stat(paths["a/noted.txt"]), "b/x.txt": _stat(paths["b/x.txt"])}
    st = paths["a/moved.txt"].stat()
    noted["a/moved.txt"] = f"{st.st_size}:{st.st_mtime_ns + 1}:{st.st_ino}:{st.st_dev}"  # touched
    asked: list[list[str]] = []

    def lookup(rels: Sequence[str]) -> Mapping[str, str]:
        asked.append(list(rels))
        return {rel: noted[rel] for rel in rels if rel in noted}

    entries = {e.rel: e.skip for e in walk(tmp_path, WalkPolicy(noted=lookup))}
    assert entries == {
        "a/moved.txt": "binary", "a/noted.txt": None, "a/other.txt": "binary", "b/x.txt": None,
    }  # fmt: skip
    assert asked == [["a/moved.txt", "a/noted.txt", "a/other.txt"], ["b/x.txt"]]


def test_a_folder_s_files_are_looked_up_once_whatever_subfolders_come_between(
    tmp_path: Path,
) -> None:
    for rel in ("a/1.txt", "a/b/2.txt", "a/b/c/3.txt", "a/c.txt", "d.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(BINARY)
    asked: list[list[str]] = []

    def lookup(rels: Sequence[str]) -> Mapping[str, str]:
        asked.append(list(rels))
        return {}

    assert len(list(walk(tmp_path, WalkPolicy(noted=lookup)))) == 5
    assert sorted(asked) == [["a/1.txt", "a/c.txt"], ["a/b/2.txt"], ["a/b/c/3.txt"], ["d.txt"]]


def test_a_lookup_that_fails_leaves_every_file_sniffed(tmp_path: Path) -> None:
    _tree(tmp_path)

    def lookup(rels: Sequence[str]) -> Mapping[str, str]:
        raise OSError("the state went away")

    skips = {e.skip for e in walk(tmp_path, WalkPolicy(noted=lookup))}
    assert skips == {"binary"}


def test_a_noted_file_rewritten_as_binary_is_sniffed_again_and_skipped(tmp_path: Path) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    for i in range(5):
        (source / "notes").mkdir(parents=True, exist_ok=True)
        (source / "notes" / f"n{i}.txt").write_text(f"Note {i}.\n")
    indexer.run(source, out, CONFIG)
    victim = source / "notes" / "n2.txt"
    victim.write_bytes(BINARY)
    os.utime(victim, ns=(victim.stat().st_atime_ns, victim.stat().st_mtime_ns + 10**9))
    indexer.run(source, out, CONFIG)
    docs = documents(out)
    assert (docs["notes/n2.txt"]["status"], docs["notes/n1.txt"]["status"]) == ("skipped", "ok")
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)
