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
from indexer.pipeline.run.vouched import NOTE, unvouched

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


def _to_hash(out: Path) -> list[str]:
    """The document and shard files an unchanged re-run of `out` would hash now."""
    folder = (out / ".current").resolve()
    raw = (folder / "manifest.json").read_bytes()
    listed = unvouched(out, folder, json.loads(raw), raw)
    return [f["name"] for f in (*listed["documents"], *listed["shards"])]


def test_a_commit_notes_its_files_so_that_only_one_written_since_is_hashed_again(
    tmp_path: Path,
) -> None:
    """The note vouches for every committed file, after a first run and after a re-run
    that linked them; a file written since (even one whose mtime was set back) or
    linked elsewhere moves its ctime and is hashed; a note of another manifest, or
    none, vouches for nothing."""
    source, out = _tree(tmp_path / "src"), tmp_path / "out"
    indexer.run(source, out, CONFIG)
    assert _to_hash(out) == []
    indexer.run(source, out, CONFIG)
    assert _unchanged(out) and _to_hash(out) == []
    folder = (out / ".current").resolve()
    shard = next(folder.glob("chunks-*.ndjson"))
    st = shard.stat()
    shard.write_bytes(shard.read_bytes())  # the same bytes, written again
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _to_hash(out) == [shard.name]
    note = out / ".state" / NOTE
    noted = json.loads(note.read_bytes())
    note.write_text(json.dumps({**noted, "manifest": "0" * 64}))
    assert len(_to_hash(out)) == len(list(folder.glob("*-*.ndjson")))
    note.unlink()
    assert len(_to_hash(out)) == len(list(folder.glob("*-*.ndjson")))


def test_a_shard_edited_in_place_with_its_size_and_mtime_kept_is_rebuilt(tmp_path: Path) -> None:
    """An edit that keeps a shard's size and mtime (set back) is not vouched for: the
    re-run hashes it, finds it damaged and writes it again."""
    source, out = _tree(tmp_path / "src"), tmp_path / "out"
    indexer.run(source, out, CONFIG)
    indexer.run(source, out, CONFIG)  # the note of a re-commit, after its links
    before = committed(out)
    shards = (out / ".current").resolve().glob("chunks-*.ndjson")
    shard = next(p for p in shards if b"paragraphs" in p.read_bytes())
    st = shard.stat()
    data = bytearray(shard.read_bytes())
    at = data.index(b"paragraphs")
    data[at : at + 10] = b"PARAGRAPHS"
    with open(shard, "r+b") as handle:  # in place: same inode, same size
        handle.write(data)
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (shard.stat().st_size, shard.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    indexer.run(source, out, CONFIG)
    assert not _unchanged(out)
    assert committed(out) == before
