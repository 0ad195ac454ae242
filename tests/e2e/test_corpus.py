"""The whole shared real-world corpus: conformance, and full runs that account for every file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from outputs import document_records

import indexer
from indexer._text import decode
from indexer.cli import main
from indexer.config import Config
from indexer.pipeline.walk.entry import escape_part


def test_conformance_passes_on_the_builtin_and_real_corpus(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # OCR of the corpus's scans is checked, a handful of pages, in tests/formats/
    code = main(["conformance", "--corpus", str(corpus), "--json", "--ocr", "off"])
    card = json.loads(capsys.readouterr().out)
    failing = [c for c in card["checks"] if not c["passed"]]
    assert failing == [] and code == 0
    assert card["all_passed"] and card["passed"] == card["total"]
    categories = {c["category"] for c in card["checks"]}
    assert categories == {"builtin", "corpus"}
    kinds = {c["name"].split(":")[0] for c in card["checks"] if c["category"] == "corpus"}
    assert kinds == {"csv", "eml", "html", "json", "pdf", "text"}  # no image files on disk


@pytest.fixture(scope="module")
def corpus_run(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus") / "out"
    indexer.run(corpus, out, Config(workers=2, pdf_workers=2, max_failures=10**6, ocr_mode="off"))
    return out


def test_every_corpus_file_is_accounted_for_once(corpus: Path, corpus_run: Path) -> None:
    docs = document_records(corpus_run)
    paths = [d["path"] for d in docs]
    on_disk = {  # a `#` in a name is written `\x23` in its record path (README, Archives)
        escape_part(p.relative_to(corpus).as_posix()) for p in corpus.rglob("*") if p.is_file()
    }
    assert len(paths) == len(set(paths))
    top = [p for p in paths if "#att/" not in p]
    assert set(top) == on_disk
    children = [p for p in paths if "#att/" in p]
    assert all(p.split("#att/", 1)[0] in on_disk for p in children)
    assert len(children) > 50, "the corpus mails carry attachments"
    with open(corpus / "MANIFEST.tsv", newline="") as handle:
        listed = {row["relpath"]: row for row in csv.DictReader(handle, delimiter="\t")}
    by_path = {d["path"]: d for d in docs}
    for rel, row in listed.items():
        doc = by_path[escape_part(rel)]
        assert doc["sha256"] == row["sha256"], rel
        assert doc["bytes"] == int(row["bytes"]), rel
        if doc["status"] in ("ok", "degraded") and decode((corpus / rel).read_bytes()).strip():
            assert doc["chunks"] >= 1 or doc["duplicate_of"], rel  # a copy names its first
        elif doc["status"] in ("failed", "skipped", "empty"):  # no marker chunks in shards
            assert doc["chunks"] == 0 and doc["reason"] and doc["reason_text"], rel


def test_corpus_output_is_identical_with_one_worker(
    corpus: Path, corpus_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "w1"
    indexer.run(corpus, out, Config(workers=1, pdf_workers=1, max_failures=10**6, ocr_mode="off"))
    names = [p.name for p in corpus_run.iterdir() if p.is_file() and p.name != "run.json"]
    assert "manifest.json" in names and "changes.ndjson" in names
    for name in sorted(n for n in names if not n.startswith(".")):
        assert (out / name).read_bytes() == (corpus_run / name).read_bytes(), name
