"""Damage to a committed output or to the state: a warning and a rebuild of what it
touched, never wrong output, never a run that fails for good."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from outputs import committed, document_lines

import indexer
from indexer._corpusgen import write_corpus
from indexer.config import Config

pytestmark = pytest.mark.slow  # whole runs over damaged state, full disks and killed runs

CONFIG = Config(workers=2, pdf_workers=2, shard_files=7)


def fresh(source: Path, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / f"fresh-{time.monotonic_ns()}"
    indexer.run(source, out, CONFIG)
    return committed(out)


def unchanged(out: Path) -> bool:
    return bool(json.loads((out / "run.json").read_bytes())["unchanged"])


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    found = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    caplog.clear()
    return found


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    write_corpus(root, 150_000, seed=3)
    return root


def shard_paths(out: Path, shard: int) -> list[str]:
    """The documents of a committed shard, in order."""
    lines = (out / f"chunks-{shard:05d}.ndjson").read_bytes().splitlines()
    return list(dict.fromkeys(orjson.loads(line)["path"] for line in lines))


def flip_a_letter(path: Path, field: bytes) -> None:
    """Change the case of the first letter of the first `field` string, in place: the
    file stays valid NDJSON of the same size, only its bytes differ."""
    data = path.read_bytes()
    at = data.index(b'"%s":"' % field) + len(field) + 4
    while not chr(data[at]).isalpha() or data[at - 1] == ord("\\"):
        at += 1
    with open(path, "r+b") as handle:
        handle.seek(at)
        handle.write(bytes([data[at] ^ 0x20]))


@pytest.mark.parametrize("night", ["unchanged", "prefix_copied", "linked", "documents"])
def test_a_damaged_committed_file_is_rebuilt_with_a_warning_naming_it(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, night: str
) -> None:
    """An unchanged night hard-links every file forward; a night where a later file of
    the shard changed copies the shard's prefix; one where only another shard changed
    links it. Each checks the file against its manifest first."""
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    if night == "documents":
        damaged = out / "documents-00000.ndjson"
        flip_a_letter(damaged.resolve(), b"extractor")
    else:
        damaged = out / "chunks-00000.ndjson"
        flip_a_letter(damaged.resolve(), b"text")
    if night in ("prefix_copied", "linked"):
        shard = 0 if night == "prefix_copied" else 1
        edited = source / shard_paths(out, shard)[-1]
        edited.write_bytes(edited.read_bytes() + b"\n")
    warnings(caplog)
    indexer.run(source, out, CONFIG)
    [warning] = warnings(caplog)
    assert damaged.name in warning and "manifest" in warning
    expected = fresh(source, tmp_path)  # the source does not change from here on
    assert committed(out) == expected
    assert not unchanged(out)
    warnings(caplog)
    indexer.run(source, out, CONFIG)  # and the night after is a plain unchanged one
    assert unchanged(out) and not warnings(caplog)
    assert committed(out) == expected


def test_a_truncated_shard_is_rebuilt_with_a_warning(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    shard = (out / "chunks-00001.ndjson").resolve()
    with open(shard, "r+b") as handle:
        handle.truncate(100)
    warnings(caplog)
    indexer.run(source, out, CONFIG)
    [warning] = warnings(caplog)
    assert "chunks-00001.ndjson" in warning
    assert committed(out) == fresh(source, tmp_path)


@pytest.mark.parametrize(
    "row", ["schema", "run", "committed", "names", "path", "sha256", "key", "deps", "spool"]
)
def test_a_state_value_that_is_not_utf8_means_a_rebuild_not_a_failed_run(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, row: str
) -> None:
    """A bad UTF-8 byte in any text column of either table: a run reads it (the meta
    rows when it starts, the rows of `files` as it looks files up) and starts over on
    a new state, or never needs it; it never stops for good."""
    attachments = Path(__file__).parents[1] / "formats" / "fixtures" / "eml" / "ok_attachments.eml"
    (source / "mail" / "attached.eml").write_bytes(attachments.read_bytes())  # has deps
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    bad = "CAST(X'ff' AS TEXT) || "
    if row in ("schema", "run", "committed"):
        query = f"UPDATE meta SET value = {bad}value WHERE name = '{row}'"
    elif row == "names":
        query = f"UPDATE meta SET name = {bad}name"
    else:
        query = f"UPDATE files SET {row} = {bad}{row} WHERE {row} IS NOT NULL"
    with sqlite3.connect(out / ".state" / "state.sqlite") as db:
        assert db.execute(query).rowcount > 0
    db.close()
    now = time.time_ns()
    for path in source.rglob("*"):  # every file is looked up again
        os.utime(path, ns=(now, now))
    warnings(caplog)
    rerun = indexer.run(source, out, CONFIG)
    if row != "names":  # the names are only ever compared, in SQLite: never decoded
        [warning] = warnings(caplog)
        assert "unusable" in warning and "UTF-8" in warning
        assert rerun.extracted == first.extracted
    assert committed(out) == fresh(source, tmp_path)
    assert indexer.run(source, out, CONFIG).extracted == 0


@pytest.fixture(params=["tmpfs", "ext4_1k_blocks"])
def small_disk(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A 16 MiB filesystem of its own: a tmpfs, or an ext4 of 1 KiB blocks in a file,
    where SQLite's shared-memory file once died of SIGBUS (mounting needs root, as in
    CI; else the test is skipped)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if request.param == "tmpfs":
        mount = ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)]
    else:
        image = tmp_path / "disk.img"
        with open(image, "wb") as handle:
            handle.truncate(16 << 20)
        _run_or_skip(["mkfs.ext4", "-q", "-b", "1024", str(image)])
        mount = ["mount", "-o", "loop", str(image), str(disk)]
    _run_or_skip(mount)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _run_or_skip(command: list[str]) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        pytest.skip(f"cannot run {command[0]}: {exc}")
    if done.returncode != 0:
        pytest.skip(f"{' '.join(command[:3])}: {done.stderr.strip() or done.returncode}")


def fill(disk: Path, spare: int) -> Path:
    """Fill `disk` but `spare` bytes with one file; return it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 65536):
                pass
    finally:
        os.close(fd)
    os.truncate(filler, max(0, filler.stat().st_size - spare))
    return filler


@pytest.mark.parametrize("spare", [0, 10 << 10, 12 << 10, 32 << 10])
def test_a_full_disk_exits_3_and_keeps_the_state_for_the_next_run(
    source: Path, tmp_path: Path, small_disk: Path, spare: int
) -> None:
    """Out of space while the state is opened, written or the output staged: exit 3,
    nothing committed, and the state as it was, so that the run after the space is
    freed extracts only what changed."""
    out = small_disk / "out"
    indexer.run(source, out, CONFIG)
    before = committed(out)
    edited = next(p for p in sorted(source.rglob("*.txt")))
    edited.write_bytes(edited.read_bytes() + b"\n\nAn edit made before the disk filled up.\n")
    filler = fill(small_disk, spare)
    run = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--quiet"]
    done = subprocess.run(run, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 3, done.stderr
    assert re.search("No space left on device|disk is full|KiB free", done.stderr), done.stderr
    assert "unusable" not in done.stderr
    assert committed(out) == before
    assert not (out / ".state" / "state.sqlite.corrupt").exists()
    assert not (out / ".staging").exists()  # its space is free at once
    filler.unlink()
    assert indexer.run(source, out, CONFIG).extracted == 1
    assert committed(out) == fresh(source, tmp_path)


def test_an_interrupted_run_frees_its_staging_folder(tmp_path: Path) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_corpus(source, 8_000_000, seed=3)
    command = [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out)]
    proc = subprocess.Popen([*command, "--quiet", "--workers", "1", "--pdf-workers", "1"])
    deadline = time.monotonic() + 60
    while not list(out.glob(".staging/chunks-*.ndjson")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert list(out.glob(".staging/chunks-*.ndjson")), "the run never staged a shard"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 143
    assert not (out / ".staging").exists()


def test_a_text_format_worker_that_allocates_without_bound_fails_only_its_document(
    tmp_path: Path,
) -> None:
    """The general pool's workers run under an address-space cap too (room for the
    largest file the walk lets through): a runaway extractor there is `out_of_memory`."""
    import hostile

    from indexer.registry import default_registry

    source = tmp_path / "src"
    source.mkdir()
    (source / "a.greedy").write_text("more, always more\n")
    (source / "b.txt").write_text("a plain note\n")
    registry = default_registry().copy()
    registry.register(hostile.GREEDY)
    config = Config(workers=1, pdf_workers=1, timeout=20, max_file_bytes=1 << 20)
    summary = indexer.run(source, tmp_path / "out", config, registry=registry)
    records = map(json.loads, document_lines(tmp_path / "out"))
    assert [(d["path"], d["status"], d["reason"]) for d in records] == [
        ("a.greedy", "failed", "out_of_memory"),
        ("b.txt", "ok", ""),
    ]
    assert summary.failed == 1
