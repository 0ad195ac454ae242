"""Hostile archives: each ends in clear records within its limit, never a crash or a hang."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import tarfile
import zipfile
from pathlib import Path

import pytest
from outputs import document_lines
from zips import zip_of

import indexer
from indexer._limits import ContainerLimits
from indexer._types import Options
from indexer.config import Config
from indexer.pipeline.extract.nest import unit_of
from indexer.pipeline.output.units import Child
from indexer.registry import default_registry


def _unit(
    data: bytes, name: str = "a.zip", **limits: int
) -> tuple[str, str | None, dict[str, Child]]:
    """The archive's status and reason, and its children by record path suffix."""
    registry = default_registry()
    options = Options(containers=ContainerLimits(**limits))
    doc, children = unit_of(registry.for_path(name), name, data, options, registry)
    return doc.status, doc.error, {c.suffix: c for c in children}


def _status(child: Child) -> str:
    return "skipped" if child.extracted is None and child.pending is None else (
        "pending" if child.extracted is None else child.extracted.status
    )  # fmt: skip


def test_a_zip_bomb_member_is_skipped_for_its_ratio_and_the_rest_indexed() -> None:
    data = zip_of({"bomb.txt": b"\0" * (8 << 20), "ok.txt": b"Fine.\n"})
    status, _, children = _unit(data)
    assert status == "ok"
    assert str(children["#bomb.txt"].skip).startswith("compression_ratio")
    assert _status(children["#ok.txt"]) == "ok"


def test_members_past_the_unpacked_budget_stop_the_archive_with_the_reason() -> None:
    data = zip_of({f"f{i}.txt": os.urandom(600).hex().encode() for i in range(4)})
    status, error, children = _unit(data, max_unpacked_bytes=3000)
    assert status == "skipped" and error == "unpacked_limit: more than 3000 bytes"
    assert [_status(c) for c in children.values()] == ["ok", "ok", "skipped"]
    assert children["#f2.txt"].skip == "unpacked_limit"


def test_a_42_zip_style_nesting_stops_at_the_depth_limit() -> None:
    layer = zip_of({"page.txt": b"\0" * (2 << 20)})
    for _ in range(5):
        layer = zip_of({f"{n}.zip": layer for n in "abcd"})
    status, _, children = _unit(layer, max_depth=3)
    assert status == "ok"
    deepest = max(suffix.count("#") for suffix in children)
    assert deepest == 4, "a.zip#b.zip#c.zip#d.zip: the fourth level is not opened"
    limited = [c for c in children.values() if c.skip == "depth_limit"]
    assert len(limited) == 4**4 and all(c.suffix.count("#") == 4 for c in limited)
    assert not any("page.txt" in suffix for suffix in children)


@pytest.mark.slow  # builds a 30,000-member tar
def test_a_tar_of_very_many_empty_members_stops_at_the_member_limit() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for i in range(30_000):
            archive.addfile(tarfile.TarInfo(f"e{i}"))
    status, error, children = _unit(buffer.getvalue(), "many.tar.gz")
    assert status == "skipped" and error == "member_limit: more than 10000 members"
    assert len(children) == 10_000
    assert {_status(c) for c in children.values()} == {"empty"}


def _patched_zip(names: dict[str, str]) -> bytes:
    """A zip whose member names are rewritten byte for byte (what zipfile will not write)."""
    data = zip_of({placeholder: b"Payload.\n" for placeholder in names})
    for placeholder, name in names.items():
        assert len(placeholder) == len(name.encode())
        data = data.replace(placeholder.encode(), name.encode())
    return data


def test_unsafe_member_names_are_recorded_never_used_and_backslashes_are_folders() -> None:
    data = _patched_zip({
        "xx/evil.txt": "../evil.txt", "Xetc/passwd": "/etc/passwd",
        "XX/XX/win.txt": "..\\..\\win.txt", "dirYsubYok.txt": "dir\\sub\\ok.txt",
        "nulZname.txt": "nul\0name.txt",
    })  # fmt: skip
    _, _, children = _unit(data)
    reasons = {suffix: c.skip for suffix, c in children.items()}
    assert reasons["#../evil.txt"] == "unsafe_name: '..' in the path"
    assert reasons["#/etc/passwd"] == "unsafe_name: absolute path"
    assert reasons["#../../win.txt"] == "unsafe_name: '..' in the path"
    assert reasons["#nul\\x00name.txt"] == "unsafe_name: NUL in the name"
    assert _status(children["#dir/sub/ok.txt"]) == "ok"


def test_link_members_are_skipped_and_encrypted_members_failed_with_the_reason() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, kind in (("soft", tarfile.SYMTYPE), ("hard", tarfile.LNKTYPE)):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, "/etc/passwd"
            archive.addfile(info)
        info = tarfile.TarInfo("real.txt")
        info.size = 5
        archive.addfile(info, io.BytesIO(b"Real."))
    _, _, children = _unit(buffer.getvalue(), "links.tar")
    assert (children["#soft"].skip, children["#hard"].skip) == ("link", "link")
    assert _status(children["#real.txt"]) == "ok"
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("secret.txt", b"ciphertext")
        link = zipfile.ZipInfo("link")
        link.create_system, link.external_attr = 3, 0o120777 << 16
        archive.writestr(link, b"/etc/passwd")
        archive.writestr("plain.txt", b"Plain.")
    data = bytearray(zipped.getvalue())
    data[6] |= 0x1  # the first member's "encrypted" flag, in its local header...
    data[data.index(b"PK\x01\x02") + 8] |= 0x1  # ...and in the central directory
    _, _, children = _unit(bytes(data))
    assert children["#link"].skip == "link"
    secret = children["#secret.txt"].extracted  # content that could not be read
    assert secret is not None and (secret.status, secret.error) == ("failed", "encrypted")
    assert _status(children["#plain.txt"]) == "ok"


def test_a_truncated_tar_gz_keeps_the_members_read_before_the_cut() -> None:
    rng = random.Random(7)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for i in range(10):
            text = "".join(rng.choice("abcdefgh \n") for _ in range(20_000)).encode()
            info = tarfile.TarInfo(f"part{i}.txt")
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    data = buffer.getvalue()
    status, error, children = _unit(data[: len(data) // 2], "cut.tar.gz")
    assert status == "failed" and str(error).startswith("damaged:")
    assert 2 <= len(children) < 10
    assert all(_status(c) == "ok" for c in list(children.values())[:-1])


def test_a_zip_cut_before_its_directory_is_one_failed_record() -> None:
    data = zip_of({"a.txt": b"A" * 5000, "b.txt": b"B" * 5000}, zipfile.ZIP_STORED)
    status, error, children = _unit(data[:6000])
    assert status == "failed" and str(error).startswith("damaged:") and not children


def test_a_run_over_hostile_archives_records_every_file_and_writes_only_into_out(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "bomb.zip").write_bytes(zip_of({"z.txt": b"\0" * (4 << 20)}))
    (source / "names.zip").write_bytes(_patched_zip({"xx/evil.txt": "../evil.txt"}))
    (source / "junk.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (source / "junk.tar.gz").write_bytes(gzip.compress(b"not a tar")[:-6])
    (source / "empty.gz").write_bytes(b"")
    (source / "box.7z").write_bytes(b"7z\xbc\xaf\x27\x1c")
    before = sorted(p.name for p in tmp_path.iterdir())
    indexer.run(source, tmp_path / "out", Config(workers=1, pdf_workers=1, max_failures=10))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "out"])
    lines = document_lines(tmp_path / "out")
    docs = {json.loads(x)["path"]: json.loads(x) for x in lines}
    assert {p for p in docs if "#" not in p} == {p.name for p in source.iterdir()}
    assert docs["bomb.zip#z.txt"]["reason"].startswith("compression_ratio")
    assert docs["names.zip#../evil.txt"]["status"] == "skipped"
    assert docs["junk.zip"]["status"] == "failed"
    assert docs["junk.tar.gz"]["status"] in ("ok", "failed")
    assert docs["empty.gz"]["status"] == "empty"
    assert (docs["box.7z"]["status"], docs["box.7z"]["reason"]) == (
        "skipped",
        "unsupported_archive",
    )


def _mail_with_zip(n: int, payload: bytes) -> bytes:
    from email.message import EmailMessage

    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "a@example.com", "b@example.com", f"Part {n}"
    mail.set_content(f"Part {n} of the delivery is attached.\n")
    inner = zip_of({f"part{n}.txt": payload}, zipfile.ZIP_STORED)
    mail.add_attachment(inner, maintype="application", subtype="zip", filename=f"part{n}.zip")
    return mail.as_bytes()


def test_containers_extracted_by_the_pool_share_what_is_left_of_the_budget(
    tmp_path: Path,
) -> None:
    """The mails of a zip go to the pool in calls of their own (isolated containers,
    batches past `batch_files`), each with a pickled copy of the zip's budget: copies
    that each spent all that was left unpacked four times the limit's rest. The rest is
    split among them, so all that is unpacked stays within the limit."""
    payload = os.urandom(1500).hex().encode()  # 3,000 bytes that do not compress
    source = tmp_path / "src"
    source.mkdir()
    mails = {f"m{n}.eml": _mail_with_zip(n, payload) for n in range(4)}
    (source / "mails.zip").write_bytes(zip_of(mails, zipfile.ZIP_STORED))
    top = sum(len(m) for m in mails.values())
    limit = top + 2 * len(payload)  # room for two of the four attached members, not four
    config = Config(  # a call per mail: each with a copy of the budget
        workers=2, pdf_workers=1, batch_files=1, max_unpacked_bytes=limit, max_failures=10
    )
    indexer.run(source, tmp_path / "out", config)
    docs = {json.loads(x)["path"]: json.loads(x) for x in document_lines(tmp_path / "out")}
    members = [d for p, d in docs.items() if p.endswith(".txt")]
    assert len(members) == 4  # every one recorded
    unpacked = sum(d["bytes"] for d in members if d["status"] == "ok")
    assert top + unpacked <= limit
    assert {d["reason"] for d in members if d["status"] != "ok"} <= {"unpacked_limit"}
