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
    assert [e["name"] for e in data["extractors"]] == [
        "archive", "calendar", "csv", "doc", "docx", "eml", "emlx", "epub", "html", "image",
        "json", "mbox", "mhtml", "msg", "odp", "odt", "pdf", "ppt", "pptx", "pst", "rtf",
        "spreadsheet", "text", "tnef", "vcard",
    ]  # fmt: skip
    sheets = next(e for e in data["extractors"] if e["name"] == "spreadsheet")
    assert sheets["extensions"] == ["xlsx", "xlsm", "xlsb", "xls", "ods"] and sheets["isolated"]
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
    assert data["chunkers"] == [
        "calendar", "csv", "eml", "emlx", "html", "json", "mhtml", "text", "vcard",
    ]  # fmt: skip
    assert set(data["ocr"]) == {"active", "engines"}
    assert [e["name"] for e in data["ocr"]["engines"]] == ["tesseract", "tesserocr"]


def test_extract_json_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_bytes(b"first para\r\n\r\nsecond para\n")
    assert main(["extract", str(doc), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["document"]["kind"] == "text" and data["document"]["status"] == "ok"
    # two short paragraphs: packed into one chunk, as `indexer run` writes them
    assert [c["text"] for c in data["chunks"]] == ["first para\n\nsecond para"]
    assert data["children"] == []


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


def test_help_documents_every_exit_code() -> None:
    from indexer.cli.exits import MEANING, Exit

    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    text = " ".join(proc.stdout.split())
    for code in Exit:
        assert f" {code.value} {' '.join(MEANING[code].replace('`', '').split())}" in text, code
    assert [c.value for c in Exit] == [0, 1, 2, 3, 75, 130, 143]


def test_the_readme_table_lists_every_exit_code() -> None:
    from indexer.cli.exits import Exit

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("### Exit codes") :].split("\n\n")[1]
    rows = {line.split("|")[1].strip() for line in table.splitlines()[2:]}
    listed = {int(n) for row in rows for n in row.split(" / ")}
    assert listed == {code.value for code in Exit}


@pytest.mark.parametrize(("sig", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_mid_run_exits_130_or_143_and_commits_nothing(
    tmp_path: Path, sig: str, code: int
) -> None:
    import signal
    import time

    from indexer._corpusgen import write_corpus

    source, out = tmp_path / "src", tmp_path / "out"
    (source / "a").mkdir(parents=True)
    (source / "a" / "first.txt").write_text("the first commit\n")
    command = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out)]
    subprocess.run([*command, "--quiet"], check=True, timeout=120)
    before = (out / "documents-00000.ndjson").read_bytes()
    write_corpus(source / "b", 8_000_000, seed=3)
    proc = subprocess.Popen(
        [*command, "--quiet", "--workers", "1", "--pdf-workers", "1"],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob(".staging/chunks-*.ndjson")) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "interrupted; the previous output" in err
    assert (out / "documents-00000.ndjson").read_bytes() == before


def test_an_unchanged_rerun_never_starts_an_event_loop(tmp_path: Path) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    (source / "a.txt").write_text("one paragraph\n\nand another\n")
    command = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--json"]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    probe = (
        "import sys; from indexer.cli import main; code = main(sys.argv[1:]);"
        "print('asyncio' in sys.modules, code, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, *command[3:]], capture_output=True, text=True, timeout=120
    )
    assert proc.stderr.split()[-2:] == ["False", "0"], proc.stderr
    assert json.loads(proc.stdout)["reused"] == 1


def test_the_summary_line_counts_re_packed_documents_only_when_there_are_some(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    for name in ("a.txt", "b.txt"):
        (source / name).write_text(f"{name} one paragraph\n\nand another\n")
    run = ["run", str(source), "--out", str(out), "--quiet", "--workers", "1"]
    assert main(run) == 0
    assert ", 2 extracted, 0 reused; 2 added," in capsys.readouterr().out
    assert main([*run, "--chunking", "blocks"]) == 0
    assert ", 0 extracted, 2 reused (2 re-packed); 0 added," in capsys.readouterr().out
    assert main([*run, "--chunking", "blocks"]) == 0
    assert ", 0 extracted, 2 reused; 0 added," in capsys.readouterr().out
