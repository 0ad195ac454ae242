"""Shard reuse: a writer given the previous generation writes exactly what a fresh one
writes, whatever changed, and links the shards that did not change."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import anyio
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

from indexer.pipeline.output.previous import LAYOUT, PreviousShards
from indexer.pipeline.output.shards import ShardWriter
from indexer.pipeline.output.staging import MANIFEST

Doc = tuple[int, bytes]
"""A document: its walk position and its chunk block (one or more lines)."""


def _doc(seq: int, lines: list[str], name: str = "") -> Doc:
    """A document; its lines carry its `name`, as real chunk lines carry their path."""
    return seq, b"".join(orjson.dumps({"doc": name, "t": t}) + b"\n" for t in lines)


def _write(folder: Path, docs: list[Doc], limits: tuple[int, int], previous: Path | None) -> list:
    """Write `docs` with a ShardWriter into `folder` as a committed generation would be."""

    async def main() -> list:
        old = PreviousShards.open(previous) if previous is not None else None
        writer = ShardWriter(folder, shard_bytes=limits[0], previous=old, layout=True)
        for seq, block in docs:
            await writer.start_entry(seq % limits[1] == 0)  # a fixed rule: any rule will do
            digest = hashlib.sha256(block).hexdigest()[:32]
            await writer.write(block, block.count(b"\n"), digest)
            await writer.document(orjson.dumps({"digest": digest}) + b"\n")
        infos = await writer.close()
        documents = [i.to_dict() for i in writer.documents]
        manifest = {"documents": documents, "shards": [i.to_dict() for i in infos]}
        (folder / MANIFEST).write_bytes(orjson.dumps(manifest))
        return infos

    folder.mkdir()
    return anyio.run(main)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _inodes(folder: Path, glob: str = "chunks-*") -> dict[str, int]:
    """The inodes of the files matching `glob` that hold anything (an empty one is
    written afresh: there is nothing to link)."""
    return {p.name: p.stat().st_ino for p in folder.glob(glob) if p.stat().st_size}


texts = st.lists(st.text(alphabet="abc\u00e9", max_size=30), min_size=0, max_size=4)


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    old=st.lists(texts, max_size=25),
    edits=st.lists(
        st.tuples(st.sampled_from(["change", "delete", "insert"]), st.integers(0, 30), texts),
        max_size=4,
    ),
    shard_bytes=st.integers(20, 400),
    shard_files=st.integers(1, 12),
)
def test_a_reusing_writer_writes_what_a_fresh_one_writes(
    tmp_path_factory: pytest.TempPathFactory,
    old: list[list[str]],
    edits: list[tuple[str, int, list[str]]],
    shard_bytes: int,
    shard_files: int,
) -> None:
    root = tmp_path_factory.mktemp("shards")
    old_docs = [(f"d{i}", lines) for i, lines in enumerate(old)]
    new = list(old_docs)
    for k, (op, at, lines) in enumerate(edits):
        at = min(at, len(new))
        if op == "insert":
            new.insert(at, (f"n{k}", lines))
        elif new:
            at = min(at, len(new) - 1)
            if op == "delete":
                del new[at]
            else:
                new[at] = (new[at][0], lines)
    limits = (shard_bytes, shard_files)
    _write(root / "gen-1", [_doc(i, d, n) for i, (n, d) in enumerate(old_docs)], limits, None)
    docs = [_doc(i, d, n) for i, (n, d) in enumerate(new)]
    fresh = _write(root / "fresh", docs, limits, None)
    reused = _write(root / "gen-2", docs, limits, root / "gen-1")
    assert reused == fresh
    assert _files(root / "gen-2") == _files(root / "fresh")
    if new == old_docs:  # nothing changed: every shard is the old file itself
        assert _inodes(root / "gen-2") == _inodes(root / "gen-1")
        assert _inodes(root / "gen-2", "documents-*") == _inodes(root / "gen-1", "documents-*")


def test_unchanged_shards_are_linked_and_a_changed_one_is_rewritten(tmp_path: Path) -> None:
    docs = [_doc(i, [f"document {i}", "second line"]) for i in range(12)]
    limits = (10_000, 4)  # three shards of four documents
    first = _write(tmp_path / "gen-1", docs, limits, None)
    docs[5] = _doc(5, ["document 5, edited"])
    second = _write(tmp_path / "gen-2", docs, limits, tmp_path / "gen-1")
    old, new = _inodes(tmp_path / "gen-1"), _inodes(tmp_path / "gen-2")
    assert [new[n] == old[n] for n in sorted(new)] == [True, False, True]
    old, new = (_inodes(tmp_path / gen, "documents-*") for gen in ("gen-1", "gen-2"))
    assert [new[n] == old[n] for n in sorted(new)] == [True, False, True]
    assert second[0] == first[0] and second[2] == first[2]
    assert (
        second[1].sha256
        == hashlib.sha256((tmp_path / "gen-2" / second[1].name).read_bytes()).hexdigest()
    )


@pytest.mark.parametrize("damage", ["no_layout", "bad_layout", "truncated_shard"])
def test_a_damaged_previous_generation_is_not_reused(tmp_path: Path, damage: str) -> None:
    docs = [_doc(i, [f"document {i}"] * 3) for i in range(6)]
    limits = (10_000, 3)
    _write(tmp_path / "gen-1", docs, limits, None)
    shutil.copytree(tmp_path / "gen-1", tmp_path / "pristine")
    if damage == "no_layout":
        os.unlink(tmp_path / "gen-1" / LAYOUT)
    elif damage == "bad_layout":
        (tmp_path / "gen-1" / LAYOUT).write_bytes(b"{not json\n")
    else:
        with open(tmp_path / "gen-1" / "chunks-00000.ndjson", "r+b") as handle:
            handle.truncate(10)
    fresh = _write(tmp_path / "fresh", docs, limits, None)
    again = _write(tmp_path / "gen-2", docs, limits, tmp_path / "gen-1")
    assert again == fresh
    assert _files(tmp_path / "gen-2") == _files(tmp_path / "pristine")
    old, new = _inodes(tmp_path / "gen-1"), _inodes(tmp_path / "gen-2")
    if damage == "truncated_shard":  # only the damaged shard is rewritten
        assert [new[n] == old[n] for n in sorted(new)] == [False, True]
    else:
        assert not set(new.values()) & set(old.values())


def test_a_shards_fsync_runs_beside_the_next_shard_and_its_failure_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from indexer.pipeline.output import staging as output

    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(threading.current_thread().name)
        if len(synced) == 2:  # the second shard's
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(output.os, "fsync", fsync)
    docs = [_doc(i, [f"line {i}", "x" * 40]) for i in range(6)]
    with pytest.raises(OSError, match="Input/output error"):
        _write(tmp_path / "gen", docs, (100, 1000), None)
    # Each closed shard was synced in a thread of its own, not by the writer.
    assert synced[:2] == ["fsync", "fsync"]
