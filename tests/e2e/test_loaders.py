"""The shards of a run over ../shared/corpus and ../shared/formats, loaded by DuckDB,
polars, pandas and Hugging Face `datasets` with their default options: every key of every
record found, every chunk joined to its document (docs/output.md)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from loaders import LOADERS, differences, load, parsed

import indexer
from indexer import schemas
from indexer.config import Config

pytestmark = pytest.mark.slow

FILES = {
    "documents": "documents-*.ndjson",
    "chunks": "chunks-*.ndjson",
    "changes": "changes.ndjson",
}
KEYS = {"documents": "path", "chunks": "id", "changes": "path"}


@pytest.fixture(scope="module", params=["corpus", "formats"])
def out(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    source: Path = request.getfixturevalue(request.param)
    # OCR off, as the other whole-corpus runs: tests/formats/ reads the scans
    config = Config(workers=2, pdf_workers=2, max_failures=10**6, ocr_mode="off")
    top = tmp_path_factory.mktemp(f"loaders-{request.param}")
    indexer.run(source, top / "out", config)
    return top / "out"


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_record_is_valid_under_its_schema(out: Path, name: str) -> None:
    validator = jsonschema.Draft202012Validator(schemas.load(name))
    bad = [r for r in parsed(out, FILES[name]) if not validator.is_valid(r)]
    assert bad == []


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_loader_finds_every_key_of_every_record(out: Path, loader: str, name: str) -> None:
    wanted = parsed(out, FILES[name])
    loaded = load(loader, out, FILES[name])
    assert len(loaded) == len(wanted)
    assert differences(loaded, wanted, KEYS[name]) == []


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_every_chunk_joins_its_document(out: Path, loader: str) -> None:
    documents = {d["doc_id"]: d for d in load(loader, out, FILES["documents"])}
    chunks = load(loader, out, FILES["chunks"])
    assert chunks and all(c["doc_id"] in documents for c in chunks)
    per_doc: dict[str, int] = {}
    for chunk in chunks:
        per_doc[chunk["doc_id"]] = per_doc.get(chunk["doc_id"], 0) + 1
    assert all(documents[did]["chunks"] == n for did, n in per_doc.items())
    assert all(c["path"] == documents[c["doc_id"]]["path"] for c in chunks)
