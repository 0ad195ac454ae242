"""A text format's failure from the general workers' limits is kept only under those limits."""

from __future__ import annotations

import json
from pathlib import Path

import hostile
from outputs import document_lines

import indexer
from indexer.config import Config
from indexer.registry import default_registry

SMALL = Config(workers=1, pdf_workers=1, max_failures=10, max_file_bytes=1 << 20)
"""General workers capped at 2,048 MB of address space (`max_memory_mb`'s default)."""


def _statuses(out: Path) -> dict[str, tuple[str, str]]:
    lines = document_lines(out)
    return {d["path"]: (d["status"], d["reason"]) for d in map(json.loads, lines)}


def test_out_of_memory_kept_under_one_cap_is_tried_again_under_a_raised_cap(
    tmp_path: Path,
) -> None:
    registry = default_registry().copy()
    registry.register(hostile.NEEDY)
    source = tmp_path / "src"
    source.mkdir()
    (source / "big.needy").write_bytes(b"3000")  # megabytes: over 2,048, under 6,000
    (source / "note.txt").write_bytes(b"A note.")
    out = tmp_path / "out"
    for _ in range(2):  # tried again once, then the same failure is kept (`store.RETRY`)
        indexer.run(source, out, SMALL, registry=registry)
        assert _statuses(out)["big.needy"] == ("failed", "out_of_memory")
    kept = indexer.run(source, out, SMALL, registry=registry)
    assert kept.extracted == 0, "the same failure under the same cap is reused"
    raised = Config(workers=1, pdf_workers=1, max_failures=10, max_file_bytes=1 << 20,
                    max_memory_mb=6000)  # fmt: skip
    again = indexer.run(source, out, raised, registry=registry)
    assert again.extracted == 1, "only the failure is extracted again"
    assert _statuses(out) == {"big.needy": ("ok", ""), "note.txt": ("ok", "")}
    chunks = (out / "chunks-00000.ndjson").read_text()
    assert "needed 3000 MB" in chunks
