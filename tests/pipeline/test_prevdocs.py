"""The previous commit's documents, as `changes.ndjson` compares with them (`prevdocs`)."""

from __future__ import annotations

import gc
import hashlib
import json
import tracemalloc
from pathlib import Path

from indexer.pipeline.output.changes import ChangeTracker, Deferred, Previous
from indexer.pipeline.output.prevdocs import PreviousDocs


def _committed(folder: Path, paths: list[str], per_file: int) -> list[bytes]:
    """Document files and a manifest listing them in `folder`, one line a path in order,
    `per_file` lines a file; return the lines."""
    lines = [json.dumps({"path": p, "doc_id": p[-8:]}, separators=(",", ":")).encode() + b"\n"
             for p in paths]  # fmt: skip
    entries = []
    for n, at in enumerate(range(0, len(lines), per_file)):
        data = b"".join(lines[at : at + per_file])
        name = f"documents-{n:05d}.ndjson"
        (folder / name).write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        entries.append({"name": name, "records": per_file, "bytes": len(data), "sha256": sha})
    (folder / "manifest.json").write_text(json.dumps({"documents": entries}))
    return lines


def test_the_previous_documents_are_not_held_in_python_memory(tmp_path: Path) -> None:
    # A dict of their paths held ~150 bytes a document (hundreds of MiB on a night of a
    # million files); the table holds them outside the Python heap, whatever their count.
    count = 50_000
    paths = [f"d{n // 1000:03d}/file-{n:07d}.txt" for n in range(count)]
    lines = _committed(tmp_path, paths, 10_000)
    del lines
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracker = ChangeTracker(Previous(out=tmp_path).load())
        loaded = tracemalloc.get_traced_memory()[0] - before
        tracker.see_all([(p, "", 0) for p in paths[: count // 2]])  # changed: fingerprint 0
        seen = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert loaded < 1_000_000, f"{loaded} bytes held for {count} previous documents"
    assert seen < 1_000_000, f"{seen} bytes held after comparing {count // 2} documents"
    assert tracker.counts == {"added": 0, "changed": count // 2, "removed": 0}
    removed = list(tracker.removed())
    assert len(removed) == count // 2
    assert json.loads(removed[0])["path"] == paths[count // 2]  # old order
    tracker.close()


def test_a_tracker_compares_in_batches_as_one_document_at_a_time(tmp_path: Path) -> None:
    previous = PreviousDocs()
    previous.add([("a", 1), ("b", 2), ("c", 3), ("d", 4)])
    previous.add([("e", 5), ("b", 7)])  # a path again: its first place, its last fingerprint
    tracker = ChangeTracker(previous)
    first = tracker.see_all([("b", "ib", 2), ("a", "ia", 1), ("x", "ix", 9)])
    tracker.unchanged(["e", "not-there"])
    second = tracker.see_all([("d", "id", 4), ("b", "ib", 7), ("x", "ix", 9)])
    assert [json.loads(line) for line in first] == [
        {"change": "changed", "path": "b", "doc_id": "ib"},
        {"change": "added", "path": "x", "doc_id": "ix"},
    ]
    assert [json.loads(line)["path"] for line in second] == ["b", "x"]  # seen twice: added
    assert [json.loads(line)["path"] for line in tracker.removed()] == ["c"]
    assert tracker.counts == {"added": 3, "changed": 1, "removed": 1}
    tracker.close()


def test_a_deferred_run_reads_the_previous_documents_but_the_skipped_files(
    tmp_path: Path,
) -> None:
    paths = [f"p{n:03d}" for n in range(30)]
    lines = _committed(tmp_path, paths, 10)
    deferred = Deferred(Previous(out=tmp_path))
    deferred.taken_whole(["documents-00001.ndjson"], paths[10:20])  # before the read
    for path, line in zip(paths[:10], lines[:10], strict=True):
        assert not deferred.hold(path, path[-8:], line)
    assert deferred.flush() == []  # unchanged, the previous documents read now
    deferred.taken_whole([], paths[20:25])  # after it: by path
    deferred.hold("new", "n", b"{}")
    assert [json.loads(line)["change"] for line in deferred.flush()] == ["added"]
    assert deferred.tracker is not None
    assert [json.loads(line)["path"] for line in deferred.tracker.removed()] == paths[25:]
    deferred.close()
