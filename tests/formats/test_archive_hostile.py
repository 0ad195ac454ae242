"""Hostile archives read within their budget: every decompression streamed through it,
every member charged with what it produces, memory bounded while reading, not after."""

from __future__ import annotations

import io
import os
import tarfile
import tracemalloc
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from zips import long_name_tar_bz2, patch_central, shared_stream_zip, sparse_tar, zip_of

from indexer._limits import ContainerLimits, MiB
from indexer._types import Options
from indexer.formats.archive import ArchiveError, Budget, Member, sniff
from indexer.formats.archive.read import read_members
from indexer.pipeline.extract.nest import unit_of
from indexer.registry import default_registry


def _read(data: bytes, **limits: Any) -> tuple[list[Member], str | None, Budget]:
    """The members of `data`, the reason the archive stopped (None when it did not),
    and the budget once read."""
    budget = Budget(ContainerLimits(**limits))
    members: list[Member] = []
    fmt = sniff(data)
    assert fmt is not None
    try:
        members.extend(read_members(data, fmt, "x", budget))
    except ArchiveError as exc:
        return members, exc.reason, budget
    return members, None, budget


def _peak(run: Callable[[], Any]) -> tuple[Any, int]:
    """What `run` returns, and the most memory Python held while it ran."""
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("pax", [False, True], ids=["gnu", "pax"])
def test_every_sparse_tar_member_is_charged_with_its_expanded_size(pax: bool) -> None:
    data = sparse_tar({"a.bin": 3 * MiB, "b.bin": 3 * MiB, "c.bin": 3 * MiB}, pax=pax)
    assert len(data) < 32 * 1024
    members, error, budget = _read(data, max_unpacked_bytes=5 * MiB)
    assert [(m.path, m.problem) for m in members] == [("a.bin", None), ("b.bin", "unpacked_limit")]
    assert members[0].data is not None and len(members[0].data) == 3 * MiB
    assert error == f"unpacked_limit: more than {5 * MiB} bytes"
    assert 3 * MiB <= budget.unpacked <= 5 * MiB


def test_a_sparse_member_past_the_room_is_refused_before_it_is_expanded() -> None:
    data = sparse_tar({"huge.bin": 40 * MiB})
    (members, error, _), peak = _peak(lambda: _read(data, max_unpacked_bytes=4 * MiB))
    assert [m.problem for m in members] == ["unpacked_limit"] and error is not None
    assert peak < 2 * MiB


def test_a_sparse_tar_in_a_run_yields_no_more_than_its_budget() -> None:
    data = sparse_tar({f"{n}.txt": 3 * MiB for n in "abcde"})
    registry = default_registry()
    options = Options(containers=ContainerLimits(max_unpacked_bytes=8 * MiB))
    doc, children = unit_of(registry.for_path("s.tar"), "s.tar", data, options, registry)
    assert (doc.status, doc.error) == ("skipped", f"unpacked_limit: more than {8 * MiB} bytes")
    assert [c.suffix for c in children] == ["#a.txt", "#b.txt", "#c.txt"]
    assert children[-1].skip == "unpacked_limit"
    assert sum(c.size for c in children if c.sha256 is not None) <= 8 * MiB


def test_a_tar_of_many_folders_holds_one_header_at_a_time() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("d")
        info.type = tarfile.DIRTYPE
        for n in range(5000):
            info.name = f"d{n}"
            archive.addfile(info)
    data = buffer.getvalue()
    (members, error, _), peak = _peak(lambda: _read(data))
    assert (members, error) == ([], None)
    assert peak < MiB // 2  # tarfile alone would keep 5,000 headers, 2.2 MB


def test_a_bzip2_zip_member_is_decompressed_a_piece_at_a_time() -> None:
    # A 16 MiB run of zeros is one bzip2 block of a few dozen bytes; each entry
    # declares 1,000 bytes of it, with their CRC. zipfile would decompress the block whole.
    data = shared_stream_zip(b"\0" * (16 * MiB), copies=3, declared=1000)
    assert len(data) < 1000
    (members, error, budget), peak = _peak(lambda: _read(data))
    assert error is None and [(m.path, m.data) for m in members] == [
        ("x.txt", b"\0" * 1000), ("x.txt~2", b"\0" * 1000), ("x.txt~3", b"\0" * 1000),
    ]  # fmt: skip
    assert budget.unpacked == 3000
    assert peak < 4 * MiB


def test_entries_sharing_one_stream_are_each_charged_even_when_damaged() -> None:
    data = shared_stream_zip(b"\0" * (16 * MiB), copies=40, declared=MiB, crc=1)
    (members, error, budget), peak = _peak(lambda: _read(data, max_unpacked_bytes=10 * MiB))
    assert [m.damaged for m in members] == [True] * 10 + [False]
    assert str(members[0].problem).startswith("damaged: Bad CRC-32")
    assert members[-1].problem == "unpacked_limit"
    assert error == f"unpacked_limit: more than {10 * MiB} bytes"
    assert budget.unpacked == 10 * MiB
    assert peak < 8 * MiB


@pytest.mark.parametrize("kind", [tarfile.GNUTYPE_LONGNAME, tarfile.XHDTYPE], ids=["gnu", "pax"])
def test_a_huge_tar_header_stops_at_the_ratio_while_it_is_read(kind: bytes) -> None:
    data = long_name_tar_bz2(20 * MiB, kind)
    assert len(data) < 1000
    (members, error, _), peak = _peak(lambda: _read(data))
    assert members == [] and str(error).startswith("compression_ratio: ")
    assert peak < 4 * MiB


def test_a_huge_tar_header_stops_at_the_room_left_when_the_ratio_allows_it() -> None:
    data = long_name_tar_bz2(20 * MiB)
    limits = {"max_ratio": 1_000_000, "max_unpacked_bytes": 2 * MiB}
    (members, error, _), peak = _peak(lambda: _read(data, **limits))
    assert members == [] and error == f"unpacked_limit: more than {2 * MiB} bytes"
    assert peak < 6 * MiB


def _inflated(pad: bool) -> tuple[bytes, int]:
    """A zip of 4 MiB of zeros (deflated to some 4 KB, its true compressed size also
    returned) whose directory claims 64 KiB of compressed bytes: 64:1 on paper. With
    `pad`, random bytes follow, so the zip does hold 64 KiB past the member's start."""
    files = {"big.txt": b"\0" * (4 * MiB)}
    if pad:
        files["pad.bin"] = os.urandom(70_000)
    data = zip_of(files)
    true_size = zipfile.ZipFile(io.BytesIO(data)).infolist()[0].compress_size
    return patch_central(data, 0, compress_size=64 * 1024), true_size


def test_the_zip_ratio_counts_the_compressed_bytes_actually_read() -> None:
    data, true_size = _inflated(pad=True)
    members, error, _ = _read(data)
    assert error is None and members[0].data is None
    assert members[0].problem == f"compression_ratio: {4 * MiB} bytes from {true_size}"
    assert members[1].problem is None


def test_a_compressed_size_past_the_end_of_the_zip_is_refused_while_unpacking() -> None:
    data, _ = _inflated(pad=False)
    (members, _, budget), peak = _peak(lambda: _read(data))
    assert str(members[0].problem).startswith("compression_ratio: more than ")
    assert budget.unpacked < 2 * MiB and peak < 4 * MiB


@pytest.mark.parametrize(
    "method",
    [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA],
    ids=["stored", "deflated", "bzip2", "lzma"],
)
def test_zip_members_read_as_zipfile_reads_them_sound_cut_or_corrupt(method: int) -> None:
    text = b"".join(b"line %d of a member\n" % i for i in range(30_000))
    data = zip_of({"a.txt": text, "b.txt": os.urandom(5000), "c.txt": b""}, method)
    at = data.index(b"PK\x01\x02")
    variants = {
        "sound": data,
        "corrupt": data[:200] + bytes(b ^ 0x55 for b in data[200:260]) + data[260:],
        "bad crc": patch_central(data, 0, crc=zlib.crc32(b"other")),
        "cut": data[:300] + data[at:],  # the central directory kept, the data cut
    }
    for name, variant in variants.items():
        assert _outcomes(variant) == _zipfile_outcomes(variant), name


def _outcomes(data: bytes) -> list[tuple[str, bytes | str | None]]:
    members, _, _ = _read(data)
    return [(m.path, m.data if m.data is not None else m.problem) for m in members]


def _zipfile_outcomes(data: bytes) -> list[tuple[str, bytes | str | None]]:
    found: list[tuple[str, bytes | str | None]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            try:
                found.append((info.filename, archive.read(info)))
            except Exception as exc:  # zipfile's damage, whatever its kind
                found.append((info.filename, f"damaged: {exc}"))
    return found


def _tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def test_the_member_a_cut_tar_stops_in_is_recorded_as_damaged() -> None:
    data = _tar({"a.txt": b"A" * 2000, "b.txt": b"B" * 5000, "c.txt": b"C" * 100})
    members, error, _ = _read(data[:4000])  # inside b.txt's data
    assert [(m.path, m.problem, m.damaged) for m in members] == [
        ("a.txt", None, False), ("b.txt", "damaged: unexpected end of data", True),
    ]  # fmt: skip
    assert error == "damaged: unexpected end of data"
