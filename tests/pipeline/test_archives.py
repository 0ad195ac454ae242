"""Archives in a run: every member a child document, equal to the same file on disk."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import hostile
import pytest
from outputs import documents
from zips import zip_of

import indexer
from indexer._samples import minimal_pdf
from indexer.config import Config
from indexer.registry import default_registry

CONFIG = Config(workers=2, pdf_workers=2, max_failures=1000, exact="off")
"""Exact duplicates kept: these tests compare a member's chunks with the same file's."""
FILES = {
    "report.pdf": minimal_pdf([["Quarterly revenue grew by twelve percent."]]),
    "sheets/totals.csv": b"region,total\nnorth,10\nsouth,12\n",
    "notes/readme.txt": b"First paragraph.\n\nSecond paragraph.\n",
    "data/records.jsonl": b'{"a": 1}\n{"a": 2}\n',
}


def _mail() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Ann <ann@example.com>"
    msg["To"] = "team@example.com"
    msg["Subject"] = "Numbers"
    msg["Message-ID"] = "<n1@example.com>"
    msg.set_content("See the table.")
    msg.add_attachment(b"k,v\nx,1\n", maintype="text", subtype="csv", filename="t.csv")
    return msg.as_bytes()


def _tar(files: dict[str, bytes], mode: str = "w") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _chunks(out: Path) -> dict[str, list[tuple[str, Any, bool]]]:
    found: dict[str, list[tuple[str, Any, bool]]] = {}
    for shard in sorted(out.glob("chunks-*.ndjson")):
        for line in shard.read_bytes().splitlines():
            c = json.loads(line)
            found.setdefault(c["path"], []).append((c["text"], c["meta"], c["degraded"]))
    return found


def _own(doc: dict[str, Any]) -> dict[str, Any]:
    """A record's metadata but its near-duplicate cluster: its own, named by its doc id."""
    return {k: v for k, v in doc["metadata"].items() if k != "near_duplicate"}


def _same_fields(doc: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(doc[k] for k in ("kind", "bytes", "sha256", "status", "extractor", "chunks"))


def _mixed(root: Path) -> dict[str, bytes]:
    files = {**FILES, "mail/numbers.eml": _mail()}
    files["inner.zip"] = zip_of({"deep/note.txt": b"Nested text.\n", "deep/x.json": b"[1, 2]"})
    root.mkdir(parents=True)
    (root / "mixed.zip").write_bytes(zip_of(files))
    for name, data in {**files, "inner/deep/note.txt": b"Nested text.\n"}.items():
        (root / "plain" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "plain" / name).write_bytes(data)
    (root / "plain" / "inner" / "deep" / "x.json").write_bytes(b"[1, 2]")
    return files


def test_every_member_of_a_mixed_zip_equals_the_same_file_indexed_from_disk(
    tmp_path: Path,
) -> None:
    files = _mixed(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs, chunks = documents(tmp_path / "out"), _chunks(tmp_path / "out")
    members = [p for p in docs if p.startswith("mixed.zip#") and p.count("#") == 1]
    assert members == [f"mixed.zip#{name}" for name in files], "archive order"
    assert docs["mixed.zip"]["kind"] == "archive" and docs["mixed.zip"]["status"] == "ok"
    pairs = {f"mixed.zip#{name}": f"plain/{name}" for name in files if name != "inner.zip"}
    pairs["mixed.zip#mail/numbers.eml#att/1/t.csv"] = "plain/mail/numbers.eml#att/1/t.csv"
    pairs["mixed.zip#inner.zip#deep/note.txt"] = "plain/inner/deep/note.txt"
    pairs["mixed.zip#inner.zip#deep/x.json"] = "plain/inner/deep/x.json"
    for member, disk in pairs.items():
        assert _same_fields(docs[member]) == _same_fields(docs[disk]), member
        assert _own(docs[member]) == _own(docs[disk]), member
        assert chunks[member] == chunks[disk], member
    assert docs["mixed.zip#report.pdf"]["status"] == "ok", "through the isolated pool"
    assert docs["mixed.zip#inner.zip"]["kind"] == "archive"


def test_tar_gzip_bzip2_xz_and_a_single_gz_all_give_their_members(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    files = {"a/one.txt": b"One.\n", "two.csv": b"x,y\n1,2\n"}
    for name, mode in (
        ("p.tar", "w"), ("g.tar.gz", "w:gz"), ("g.tgz", "w:gz"), ("b.tar.bz2", "w:bz2"),
        ("x.tar.xz", "w:xz"),
    ):  # fmt: skip
        (source / name).write_bytes(_tar(files, mode))
    (source / "single.txt.gz").write_bytes(gzip.compress(b"Just one file.\n"))
    indexer.run(source, tmp_path / "out", CONFIG)
    docs = documents(tmp_path / "out")
    for name in ("p.tar", "g.tar.gz", "g.tgz", "b.tar.bz2", "x.tar.xz"):
        assert docs[name]["metadata"]["members"] == 2, name
        assert docs[f"{name}#a/one.txt"]["status"] == "ok"
        assert docs[f"{name}#two.csv"]["kind"] == "csv"
    assert docs["g.tar.gz"]["metadata"]["format"] == "tar.gz"
    assert docs["single.txt.gz#single.txt"]["kind"] == "text"
    assert _chunks(tmp_path / "out")["single.txt.gz#single.txt"][0][0] == "Just one file."


def test_an_archive_attached_to_a_mail_gives_its_members_with_the_mails_headers(
    tmp_path: Path,
) -> None:
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "Ann <ann@example.com>", "Bundle"
    msg.set_content("Attached.")
    msg.add_attachment(zip_of({"in/a.txt": b"Zipped text.\n"}), maintype="application",
                       subtype="zip", filename="bundle.zip")  # fmt: skip
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.eml").write_bytes(msg.as_bytes())
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    member = "m.eml#att/1/bundle.zip#in/a.txt"
    assert documents(tmp_path / "out")[member]["status"] == "ok"
    text, meta, _ = _chunks(tmp_path / "out")[member][0]
    assert text == "Zipped text." and meta["mail"]["subject"] == "Bundle"


@pytest.mark.slow  # three whole runs
def test_an_unchanged_archive_reuses_its_members_and_a_changed_one_re_extracts_them(
    tmp_path: Path,
) -> None:
    _mixed(tmp_path / "src")
    out = tmp_path / "out"
    first = indexer.run(tmp_path / "src", out, CONFIG)
    again = indexer.run(tmp_path / "src", out, CONFIG)
    # plain/inner.zip's two members are copies of mixed.zip's inner.zip's: extracted once
    assert first.reused == 2
    assert again.extracted == 0 and again.reused == first.extracted + first.reused
    zipped = tmp_path / "src" / "mixed.zip"
    zipped.write_bytes(zip_of({**FILES, "notes/readme.txt": b"Rewritten.\n"}))
    changed = indexer.run(tmp_path / "src", out, CONFIG)
    assert changed.extracted == 1 + len(FILES)
    changes = [json.loads(x) for x in (out / "changes.ndjson").read_bytes().splitlines()]
    by_path = {c["path"]: c["change"] for c in changes}
    assert by_path["mixed.zip#notes/readme.txt"] == "changed"
    assert by_path["mixed.zip#inner.zip"] == "removed"
    fresh = tmp_path / "fresh"
    indexer.run(tmp_path / "src", fresh, CONFIG)
    for name in ("documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes()


def test_a_pdf_attached_to_a_mail_in_a_zip_equals_the_same_mail_indexed_from_disk(
    tmp_path: Path,
) -> None:
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "Ann <ann@example.com>", "Figures"
    msg.set_content("The report is attached.")
    msg.add_attachment(FILES["report.pdf"], maintype="application", subtype="pdf",
                       filename="report.pdf")  # fmt: skip
    (tmp_path / "src" / "plain").mkdir(parents=True)
    (tmp_path / "src" / "plain" / "m.eml").write_bytes(msg.as_bytes())
    (tmp_path / "src" / "z.zip").write_bytes(zip_of({"m.eml": msg.as_bytes()}))
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs, chunks = documents(tmp_path / "out"), _chunks(tmp_path / "out")
    for part in ("", "#att/1/report.pdf"):
        member, disk = f"z.zip#m.eml{part}", f"plain/m.eml{part}"
        assert _same_fields(docs[member]) == _same_fields(docs[disk]), member
        assert chunks[member] == chunks[disk], member
    assert docs["z.zip#m.eml#att/1/report.pdf"]["kind"] == "pdf"


def test_a_member_that_crashes_its_worker_fails_alone_and_the_rest_are_indexed(
    tmp_path: Path,
) -> None:
    registry = default_registry().copy()
    registry.register(hostile._spec("segv", hostile.segfault, isolated=False))
    (tmp_path / "src").mkdir()
    members = {"a.txt": b"Before.\n", "boom.segv": b"payload", "c.csv": b"x,y\n1,2\n"}
    (tmp_path / "src" / "z.zip").write_bytes(zip_of(members))
    summary = indexer.run(tmp_path / "src", tmp_path / "out", CONFIG, registry=registry)
    docs = documents(tmp_path / "out")
    assert (docs["z.zip#boom.segv"]["status"], docs["z.zip#boom.segv"]["reason"]) == (
        "failed", "crashed",
    )  # fmt: skip
    assert [docs[f"z.zip#{n}"]["status"] for n in ("a.txt", "c.csv")] == ["ok", "ok"]
    assert summary.failed == 1


@pytest.mark.slow  # whole runs compared across worker counts
@pytest.mark.parametrize("workers", [1, 3])
def test_archives_give_the_same_bytes_with_any_worker_count(tmp_path: Path, workers: int) -> None:
    _mixed(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "ref", CONFIG)
    config = replace(CONFIG, workers=workers, pdf_workers=workers)
    indexer.run(tmp_path / "src", tmp_path / "w", config)
    for name in ("manifest.json", "documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (tmp_path / "w" / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()


@pytest.mark.slow  # starts a local dask cluster
def test_archives_give_the_same_bytes_on_the_dask_engine(tmp_path: Path) -> None:
    _mixed(tmp_path / "src")
    shape = {"shard_files": 4, "max_failures": 10, "partition_files": 4}
    indexer.run(tmp_path / "src", tmp_path / "local", Config(workers=2, **shape))  # type: ignore[arg-type]
    indexer.run(tmp_path / "src", tmp_path / "dask", Config(engine="dask", workers=2, **shape))  # type: ignore[arg-type]
    local = sorted(p.name for p in (tmp_path / "local").glob("*.ndjson"))
    assert local == sorted(p.name for p in (tmp_path / "dask").glob("*.ndjson"))
    for name in [*local, "manifest.json"]:
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
