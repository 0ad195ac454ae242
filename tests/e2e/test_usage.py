"""What `indexer` says when it is used wrongly: one line, the flag typed, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sharedfiles import FORMATS, NO_FORMATS

from indexer.cli import main
from indexer.cli.exits import Exit, markdown_table

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("one paragraph\n\nanother one\n")
    (src / "b.csv").write_text("x,y\n1,2\n")
    return src


def _usage(argv: list[str], capfd: pytest.CaptureFixture[str]) -> str:
    """Run `argv`, expect a usage error; return its one line on stderr."""
    code = main(argv)
    err = capfd.readouterr().err
    assert code == Exit.USAGE, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Error:" not in err, err
    return lines[0]


def test_a_config_file_that_is_not_utf8_is_a_usage_error(
    source: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "latin1.toml"
    config.write_bytes(b"[run]\nworkers = 2\n# caf\xe9\n")
    argv = ["run", str(source), "--out", str(tmp_path / "o"), "--config", str(config)]
    line = _usage(argv, capfd)
    assert "not UTF-8" in line and "latin1.toml" in line


def test_an_out_that_cannot_be_written_is_a_usage_error(
    source: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    line = _usage(["run", str(source), "--out", "/proc/indexer-cannot-be-here"], capfd)
    assert "cannot be written" in line


def test_out_equal_to_source_is_named_as_such(
    source: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    line = _usage(["run", str(source), "--out", str(source)], capfd)
    assert "is SOURCE itself" in line and "inside" not in line


@pytest.mark.parametrize(
    ("args", "says", "never"),
    [
        (["--ocr", "maybe"], "--ocr maybe is not allowed", "ocr_mode"),
        (["--workers", "0"], '--workers 0 is not allowed: expected an integer >= 1 or "a', "s ="),
        (["--timeout", "soon"], "--timeout soon is not allowed", "timeout ="),
        (["--engine", "spark"], "--engine spark is not allowed", "engine ="),
        (["--bogus"], "unrecognized arguments: --bogus", "usage:"),
    ],
)
def test_a_bad_flag_is_named_as_typed(
    source: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
    never: str,
) -> None:
    line = _usage(["run", str(source), "--out", str(tmp_path / "o"), *args], capfd)
    assert says in line and never not in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["run"], ["extract"]])
def test_a_missing_or_unknown_command_is_one_line(
    argv: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    assert "--help" in _usage(argv, capfd)


def test_chunking_sizes_that_cannot_work_name_their_keys_and_values(
    source: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "chunks.toml"
    config.write_text("[chunking]\nchunk_min = 5000\n")
    argv = ["run", str(source), "--out", str(tmp_path / "o"), "--config", str(config)]
    line = _usage(argv, capfd)
    assert "chunk_min = 5000" in line and "chunk_target = 1200" in line
    assert "chunk_min <= chunk_target <= chunk_max" in line


def test_verbose_and_auto_workers_are_taken_where_a_user_types_them(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    argv = ["run", "-v", str(source), "--out", str(out), "--workers", "auto", "--json"]
    proc = subprocess.run([sys.executable, "-m", "indexer", *argv], capture_output=True, text=True)
    assert proc.returncode == Exit.OK, proc.stderr
    assert json.loads(proc.stdout)["files"] == 2
    assert "DEBUG" in proc.stderr


def test_include_and_exclude_flags_filter_the_walk_and_are_counted_apart(
    source: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(source), "--out", str(tmp_path / "o")]
    assert main([*argv, "--json", "--include", "*.txt", "--include", "*.md"]) == Exit.OK
    summary = json.loads(capfd.readouterr().out)
    assert summary["by_status"] == {"ok": 1, "skipped": 1} and summary["excluded"] == 1
    for _ in range(2):  # the second run is unchanged: the count comes from the manifest
        assert main([*argv, "--exclude", "*.txt"]) == Exit.OK
        line = capfd.readouterr().out
        assert line.startswith("indexed 1 files into 1 documents (1 ok), 1 left out by "), line
    lines = (tmp_path / "o" / "documents-00000.ndjson").read_text().splitlines()
    docs = [json.loads(line) for line in lines]
    assert {d["path"]: d["status"] for d in docs} == {"a.txt": "skipped", "b.csv": "ok"}


def test_help_and_the_readme_show_the_exit_codes_the_cli_returns() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "--help"], capture_output=True, text=True, check=True
    )
    for code in (Exit.USAGE, Exit.FATAL):
        row = next(line for line in proc.stdout.splitlines() if line.startswith(f"  {code.value} "))
        assert ("SOURCE" in row) == (code == Exit.USAGE), row
    assert markdown_table() in README.read_text()


@pytest.mark.skipif(not FORMATS.is_dir(), reason=NO_FORMATS)
def test_a_native_librarys_panic_stays_off_the_terminal(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "panics.xlsb").write_bytes((FORMATS / "tika" / "testEXCEL.xlsb").read_bytes())
    argv = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(tmp_path / "o")]
    proc = subprocess.run([*argv, "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == Exit.FAILURES
    assert "panicked" not in proc.stderr and "backtrace" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr  # the failure count, nothing else
    (line,) = (tmp_path / "o" / "documents-00000.ndjson").read_text().splitlines()
    doc = json.loads(line)
    assert doc["status"] == "failed" and "no entry found for key" in doc["reason_text"]


def test_the_dask_engine_without_dask_says_an_install_command_that_works(
    source: Path, tmp_path: Path
) -> None:
    probe = (
        "import sys; sys.modules['distributed'] = None; from indexer.cli import main;"
        "sys.exit(main(sys.argv[1:]))"
    )
    argv = ["run", str(source), "--out", str(tmp_path / "o"), "--engine", "dask"]
    proc = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    assert proc.returncode == Exit.USAGE, proc.stderr
    assert "pip install 'dask[distributed]'" in proc.stderr
    assert "indexer[dask]" not in proc.stderr and len(proc.stderr.splitlines()) == 1
