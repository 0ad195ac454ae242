"""Runs with packed chunks: byte-identical across worker counts, an incremental run
after a change of [chunking] (or of the packer) equal to a fresh run, the manifest's
output format."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed

import indexer
from indexer._corpusgen import write_corpus
from indexer._version import OUTPUT_FORMAT
from indexer.config import Config
from indexer.pipeline.incremental import keys
from indexer.registry import default_registry

BASE = Config(workers=1, pdf_workers=1, shard_files=9, chunk_overlap=60, chunk_prefix=True)
"""Overlap and the prefix on: the packing's every step shows in the bytes."""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("packed") / "src"
    write_corpus(root, 250_000, seed=19)
    return root


@pytest.mark.slow  # whole runs compared across worker counts
def test_packed_output_is_byte_identical_with_one_and_three_workers(
    source: Path, tmp_path: Path
) -> None:
    one = committed_run(source, tmp_path / "w1", BASE)
    three = committed_run(source, tmp_path / "w3", replace(BASE, workers=3, pdf_workers=3))
    assert one == three
    records = [
        json.loads(line)
        for name, data in one.items()
        if name.startswith("chunks-")
        for line in data.splitlines()
    ]
    assert max(r["meta"]["blocks"][1] - r["meta"]["blocks"][0] for r in records) > 2
    prefixed = [r for r in records if r["meta"]["context"]]
    assert prefixed and all(r["text"].startswith(f"{r['meta']['context']}\n\n") for r in prefixed)


@pytest.mark.slow  # three whole runs per change
@pytest.mark.parametrize(
    "change",
    [{"chunk_target": 600, "chunk_min": 200}, {"chunking": "blocks"}, {"chunk_overlap": 0}],
)
def test_a_rerun_after_a_chunking_change_equals_a_fresh_run(
    source: Path, tmp_path: Path, change: dict[str, object]
) -> None:
    out = tmp_path / "out"
    before = committed_run(source, out, BASE)
    changed = replace(BASE, **change)  # type: ignore[arg-type]
    after = committed_run(source, out, changed)
    assert after != before
    assert after == committed_run(source, tmp_path / "fresh", changed)


def committed_run(source: Path, out: Path, config: Config) -> dict[str, bytes]:
    indexer.run(source, out, config)
    return committed(out)


@pytest.mark.slow  # two whole runs
def test_the_manifest_names_output_format_6_for_packed_chunks_and_none_for_blocks(
    source: Path, tmp_path: Path
) -> None:
    packed = json.loads(committed_run(source, tmp_path / "packed", BASE)["manifest.json"])
    assert packed["output_format"] == OUTPUT_FORMAT == 6
    blocks = committed_run(source, tmp_path / "blocks", replace(BASE, chunking="blocks"))
    assert "output_format" not in json.loads(blocks["manifest.json"])


def test_a_new_packer_version_re_packs_what_earlier_runs_stored(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the stored blocks: nothing is extracted again (`test_rechunk.py`)."""
    out = tmp_path / "out"
    first = indexer.run(source, out, BASE)
    assert indexer.run(source, out, BASE).extracted == 0  # unchanged: nothing redone
    digest = keys.CacheKeys(BASE, default_registry()).digest()
    monkeypatch.setattr(keys, "PACKER_VERSION", "0")
    assert keys.CacheKeys(BASE, default_registry()).digest() != digest  # not "unchanged"
    again = indexer.run(source, out, BASE)
    assert (again.extracted, again.reused) == (0, first.extracted)
