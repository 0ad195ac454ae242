"""`indexer extract FILE` is `indexer run` for one file: the same records, printed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sharedfiles import FORMATS, NO_FORMATS

import indexer
from indexer.cli import main

pytestmark = pytest.mark.slow

_MBOX = b"".join(
    b"From a@example.com Mon Jan  1 10:00:00 2024\nFrom: a@example.com\n"
    b"Subject: note %d\n\nBody of note %d.\n\n" % (i, i)
    for i in range(3)
)


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("inner/a.txt", "alpha paragraph\n\nbeta paragraph\n")
        z.writestr("b.csv", "x,y\n1,2\n3,4\n")
    return buf.getvalue()


def _paragraphs() -> bytes:
    return "\n\n".join(f"Paragraph {i} says a few words." for i in range(120)).encode()


def _run_records(tmp_path: Path, name: str, data: bytes) -> list[dict[str, Any]]:
    """What `indexer run` commits for a folder holding `name` alone, per document."""
    source = tmp_path / "run-src"
    source.mkdir()
    (source / name).write_bytes(data)
    indexer.run(source, tmp_path / "run-out", workers=1, pdf_workers=1, max_failures=99)
    out = tmp_path / "run-out"
    docs = [json.loads(x) for x in (out / "documents-00000.ndjson").read_text().splitlines()]
    chunks = [json.loads(x) for x in (out / "chunks-00000.ndjson").read_text().splitlines()]
    return [
        {"document": d, "chunks": [c for c in chunks if c["doc_id"] == d["doc_id"]]} for d in docs
    ]


def _extracted(
    tmp_path: Path, name: str, data: bytes, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "one" / name
    path.parent.mkdir()
    path.write_bytes(data)
    code = main(["extract", str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("name", "data"),
    [("notes.txt", _paragraphs()), ("mail.mbox", _MBOX), ("bundle.zip", _zip())],
)
def test_extract_prints_the_records_run_commits_children_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes
) -> None:
    code, got = _extracted(tmp_path, name, data, capsys)
    assert code == 0
    records = _run_records(tmp_path, name, data)
    assert got == {**records[0], "children": records[1:]}
    if name == "notes.txt":  # packed chunks, as the run writes, not one per paragraph
        assert 1 < len(got["chunks"]) < 120
    else:
        assert len(got["children"]) >= 2 and not got["document"]["path"].count("#")


@pytest.mark.skipif(not FORMATS.is_dir(), reason=NO_FORMATS)
def test_a_file_run_skips_is_skipped_and_a_failed_one_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    heic = (FORMATS / "unstructured" / "DA-1p.heic").read_bytes()
    code, got = _extracted(tmp_path, "photo.heic", heic, capsys)
    assert (code, got["document"]["status"], got["chunks"]) == (0, "skipped", [])
    assert main(["extract", str(FORMATS / "tika" / "testEXCEL.xlsb")]) == 1
    assert "status: failed" in capsys.readouterr().out


def test_a_dot_file_named_on_purpose_is_extracted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, got = _extracted(tmp_path, ".notes", b"hidden but asked for\n", capsys)
    assert (code, got["document"]["status"]) == (0, "ok")
    assert [c["text"] for c in got["chunks"]] == ["hidden but asked for"]


def test_stdin_with_a_name_and_plain_text(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "extract", "-", "--name", "mail.mbox", "--text"],
        input=_MBOX,
        capture_output=True,
        check=True,
    )
    text = proc.stdout.decode()
    assert [f"Body of note {i}." in text for i in range(3)] == [True] * 3
    assert "---" not in text and "status" not in text


def test_a_reader_that_goes_away_ends_the_output_quietly(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(_paragraphs() * 60)  # far more than a pipe holds
    with subprocess.Popen(
        [sys.executable, "-m", "indexer", "extract", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # as `| head -1` does
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0
    assert err == ""


def test_the_library_reads_the_file_when_given_no_bytes(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"first para\n\nsecond para\n")
    assert indexer.extract(path) == indexer.extract("notes.txt", path.read_bytes())
    assert [c.text for c in indexer.extract(str(path)).chunks] == ["first para", "second para"]


def test_run_takes_options_as_keywords(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_text("one\n")
    with pytest.raises(indexer.ConfigError, match="workers"):
        indexer.run(source, tmp_path / "out", workers=0)
    with pytest.raises(indexer.ConfigError, match="unknown option"):
        indexer.run(source, tmp_path / "out", wokers=1)
    summary = indexer.run(source, tmp_path / "out", indexer.Config(max_failures=3), workers=1)
    assert summary.files == 1
