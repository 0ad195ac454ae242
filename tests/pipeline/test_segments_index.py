"""The index of the previous generation's summarised segments (`PreviousSegments`)."""

from __future__ import annotations

import gc
import hashlib
import json
import tracemalloc
from pathlib import Path

from indexer.pipeline.output.segments import PreviousSegments

_SEGMENTS = 200
_PATHS = 500


def _generation(folder: Path) -> str:
    """A generation of `_SEGMENTS` one-shard segments, each summary listing `_PATHS`
    paths, the first segment's files real; return its manifest's sha256."""
    shards, documents, layout = [], [], []
    for n in range(_SEGMENTS):
        chunk, doc = f"chunks-{n:05d}.ndjson", f"documents-{n:05d}.ndjson"
        data = f'{{"id":"{n}"}}\n'.encode()
        for name, listed in ((chunk, shards), (doc, documents)):
            if n == 0:
                (folder / name).write_bytes(data)
            sha = hashlib.sha256(data).hexdigest()
            listed.append({"name": name, "records": 1, "bytes": len(data), "sha256": sha})
        paths = [f"folder-{n:04d}/a-rather-long-file-name-{k:05d}.txt" for k in range(_PATHS)]
        seg = {"digest": f"d{n}", "shards": 1, "paths": paths}
        layout.append(json.dumps({"name": chunk, "docs": [[f"t{n}", len(data)]], "seg": seg}))
    (folder / ".layout.ndjson").write_text("".join(line + "\n" for line in layout))
    raw = json.dumps({"shards": shards, "documents": documents}).encode()
    (folder / "manifest.json").write_bytes(raw)
    return hashlib.sha256(raw).hexdigest()


def test_the_segments_index_holds_offsets_not_the_layout(tmp_path: Path) -> None:
    # The layout of a million files is 70 MB, most of it the summaries' paths: the
    # index held every summarised segment's lines until it was taken, the parent's peak
    # growing with the tree. It holds where they are and reads them when one is taken.
    manifest = _generation(tmp_path)
    size = (tmp_path / ".layout.ndjson").stat().st_size
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        segments = PreviousSegments(tmp_path, manifest)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < size / 20, f"{held} bytes held for a layout of {size}"
    whole = segments.whole("d0", 3)
    assert whole is not None
    assert [old.path.name for old, _, _ in whole.shards] == ["chunks-00000.ndjson"]
    assert whole.seg["digest"] == "d0" and len(whole.seg["paths"]) == _PATHS
    assert whole.entries == 3
    assert segments.whole("d0", 3) is None  # taken once
    assert segments.whole("d1", 3) is None  # its files are not there
