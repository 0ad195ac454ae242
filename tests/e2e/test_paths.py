"""Unusable SOURCE and OUT paths exit 2 before anything is created, and no message
claims an earlier output that is not there."""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from indexer._corpusgen import write_corpus

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def run(source: Path, out: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--quiet"]
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        command, capture_output=True, text=True, timeout=120, check=False, **kwargs
    )


def test_out_below_a_regular_file_is_a_usage_error(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_text("a note\n")
    (tmp_path / "file").write_text("not a folder\n")
    done = run(source, tmp_path / "file" / "out")
    assert done.returncode == 2, done.stderr
    assert "config error" in done.stderr and "is not a directory" in done.stderr
    assert (tmp_path / "file").read_text() == "not a folder\n"


def _without_root_file_access() -> None:
    """In the child, before exec: root no longer passes over file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_an_unreadable_source_is_a_usage_error_that_creates_no_out(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_text("a note\n")
    source.chmod(0)
    out = tmp_path / "out"
    try:
        done = run(source, out, preexec_fn=_without_root_file_access if os.geteuid() == 0 else None)
    except subprocess.SubprocessError as exc:  # no capabilities to drop here
        pytest.skip(f"cannot make a folder unreadable to this user: {exc}")
    finally:
        source.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert "cannot be read" in done.stderr and "intact" not in done.stderr
    assert not out.exists()


def _small_files_only() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))


def test_a_first_run_that_fails_says_there_is_no_earlier_output(tmp_path: Path) -> None:
    source = tmp_path / "src"
    write_corpus(source, 300_000, seed=1)
    done = run(source, tmp_path / "out", preexec_fn=_small_files_only)
    assert done.returncode == 3, done.stderr
    assert "holds no committed output" in done.stderr and "intact" not in done.stderr
