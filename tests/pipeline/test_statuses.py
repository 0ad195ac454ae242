"""Statuses that mean one thing, reasons on every record, chunks only of document text."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from outputs import document_records

import indexer
from indexer import extract
from indexer.config import Config
from indexer.reasons import BY_CODE


def _blank_pdf() -> bytes:
    doc = pdfium.PdfDocument.new()
    doc.new_page(612, 792)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()


def _tree(root: Path) -> None:
    root.mkdir()
    (root / "blank.pdf").write_bytes(_blank_pdf())
    (root / "bad.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00garbage " * 50)
    (root / "bad.json").write_bytes(b'{"a": [1, 2')
    (root / "note.txt").write_text("A note worth reading.\n")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("inside.txt", "Text inside the archive.\n")
    (root / "a.zip").write_bytes(zipped.getvalue())


def _chunks(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(out.glob("chunks-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]


def _run(tmp_path: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    _tree(tmp_path / "src")
    out = tmp_path / "out"
    indexer.run(tmp_path / "src", out, Config(workers=1, pdf_workers=1, max_failures=10))
    return {r["path"]: r for r in document_records(out)}, _chunks(out)


def test_nothing_to_read_is_empty_and_unreadable_content_failed(tmp_path: Path) -> None:
    docs, _ = _run(tmp_path)
    blank, bad = docs["blank.pdf"], docs["bad.pdf"]
    assert (blank["status"], blank["reason"], blank["chunks"]) == ("empty", "no_text", 0)
    assert (bad["status"], bad["reason"], bad["chunks"]) == ("failed", "corrupt", 0)
    assert bad["reason_text"].startswith("The file is damaged")
    assert (docs["bad.json"]["status"], docs["bad.json"]["reason"]) == ("degraded", "not_parsed")


def test_every_record_has_a_reason_its_code_declares_and_ok_none(tmp_path: Path) -> None:
    docs, _ = _run(tmp_path)
    for record in docs.values():
        keys = list(record)
        assert keys[keys.index("reason") + 1] == "reason_text"
        if record["status"] == "ok":
            assert (record["reason"], record["reason_text"]) == ("", "")
        else:
            assert BY_CODE[record["reason"]].status == record["status"], record
            assert record["reason_text"].endswith(".")


def test_shards_hold_document_text_only_and_counts_match(tmp_path: Path) -> None:
    docs, chunks = _run(tmp_path)
    by_doc: dict[str, int] = {}
    for chunk in chunks:
        by_doc[chunk["doc_id"]] = by_doc.get(chunk["doc_id"], 0) + 1
        assert "extraction failed" not in chunk["text"]
    for record in docs.values():
        assert by_doc.get(record["doc_id"], 0) == record["chunks"], record["path"]
    archive = docs["a.zip"]
    assert (archive["status"], archive["chunks"]) == ("ok", 0)  # no list of member names
    assert docs["a.zip#inside.txt"]["chunks"] == 1


def test_extract_keeps_a_chunk_for_a_blank_pdf_and_says_it_is_empty() -> None:
    result = extract("blank.pdf", _blank_pdf())
    assert result.status == "empty" and result.chunks and result.chunks[0].text.strip()
