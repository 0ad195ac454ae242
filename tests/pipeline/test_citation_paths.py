"""A `#` in a name never reads as a container's separator: paths and ids cannot collide."""

from __future__ import annotations

import json
from pathlib import Path

from outputs import documents
from zips import zip_of

import indexer
from indexer.config import Config
from indexer.pipeline.walk.entry import rel_bytes
from indexer.pipeline.walk.walker import WalkPolicy, walk

CONFIG = Config(workers=2, max_failures=100)


def _records(source: Path, out: Path) -> tuple[dict[str, dict[str, object]], list[dict[str, str]]]:
    indexer.run(source, out, CONFIG)
    chunks = [
        json.loads(line)
        for path in sorted(out.glob("chunks-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]
    return documents(out), chunks


def _unique(docs: dict[str, dict[str, object]], chunks: list[dict[str, str]]) -> None:
    """Every record has a path, a doc_id and chunk ids of its own."""
    ids = [d["doc_id"] for d in docs.values()]
    assert len(set(ids)) == len(ids)
    assert len({c["id"] for c in chunks}) == len(chunks)


def test_a_member_named_with_a_hash_is_not_a_nested_archives_member(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    inner = zip_of({"b.txt": b"Real content."})
    (source / "a.zip").write_bytes(
        zip_of({"inner.zip": inner, "inner.zip#b.txt": b"Shadowing content."})
    )
    docs, chunks = _records(source, tmp_path / "out")
    texts = {c["path"]: c["text"] for c in chunks}
    assert texts["a.zip#inner.zip#b.txt"] == "Real content."
    assert texts["a.zip#inner.zip\\x23b.txt"] == "Shadowing content."
    assert set(docs) == {
        "a.zip", "a.zip#inner.zip", "a.zip#inner.zip#b.txt", "a.zip#inner.zip\\x23b.txt",
    }  # fmt: skip
    _unique(docs, chunks)


def test_a_file_named_with_a_hash_is_not_an_archives_member(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "s.zip").write_bytes(zip_of({"m.txt": b"Member content."}))
    (source / "s.zip#m.txt").write_bytes(b"File content.")
    docs, chunks = _records(source, tmp_path / "out")
    texts = {c["path"]: c["text"] for c in chunks}
    assert texts["s.zip#m.txt"] == "Member content."
    assert texts["s.zip\\x23m.txt"] == "File content."
    assert len(docs) == 3
    _unique(docs, chunks)
    found = {e.rel: e for e in walk(source, WalkPolicy())}
    assert rel_bytes("s.zip\\x23m.txt") == b"s.zip#m.txt"
    assert Path(found["s.zip\\x23m.txt"].path.decode()).read_bytes() == b"File content."
