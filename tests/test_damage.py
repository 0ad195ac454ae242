"""Damage to a committed output or to the state: a warning and a rebuild of what it
touched, never wrong output, never a run that fails for good."""

from __future__ import annotations

import json
import time
from pathlib import Path

import orjson
import pytest

import indexer
from indexer._corpusgen import write_corpus
from indexer.config import Config

CONFIG = Config(workers=2, pdf_workers=2, shard_files=7)


def committed(out: Path) -> dict[str, bytes]:
    """What must equal a fresh run's output: every visible file but run.json and changes."""
    skip = {"run.json", "changes.ndjson"}
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name not in skip and not p.name.startswith(".")
    }


def fresh(source: Path, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / f"fresh-{time.monotonic_ns()}"
    indexer.run(source, out, CONFIG)
    return committed(out)


def unchanged(out: Path) -> bool:
    return bool(json.loads((out / "run.json").read_bytes())["unchanged"])


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    found = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    caplog.clear()
    return found


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    write_corpus(root, 150_000, seed=3)
    return root


def shard_paths(out: Path, shard: int) -> list[str]:
    """The documents of a committed shard, in order."""
    lines = (out / f"chunks-{shard:05d}.ndjson").read_bytes().splitlines()
    return list(dict.fromkeys(orjson.loads(line)["path"] for line in lines))


def flip_a_letter(path: Path, field: bytes) -> None:
    """Change the case of the first letter of the first `field` string, in place: the
    file stays valid NDJSON of the same size, only its bytes differ."""
    data = path.read_bytes()
    at = data.index(b'"%s":"' % field) + len(field) + 4
    while not chr(data[at]).isalpha() or data[at - 1] == ord("\\"):
        at += 1
    with open(path, "r+b") as handle:
        handle.seek(at)
        handle.write(bytes([data[at] ^ 0x20]))


@pytest.mark.parametrize("night", ["unchanged", "prefix_copied", "linked", "documents"])
def test_a_damaged_committed_file_is_rebuilt_with_a_warning_naming_it(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, night: str
) -> None:
    """An unchanged night hard-links every file forward; a night where a later file of
    the shard changed copies the shard's prefix; one where only another shard changed
    links it. Each checks the file against its manifest first."""
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    if night == "documents":
        damaged = out / "documents.ndjson"
        flip_a_letter(damaged.resolve(), b"extractor")
    else:
        damaged = out / "chunks-00000.ndjson"
        flip_a_letter(damaged.resolve(), b"text")
    if night in ("prefix_copied", "linked"):
        shard = 0 if night == "prefix_copied" else 1
        edited = source / shard_paths(out, shard)[-1]
        edited.write_bytes(edited.read_bytes() + b"\n")
    warnings(caplog)
    indexer.run(source, out, CONFIG)
    [warning] = warnings(caplog)
    assert damaged.name in warning and "manifest" in warning
    assert committed(out) == fresh(source, tmp_path)
    assert not unchanged(out)
    warnings(caplog)
    indexer.run(source, out, CONFIG)  # and the night after is a plain unchanged one
    assert unchanged(out) and not warnings(caplog)
    assert committed(out) == fresh(source, tmp_path)


def test_a_truncated_shard_is_rebuilt_with_a_warning(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    shard = (out / "chunks-00001.ndjson").resolve()
    with open(shard, "r+b") as handle:
        handle.truncate(100)
    warnings(caplog)
    indexer.run(source, out, CONFIG)
    [warning] = warnings(caplog)
    assert "chunks-00001.ndjson" in warning
    assert committed(out) == fresh(source, tmp_path)
