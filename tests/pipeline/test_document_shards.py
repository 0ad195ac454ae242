"""Document records in shards beside the chunk shards: an unchanged shard's file is
linked, a changed one rewritten, and an OUT with one `documents.ndjson` is re-sharded."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from outputs import committed, document_lines, write_notes

import indexer
from indexer._version import SHARD_LAYOUT
from indexer.config import Config
from indexer.pipeline.incremental.state import STATE_DIR, STATE_FILE, State

CONFIG = Config(workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3)


def _inodes(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in out.glob("documents-*.ndjson")}


def _paths(path: Path) -> list[str]:
    return [json.loads(line)["path"] for line in path.read_bytes().splitlines()]


def test_each_chunk_shard_has_the_document_shard_of_its_entries(tmp_path: Path) -> None:
    write_notes(tmp_path / "src")
    out = tmp_path / "out"
    indexer.run(tmp_path / "src", out, CONFIG)
    chunks = sorted(out.glob("chunks-*.ndjson"))
    documents = sorted(out.glob("documents-*.ndjson"))
    assert len(chunks) > 3
    assert [p.name.replace("chunks", "documents") for p in chunks] == [p.name for p in documents]
    for chunk, doc in zip(chunks, documents, strict=True):
        assert sorted(set(_paths(chunk))) == sorted(_paths(doc))
    manifest = json.loads((out / "manifest.json").read_text())
    assert [d["name"] for d in manifest["documents"]] == [p.name for p in documents]
    assert len(document_lines(out)) == 120


def test_an_edit_rewrites_only_its_document_shard(tmp_path: Path) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    before = _inodes(out)
    (source / "c" / "n05.txt").write_text("One change tonight.\n")
    indexer.run(source, out, CONFIG)
    after = _inodes(out)
    rewritten = [name for name in after if after[name] != before.get(name)]
    assert len(rewritten) == 1
    assert "c/n05.txt" in _paths(out / rewritten[0])
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)


def _to_one_documents_file(out: Path) -> None:
    """Rewrite a committed OUT as the layout before document shards wrote it: one
    `documents.ndjson`, manifest `path-hash-1`, noted by the state as committed."""
    generation = (out / ".current").resolve()
    data = b"".join(p.read_bytes() for p in sorted(generation.glob("documents-*.ndjson")))
    for path in [*generation.glob("documents-*.ndjson"), *out.glob("documents-*.ndjson")]:
        path.unlink()
    (generation / "documents.ndjson").write_bytes(data)
    os.symlink(".current/documents.ndjson", out / "documents.ndjson")
    manifest = json.loads((generation / "manifest.json").read_bytes())
    manifest["documents"] = {
        "name": "documents.ndjson", "records": data.count(b"\n"), "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }  # fmt: skip
    manifest["shard_layout"], manifest["output_format"] = "path-hash-1", 3
    raw = json.dumps(manifest, indent=2).encode() + b"\n"
    (generation / "manifest.json").write_bytes(raw)
    state = State(out / STATE_DIR / STATE_FILE)
    try:
        tree = state.committed_tree
        assert tree is not None
        state.mark_committed(tree._replace(manifest=hashlib.sha256(raw).hexdigest()))
    finally:
        state.close()


@pytest.mark.parametrize("night", ["unchanged", "one_edit"])
def test_an_out_with_one_documents_file_is_re_sharded_by_the_next_run(
    tmp_path: Path, night: str
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    _to_one_documents_file(out)
    if night == "one_edit":
        (source / "c" / "n05.txt").write_text("One change tonight.\n")
    indexer.run(source, out, CONFIG)
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)
    assert not (out / "documents.ndjson").exists()
    assert not (out / ".current" / "documents.ndjson").exists()
    assert json.loads((out / "manifest.json").read_text())["shard_layout"] == SHARD_LAYOUT
    changes = [json.loads(x) for x in (out / "changes.ndjson").read_bytes().splitlines()]
    expected = [("changed", "c/n05.txt")] if night == "one_edit" else []
    assert [(c["change"], c["path"]) for c in changes] == expected
