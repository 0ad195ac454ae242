"""The Tesseract probe (`--version`, `--list-langs`) is asked once per change of the
program, not by every run: its answers are kept on disk (`formats/ocr/probe.py`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _program(tmp_path: Path) -> tuple[Path, Path]:
    """A `tesseract` on PATH that logs each start, then runs the real one."""
    real = shutil.which("tesseract")
    if real is None:
        pytest.skip("tesseract is not installed")
    folder, log = tmp_path / "bin", tmp_path / "started.log"
    folder.mkdir()
    program = folder / "tesseract"
    program.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    program.chmod(0o755)
    return program, log


def _run(tmp_path: Path, program: Path, *args: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{program.parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "indexer", *args], capture_output=True, check=True, env=env
    )
    return done.stdout.decode()


def _started(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_runs_ask_the_program_once_until_it_changes(tmp_path: Path) -> None:
    program, log = _program(tmp_path)
    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    (source / "a.txt").write_text("a note\n")
    run = ["run", str(source), "--out", str(out), "--workers", "1", "--quiet"]
    _run(tmp_path, program, *run)
    first = _started(log)
    assert sorted(set(first)) == ["--list-langs", "--version"]
    _run(tmp_path, program, *run)
    assert _started(log) == first  # the re-run started no tesseract
    described = json.loads(_run(tmp_path, program, "capabilities"))["ocr"]
    assert _started(log) == first
    os.utime(program, ns=(0, program.stat().st_mtime_ns + 1_000_000_000))  # "upgraded"
    assert json.loads(_run(tmp_path, program, "capabilities"))["ocr"] == described
    assert sorted(_started(log)[len(first) :]) == ["--list-langs", "--version"]
