"""`indexer export`: parquet files and the `datasets` layout that DuckDB, polars, pandas,
pyarrow and `datasets` read with their defaults and lose nothing of; filters; and a
re-export after a night that rewrites only what changed."""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from loaders import parsed, same
from outputs import write_notes

import indexer
from indexer._corpusgen import write_corpus
from indexer.cli import main
from indexer.config import Config

CONFIG = Config(  # with the languages a corpus build names
    workers=1, pdf_workers=1, max_failures=100, language=True,
    shard_files=64, shard_min_files=4, shard_boundary_bits=3,
)  # fmt: skip
FR = "Le comité se réunira jeudi pour discuter du budget de l'année prochaine, puis du reste.\n"
Records = list[dict[str, Any]]


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several shards: 120 notes first (an empty-list-looking start for a loader), then
    every kind, a French note and a mail with an address."""
    top = tmp_path_factory.mktemp("export")
    source = top / "src"
    write_notes(source)
    write_corpus(source / "z", 60_000, seed=3)
    (source / "z" / "fr.txt").write_text(FR)
    indexer.run(source, top / "out", CONFIG)
    return top / "out"


def export(out: Path, *args: str) -> int:
    return main(["export", str(out), *args])


def _plain(value: Any) -> Any:
    """A loader's value as JSON's: numpy arrays and scalars as lists and Python values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple) or type(value).__name__ == "ndarray":
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    return value


def _duckdb(files: list[str]) -> Records:
    import duckdb

    relation = duckdb.read_parquet(files)
    names = relation.columns
    return [dict(zip(names, row, strict=True)) for row in relation.fetchall()]


def _polars(files: list[str]) -> Records:
    import polars

    return polars.read_parquet(files).to_dicts()


def _pandas(files: list[str]) -> Records:
    import pandas

    frame = pandas.concat([pandas.read_parquet(f) for f in files], ignore_index=True)
    return [_plain(r) for r in frame.to_dict("records")]


def _pyarrow(files: list[str]) -> Records:
    import pyarrow.parquet as pq

    return [r for f in files for r in pq.read_table(f).to_pylist()]


def _datasets(files: list[str]) -> Records:
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    import datasets

    datasets.disable_progress_bars()
    cache = Path(files[0]).parent.parent / ".hf-cache"
    return list(
        datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=str(cache))
    )


LOADERS: dict[str, Callable[[list[str]], Records]] = {
    "duckdb": _duckdb, "polars": _polars, "pandas": _pandas, "pyarrow": _pyarrow,
    "datasets": _datasets,
}  # fmt: skip


@pytest.fixture(scope="module")
def parquet(out: Path) -> Path:
    dest = out.parent / "parquet"
    assert export(out, "--to", "parquet", str(dest)) == 0
    return dest


@pytest.mark.parametrize(
    "loader",
    [pytest.param(n, marks=[pytest.mark.slow] if n == "datasets" else []) for n in LOADERS],
)
@pytest.mark.parametrize("name", ["documents", "chunks"])
def test_every_loader_reads_every_record_as_the_ndjson_has_it(
    out: Path, parquet: Path, loader: str, name: str
) -> None:
    files = sorted(str(p) for p in parquet.glob(f"{name}-*.parquet"))
    assert len(files) == len(list(out.glob(f"{name}-*.ndjson"))) > 1
    loaded = sorted(LOADERS[loader](files), key=lambda r: (r["path"], r.get("chunk", 0)))
    wanted = sorted(parsed(out, f"{name}-*.ndjson"), key=lambda r: (r["path"], r.get("chunk", 0)))
    assert len(loaded) == len(wanted)
    lost = [w["path"] for g, w in zip(loaded, wanted, strict=True) if not same(_plain(g), w)]
    assert lost == []


@pytest.mark.slow
def test_the_datasets_layout_loads_by_its_card_with_both_configurations(out: Path) -> None:
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    import datasets

    dest = out.parent / "hf"
    assert export(out, "--to", "hf", str(dest)) == 0
    cache = str(out.parent / ".hf-cache-card")
    chunks = datasets.load_dataset(str(dest), split="train", cache_dir=cache)
    docs = datasets.load_dataset(str(dest), "documents", split="train", cache_dir=cache)
    assert len(chunks) == len(parsed(out, "chunks-*.ndjson"))
    assert len(docs) == len(parsed(out, "documents-*.ndjson"))
    card = (dest / "README.md").read_text()
    assert f"- documents: {len(docs):,}" in card and "| fr | 1 |" in card


def test_filters_keep_the_documents_asked_for_and_only_their_chunks(out: Path) -> None:
    import pyarrow.parquet as pq

    dest = out.parent / "french"
    assert export(out, "--to", "parquet", str(dest), "--language", "fr", "--min-words", "5") == 0
    docs = [
        r for f in sorted(dest.glob("documents-*.parquet")) for r in pq.read_table(f).to_pylist()
    ]
    chunks = [
        r for f in sorted(dest.glob("chunks-*.parquet")) for r in pq.read_table(f).to_pylist()
    ]
    assert [d["path"] for d in docs] == ["z/fr.txt"]
    assert {c["doc_id"] for c in chunks} == {docs[0]["doc_id"]} and len(chunks) == docs[0]["chunks"]


def test_a_re_export_after_a_night_rewrites_only_the_changed_shards(tmp_path: Path) -> None:
    source, out, dest = tmp_path / "src", tmp_path / "out", tmp_path / "dest"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    assert export(out, "--to", "parquet", str(dest)) == 0
    before = {p.name: p.read_bytes() for p in dest.glob("*.parquet")}
    assert len(before) > 4
    (source / "c" / "n05.txt").write_text("Note c5, rewritten tonight.\n")
    indexer.run(source, out, CONFIG)
    assert export(out, "--to", "parquet", str(dest)) == 0
    after = {p.name: p.read_bytes() for p in dest.glob("*.parquet")}
    changed = sorted(n for n in after if after[n] != before.get(n))
    assert changed and len(changed) <= 2, changed  # the note's documents and chunks files
    fresh = tmp_path / "fresh"
    assert export(out, "--to", "parquet", str(fresh)) == 0
    assert after == {p.name: p.read_bytes() for p in fresh.glob("*.parquet")}


def test_an_out_without_a_committed_output_exits_2(tmp_path: Path) -> None:
    assert export(tmp_path / "nothing", "--to", "parquet", str(tmp_path / "d")) == 2
    assert not (tmp_path / "nothing").exists()


def test_an_output_of_an_older_format_exits_2(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "manifest.json").write_text('{"output_format": 5, "documents": []}')
    assert export(tmp_path / "old", "--to", "parquet", str(tmp_path / "d")) == 2


def test_a_record_with_a_key_the_schema_lacks_stops_the_export_and_drops_nothing(
    out: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "out"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns(".state", ".lock"))
    first = sorted(copy.glob("documents-*.ndjson"))[0]
    lines = first.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["metadata"]["language"]["script"] = "Latn"  # a key of some other version
    first.write_bytes(json.dumps(record).encode() + b"\n" + b"".join(lines[1:]))
    dest = tmp_path / "dest"
    assert export(copy, "--to", "parquet", str(dest)) == 2
    assert not list(dest.glob("documents-*.parquet")) and not (dest / "export.json").exists()


def _words(seed: int, count: int = 120) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(["grain", "barley", "harvest", "field", "rain", "mill", "cart",
                        "farmer", "autumn", "wheat", "silo", "price"]) + str(rng.randrange(40))
            for _ in range(count)]  # fmt: skip


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An original, its exact copy, its near copy (5 of 120 words replaced) and a
    distinct note, with both kinds of duplicate marked (their chunks kept)."""
    top = tmp_path_factory.mktemp("copies")
    source, base = top / "src", _words(1)
    near = [*base[:40], "new1", "new2", "new3", "new4", "new5", *base[45:]]
    for path, words in {"a/original.txt": base, "b/copy.txt": base, "c/near.txt": near,
                        "d/other.txt": _words(2)}.items():  # fmt: skip
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(" ".join(words) + "\n")
    indexer.run(source, top / "out", replace(CONFIG, exact="mark", near="mark"))
    return top / "out"


@pytest.mark.parametrize(
    ("duplicates", "kept"),
    [
        ("keep", ["a/original.txt", "b/copy.txt", "c/near.txt", "d/other.txt"]),
        ("originals", ["a/original.txt", "c/near.txt", "d/other.txt"]),
        ("representatives", ["a/original.txt", "d/other.txt"]),
    ],
)
@pytest.mark.parametrize("loader", ["duckdb", "polars", "pyarrow"])
def test_the_duplicates_filter_drops_copies_then_near_copies_and_their_chunks(
    copies: Path, tmp_path: Path, duplicates: str, kept: list[str], loader: str
) -> None:
    records = {r["path"]: r for r in parsed(copies, "documents-*.ndjson")}
    assert records["b/copy.txt"]["duplicate_of"] == "a/original.txt"
    assert records["c/near.txt"]["metadata"]["near_duplicate"]["representative"] is False
    dest = tmp_path / duplicates
    assert export(copies, "--to", "parquet", str(dest), "--duplicates", duplicates) == 0
    docs = LOADERS[loader](sorted(str(p) for p in dest.glob("documents-*.parquet")))
    chunks = LOADERS[loader](sorted(str(p) for p in dest.glob("chunks-*.parquet")))
    assert sorted(d["path"] for d in docs) == kept
    assert sorted({c["path"] for c in chunks}) == kept
    assert len(chunks) == sum(records[p]["chunks"] for p in kept)
    assert json.loads((dest / "export.json").read_text())["filters"]["duplicates"] == duplicates


def test_an_unknown_duplicates_filter_exits_2(copies: Path, tmp_path: Path) -> None:
    assert export(copies, "--to", "parquet", str(tmp_path / "d"), "--duplicates", "some") == 2
    assert not (tmp_path / "d").exists()
