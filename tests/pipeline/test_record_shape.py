"""Every record of an output file has the same keys in the same order, with the same
types, none null: what the shipped JSON Schemas say, and what loaders that infer a schema
from the first rows (polars, DuckDB) need to keep every key of every record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from loaders import LOADERS, differences, load, parsed
from outputs import write_notes

import indexer
from indexer import schemas
from indexer._corpusgen import write_corpus
from indexer.config import Config
from indexer.pipeline.output import shape

FILES = {
    "documents": "documents-*.ndjson",
    "chunks": "chunks-*.ndjson",
    "changes": "changes.ndjson",
}
KEYS = {"documents": "path", "chunks": "id", "changes": "path"}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run where 120 plain notes come first (more than the 100 rows polars infers
    from) and every other kind, a skipped file and a mail with attachments, after them."""
    top = tmp_path_factory.mktemp("shape")
    source = top / "src"
    write_notes(source)
    write_corpus(source / "z", 90_000, seed=5)
    (source / "z" / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (source / "z" / "q3.eml").write_bytes(_mail_with_attachments())
    indexer.run(source, top / "out", Config(workers=1, pdf_workers=1, max_failures=100))
    return top / "out"


def _mail_with_attachments() -> bytes:
    return (
        b"From: Ann <ann@example.com>\r\nTo: team@example.com\r\nSubject: Q3 numbers\r\n"
        b"Message-ID: <q3@example.com>\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'
        b"--b\r\nContent-Type: text/plain\r\n\r\nThe numbers are attached.\r\n"
        b"--b\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename=q3.csv\r\n\r\n"
        b"region,revenue\r\nnorth,12\r\nsouth,9\r\n"
        b"--b\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Disposition: attachment; filename=blob.bin\r\n\r\n\x00\x01\x02\x03\r\n--b--\r\n"
    )


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_line_is_valid_under_its_shipped_schema(out: Path, name: str) -> None:
    validator = jsonschema.Draft202012Validator(schemas.load(name))
    records = parsed(out, FILES[name])
    assert records
    for record in records:
        validator.validate(record)


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_line_has_the_same_keys_in_the_same_order_and_no_null(out: Path, name: str) -> None:
    shapes = {_shape(record) for record in parsed(out, FILES[name])}
    assert len(shapes) == 1


def _shape(value: Any) -> Any:
    """The key paths and types of a record (a list's length counts: ranges are pairs)."""
    assert value is not None, "no value is null"
    if isinstance(value, dict):
        return tuple((k, _shape(v)) for k, v in value.items())
    if isinstance(value, list):
        assert value, "no list is empty"
        return ("list", len(value), _shape(value[0]))
    return type(value).__name__


def test_the_late_keys_are_there_to_be_lost(out: Path) -> None:
    documents = parsed(out, FILES["documents"])
    chunks = parsed(out, FILES["chunks"])
    first = documents[:100]
    assert all(d["reason"] == "" and d["metadata"]["pages"] == -1 for d in first)
    assert any(d["reason"] for d in documents[100:])
    assert any(d["metadata"]["pages"] > 0 for d in documents[100:])
    assert all(c["meta"]["page"] == -1 for c in chunks[:100])
    assert any(c["meta"]["page"] > 0 for c in chunks[100:])
    assert any(c["meta"]["mail"]["subject"] == "Q3 numbers" for c in chunks[100:])


@pytest.mark.parametrize(
    "loader",
    [pytest.param(n, marks=[pytest.mark.slow] if n == "datasets" else []) for n in sorted(LOADERS)],
)  # `datasets` takes seconds to start: the fast lane leaves it out
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_loader_with_its_defaults_finds_every_key_of_every_record(
    out: Path, loader: str, name: str
) -> None:
    wanted = parsed(out, FILES[name])
    loaded = load(loader, out, FILES[name])
    assert len(loaded) == len(wanted)
    assert differences(loaded, wanted, KEYS[name]) == []


def test_the_schemas_name_every_key_of_the_stable_shape() -> None:
    chunk_meta = schemas.load("chunks")["properties"]["meta"]
    metadata = schemas.load("documents")["properties"]["metadata"]
    assert chunk_meta["required"] == list(shape.CHUNK_META)
    assert metadata["required"] == list(shape.METADATA)
    assert list(chunk_meta["properties"]) == list(shape.CHUNK_META)
    assert list(metadata["properties"]) == list(shape.METADATA)


def test_an_office_files_ocr_confidence_names_every_picture_read_placed_or_not() -> None:
    read = {
        "engine": "tesseract 5.3.0",
        "pictures": ["media/image1.png", "media/image3.png"],
        "confidence": {"media/image1.png": 91.2, "media/image2.png": 38.5, "media/image3.png": 88},
        "low_confidence": ["media/image2.png"],
    }
    ocr = shape.metadata({"ocr": read})["ocr"]
    assert ocr["pictures"] == "media/image1.png media/image3.png"
    assert ocr["low_confidence"] == "media/image2.png"
    assert ocr["confidence"] == "91.2 88.0 38.5"
    pages = {"engine": "e", "pages": [1, 3], "confidence": {"1": 90.0, "3": None}}
    assert shape.metadata({"ocr": pages})["ocr"]["confidence"] == "90.0 -1"
