"""Apple Mail `.emlx`: the message inside gives the records the same message gives as
`.eml`, but its path; a length line that lies is noted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sharedfiles import CORPUS

import indexer
from indexer.config import Config
from indexer.formats.mail_samples import EML, emlx_file

CONFIG = Config(workers=1, pdf_workers=1, max_failures=100)


def _records(out: Path) -> list[dict[str, object]]:
    lines = [
        json.loads(line)
        for path in sorted(out.glob("*.ndjson"))
        if path.name.startswith(("chunks-", "documents-"))
        for line in path.read_bytes().splitlines()
    ]
    for record in lines:  # what names the file, and nothing else, may differ
        for key in ("path", "id", "doc_id", "extractor", "bytes", "sha256", "digest"):
            record.pop(key, None)
        if "duplicate_of" in record:  # paths: whether it is a copy is what must agree
            record["duplicate_of"] = bool(record["duplicate_of"])
            record["metadata"]["near_duplicate"].pop("cluster")  # a doc_id
            thread = record["metadata"]["thread"]
            thread["parent"] = bool(thread["parent"])  # a doc_id too
    return lines


def test_the_message_inside_is_extracted_as_the_eml_extractor_does() -> None:
    assert indexer.extract("1.emlx", emlx_file(EML)) == indexer.extract("1.eml", EML)


def test_real_mails_as_emlx_give_the_records_they_give_as_eml(tmp_path: Path) -> None:
    mails = sorted(CORPUS.glob("email-*/*.eml"))[:40]
    if not mails:
        pytest.skip("../shared/corpus is not available")
    for kind in ("eml", "emlx"):
        (tmp_path / kind).mkdir()
        for i, mail in enumerate(mails):
            data = mail.read_bytes()
            (tmp_path / kind / f"{i:03}.{kind}").write_bytes(
                emlx_file(data) if kind == "emlx" else data
            )
        indexer.run(tmp_path / kind, tmp_path / f"out-{kind}", CONFIG)
    emlx = _records(tmp_path / "out-emlx")
    assert len(emlx) > len(mails)  # attachments and chunks too
    assert emlx == _records(tmp_path / "out-eml")


def test_a_lying_or_missing_length_line_reads_what_is_there_and_says_so() -> None:
    whole = indexer.extract("1.eml", EML)
    short = indexer.extract("1.emlx", b"99999\n" + EML)
    assert short.chunks == whole.chunks and short.degraded
    assert short.metadata["notes"] == [f"the length line says 99999 bytes, {len(EML)} follow"]
    bare = indexer.extract("1.emlx", EML)
    assert bare.chunks == whole.chunks
    assert bare.metadata["notes"] == ["no length line: the whole file read as the message"]
    cut = indexer.extract("1.emlx", b"40\n" + EML)  # a shorter count cuts the message there
    assert cut.status == "ok" and "Noon" not in cut.text
