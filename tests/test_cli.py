"""The command line: `extract`, `capabilities`, `conformance`, usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.cli import main


def test_capabilities_is_deterministic_json_listing_every_extractor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["capabilities"]) == 0
    first = capsys.readouterr().out
    assert main(["capabilities"]) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert data["contract"] == "extractors-v1"
    assert [e["name"] for e in data["extractors"]] == ["csv", "eml", "html", "json", "pdf", "text"]
    pdf = next(e for e in data["extractors"] if e["name"] == "pdf")
    assert pdf == {
        "name": "pdf",
        "kind": "pdf",
        "extensions": ["pdf"],
        "version": pdf["version"],
        "isolated": True,
        "fallback": False,
        "origin": "builtin",
    }
    assert data["chunkers"] == ["csv", "eml", "html", "json", "text"]


def test_extract_json_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_bytes(b"first para\r\n\r\nsecond para\n")
    assert main(["extract", str(doc), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "text" and data["status"] == "ok"
    assert [c["text"] for c in data["chunks"]] == ["first para", "second para"]
    assert [c["meta"] for c in data["chunks"]] == [{"para": 0}, {"para": 1}]


def test_extract_of_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(tmp_path / "nope.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_python_dash_m_runs_the_same_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "capabilities"], capture_output=True, check=True
    )
    assert json.loads(proc.stdout)["contract"] == "extractors-v1"


def test_help_documents_the_exit_codes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for code in ("0 ", "1 ", "2 ", "3 ", "75 ", "130 "):
        assert f"\n  {code}" in proc.stdout, code
    assert "143 terminated (SIGTERM)" in proc.stdout
