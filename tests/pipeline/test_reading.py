"""Reading walked files: sized reads that still catch a file grown since its stat."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from indexer.pipeline.extract.reading import _read_to_end, read_one


def test_a_file_is_read_whole_and_hashed(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    data = os.urandom(300_000)
    path.write_bytes(data)
    result = read_one(bytes(path), limit=300_000)
    assert (result.data, result.sha256, result.error) == (
        data, hashlib.sha256(data).hexdigest(), None
    )  # fmt: skip
    assert read_one(bytes(path), limit=299_999).error == "too_large"


def test_a_file_longer_than_its_stat_is_read_to_its_end_or_stopped_past_the_limit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "grown.txt"
    data = os.urandom(200_000)
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _read_to_end(fd, 10, limit=1 << 20) == data  # it grew from 10 bytes
        os.lseek(fd, 0, os.SEEK_SET)
        cut = _read_to_end(fd, 10, limit=100_000)
        assert 100_000 < len(cut) < len(data) and data.startswith(cut)  # stops past it
    finally:
        os.close(fd)


def test_an_empty_file_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert read_one(bytes(path), limit=10).data == b""
