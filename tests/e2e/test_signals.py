"""SIGINT and SIGTERM at the moment of the commit: the exit code always agrees with OUT."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

_TRIES = 3
_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _command(source: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--quiet"]


def _generation(out: Path) -> str | None:
    try:
        return os.readlink(out / ".current")
    except OSError:
        return None


def _signal_at_the_switch(command: list[str], out: Path, sig: signal.Signals) -> tuple[int, str]:
    """Start `command`, send `sig` as soon as OUT's `.current` points elsewhere;
    return the exit code and stderr."""
    before = _generation(out)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while _generation(out) == before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    assert _generation(out) != before, "the run never switched .current"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(60):
        (source / f"note-{i:02d}.txt").write_text(f"note {i}\n\nsecond paragraph {i}\n")
    return source


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_just_after_the_commit_exits_0_and_the_new_output_is_committed(
    tmp_path: Path, sig: signal.Signals
) -> None:
    source, out = _source(tmp_path), tmp_path / "out"
    subprocess.run(_command(source, out), check=True, timeout=120)
    for attempt in range(_TRIES):
        note = source / f"note-{attempt:02d}.txt"
        note.write_text(f"edited {attempt}: the run has work to do\n")
        code, err = _signal_at_the_switch(_command(source, out), out, sig)
        assert code == 0, err
        assert "interrupted" not in err
        changes = (out / "changes.ndjson").read_text()
        assert f"note-{attempt:02d}.txt" in changes  # this run's output is the one in OUT
        assert not (out / ".staging").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_just_after_an_unchanged_tree_is_re_committed_exits_0(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """An unchanged tree is committed again without an event loop: the other path."""
    source, out = _source(tmp_path), tmp_path / "out"
    subprocess.run(_command(source, out), check=True, timeout=120)
    for _ in range(_TRIES):
        before = _generation(out)
        code, err = _signal_at_the_switch(_command(source, out), out, sig)
        assert code == 0, err
        assert _generation(out) != before
        assert (out / "changes.ndjson").read_bytes() == b""


def test_a_signal_before_the_commit_exits_130_or_143_and_commits_nothing(
    tmp_path: Path,
) -> None:
    """The other side of the line: a signal once the run has begun, before its commit
    (while it checks the tree, or while the engine runs), stops it."""
    source, out = _source(tmp_path), tmp_path / "out"
    subprocess.run(_command(source, out), check=True, timeout=120)
    before = _generation(out)
    for i in range(300):
        (source / f"more-{i:03d}.txt").write_text(f"more {i}\n")
    for sig in (signal.SIGINT, signal.SIGTERM):
        shutil.rmtree(out / ".staging", ignore_errors=True)  # the last one's, left behind
        proc = subprocess.Popen(
            [*_command(source, out), "--workers", "1"], stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 120
        while not (out / ".staging").exists() and proc.poll() is None:
            assert time.monotonic() < deadline, "the run never started staging"
            time.sleep(0.001)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == _EXIT[sig], err
        assert "interrupted; the previous output" in err
        assert _generation(out) == before
