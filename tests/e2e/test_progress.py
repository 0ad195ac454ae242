"""The progress line, as a terminal shows it: a real `indexer run` on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
import zipfile
from pathlib import Path

import pytest

from indexer.pipeline.output.records import FileOutcome, Rendered
from indexer.pipeline.run.progress import Progress

pytestmark = pytest.mark.slow

_FRAME = re.compile(r"\[[#.]+\]|\d+/\d+\+? files")
_COUNT = re.compile(r"(\d+)/(\d+) files")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Text files with long names, a mailbox and a zip: children outnumber the files."""
    root = tmp_path_factory.mktemp("progress")
    for i in range(240):
        name = f"a-rather-long-folder-name-{i % 7}/and-a-long-file-name-{i:04d}.txt"
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(f"paragraph {i}\n\n" + "words and more words\n" * 40)
    box = b"".join(
        b"From a@example.com Mon Jan  1 10:00:00 2024\nFrom: a@example.com\n"
        b"Subject: note %d\n\nBody %d.\n\n" % (i, i)
        for i in range(60)
    )
    (root / "mail.mbox").write_bytes(box)
    with zipfile.ZipFile(root / "bundle.zip", "w") as z:
        for i in range(40):
            z.writestr(f"member-{i}.txt", f"member {i}\n")
    return root


def _winsize(fd: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))


def _run_on_a_terminal(
    source: Path, out: Path, columns: int, resize: int | None = None, extra: tuple[str, ...] = ()
) -> tuple[str, int, int]:
    """Run `indexer run` with its stderr on a pty `columns` wide (narrowed to `resize`
    after the first redraws); return what the terminal got, the exit code, and the
    offset in it from which every frame was drawn after the resize."""
    leader, follower = os.openpty()
    _winsize(follower, columns)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    argv = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), *extra]
    proc = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, env=env)
    got, after = b"", -1
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(leader, 65536)
            except OSError:  # the follower closed: the run is over
                break
            got += data
            if resize is not None and after < 0 and got.count(b"\x1b[K") >= 1:
                _winsize(follower, resize)
                after = len(got)
    finally:
        os.close(follower)
        code = proc.wait(timeout=120)
        os.close(leader)
    return got.decode("utf-8", "replace"), code, after


def _frames(screen: str) -> list[str]:
    """Each drawing of the progress line (the pieces between erase-line sequences)."""
    pieces = screen.split("\x1b[K")[1:]
    return [p.split("\r")[0] for p in pieces if _FRAME.search(p.split("\r")[0])]


@pytest.mark.parametrize("columns", [60, 120])
def test_the_line_fits_the_terminal_and_is_redrawn_in_place(
    tree: Path, tmp_path: Path, columns: int
) -> None:
    screen, code, _ = _run_on_a_terminal(tree, tmp_path / "out", columns)
    assert code == 0, screen
    frames = _frames(screen)
    assert len(frames) >= 2, screen
    assert all(len(f) < columns for f in frames), [f for f in frames if len(f) >= columns]
    # Redrawn over itself: no newline before the summary line.
    summary_at = screen.index("indexed ")
    assert "\n" not in screen[:summary_at]
    counts = [tuple(map(int, m.groups())) for f in frames if (m := _COUNT.search(f))]
    assert counts and all(done <= total == 242 for done, total in counts), counts
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)
    assert not any("ETA -" in f for f in frames)


def test_a_narrowed_terminal_gets_a_narrower_line(tmp_path: Path) -> None:
    # enough files on one worker that the line is redrawn several times after the resize
    tree = tmp_path / "src"
    for i in range(3000):
        name = f"a-rather-long-folder-name-{i % 7}/and-a-long-file-name-{i:04d}.txt"
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(f"paragraph {i}\n\n" + "words and more words\n" * 40)
    extra = ("--workers", "1")
    screen, code, after = _run_on_a_terminal(tree, tmp_path / "out", 120, resize=60, extra=extra)
    assert code == 0 and after > 0, screen
    later = _frames(screen[after:])[1:]  # the frame drawn as the size changed may be wide
    assert later and all(len(f) < 60 for f in later), later


def test_a_dask_run_shows_its_partitions_progress(tree: Path, tmp_path: Path) -> None:
    config = tmp_path / "small-shards.toml"
    shape = "[output]\nshard_files = 40\nshard_min_files = 40\n[run]\npartition_files = 40\n"
    config.write_text(shape)
    extra = ("--engine", "dask", "--workers", "1", "--config", str(config))
    screen, code, _ = _run_on_a_terminal(tree, tmp_path / "out", 80, extra=extra)
    assert code == 0, screen
    counts = [tuple(map(int, m.groups())) for f in _frames(screen) if (m := _COUNT.search(f))]
    assert any(0 < done <= total == 242 for done, total in counts), screen


def _outcome(seq: int, path: str, *, children: int = 0, in_archive: bool = False) -> FileOutcome:
    def doc(p: str, status: str) -> Rendered:
        return Rendered(
            path=p, doc_id="d", block=b"", count=0, digest="g", line=b"{}\n",
            status=status, kind="text",
        )  # fmt: skip

    docs = (doc(path, "ok"), *(doc(f"{path}/{i}", "failed") for i in range(children)))
    return FileOutcome(seq=seq, docs=docs, in_archive=in_archive, bytes_read=10)


def test_children_are_counted_apart_and_the_eta_never_goes_negative() -> None:
    bar = Progress()
    bar.total = 3
    bar("arrived", [_outcome(0, "a.zip", children=4), _outcome(1, "b.txt")])
    bar("arrived", [_outcome(2 + i, f"m/{i}", in_archive=True) for i in range(5)])
    bar("arrived", [_outcome(9, "c.txt"), _outcome(10, "d.txt")])  # a total counted short
    line = bar.line(200)
    assert "3/3 files" in line and "+9 members" in line and "4 failed" in line
    assert "ETA 0:00" in line


def test_the_slow_note_names_a_batch_a_process_has_not_one_waiting() -> None:
    bar = Progress()
    bar.total = 10
    bar("started", ["queued.csv"])  # a worker task took it, but no process has it yet
    bar("reading", ("big.pdf", "next.pdf"))
    bar._reading[("big.pdf", "next.pdf")] = [time.monotonic() - 5]
    line = bar.line(120)
    assert "reading big.pdf +1 (5s)" in line and "queued.csv" not in line
    bar("read", ("big.pdf", "next.pdf"))
    assert "reading" not in bar.line(120)


@pytest.mark.parametrize("width", [30, 59, 79, 119])
def test_a_narrow_line_keeps_the_count_and_the_slow_file_before_the_rest(width: int) -> None:
    bar = Progress()
    bar.total = 315
    bar("arrived", [_outcome(i, f"f{i}.txt", children=1) for i in range(38)])
    path = "a/rather/long/folder/name/report-2024.pdf"
    bar._reading[(path, "b.pdf")] = [time.monotonic() - 12]
    line = bar.line(width)
    assert len(line) <= width and line.startswith(("38/315 files", "[")), line
    # The slow file's name outranks the rate, the bytes and the bar, not the count.
    assert ("report-2024.pdf +1 (12s)" in line) == (width > 30), line
