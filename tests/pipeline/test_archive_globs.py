"""The walk's include and exclude globs and archives: members judged as files in a folder."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path
from typing import Any

from outputs import documents
from zips import zip_of

import indexer
from indexer._samples import minimal_pdf
from indexer.config import Config
from indexer.pipeline.walk.walker import WalkPolicy, walk
from indexer.registry import default_registry

PDF = minimal_pdf([["Quarterly revenue grew by twelve percent."]])


def _outcome(doc: dict[str, Any]) -> tuple[str, str]:
    return doc["status"], doc["reason"]


def test_the_walks_exclude_globs_apply_to_member_paths(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    files = {"keep.txt": b"Kept.\n", "debug.log": b"noise\n", "secret/key.txt": b"hidden\n"}
    (source / "a.zip").write_bytes(zip_of(files))
    config = Config(workers=1, pdf_workers=1, exclude=("*.log", "a.zip/secret/"))
    summary = indexer.run(source, tmp_path / "out", config)
    docs = documents(tmp_path / "out")
    assert docs["a.zip#keep.txt"]["status"] == "ok"
    assert docs["a.zip#debug.log"]["reason"] == "excluded"
    assert docs["a.zip#secret/key.txt"]["reason"] == "excluded"
    # what the summary counts apart are walk files left out; members are the archive's
    assert (summary.files, summary.excluded) == (1, 0)
    assert summary.line().startswith("indexed 1 files into 4 documents")


def test_an_include_glob_for_pdfs_finds_the_pdfs_inside_archives_that_do_not_match_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    inner = zip_of({"deep.pdf": PDF, "x.txt": b"Inner text.\n"})
    (source / "a.zip").write_bytes(
        zip_of({"report.pdf": PDF, "notes.txt": b"Notes.\n", "inner.zip": inner})
    )
    (source / "top.pdf").write_bytes(PDF)
    (source / "top.txt").write_bytes(b"Not wanted.\n")
    # Exact duplicates kept: each copy of the PDF is compared with the one on disk.
    config = Config(workers=2, pdf_workers=2, include=("*.pdf",), exact="off")
    indexer.run(source, tmp_path / "out", config)
    docs = documents(tmp_path / "out")
    got = {path: _outcome(doc) for path, doc in docs.items()}
    assert got == {
        "a.zip": ("skipped", "excluded"),
        "a.zip#report.pdf": ("ok", ""),
        "a.zip#notes.txt": ("skipped", "excluded"),
        "a.zip#inner.zip": ("skipped", "excluded"),
        "a.zip#inner.zip#deep.pdf": ("ok", ""),
        "a.zip#inner.zip#x.txt": ("skipped", "excluded"),
        "top.pdf": ("ok", ""),
        "top.txt": ("skipped", "excluded"),
    }
    assert docs["a.zip"]["kind"] == "archive" and docs["a.zip"]["chunks"] == 0
    for member in ("a.zip#report.pdf", "a.zip#inner.zip#deep.pdf"):
        assert (docs[member]["sha256"], docs[member]["chunks"]) == (
            docs["top.pdf"]["sha256"], docs["top.pdf"]["chunks"],
        )  # fmt: skip


def test_an_archive_the_include_globs_match_keeps_its_own_document(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "reports").mkdir(parents=True)
    (source / "reports" / "q3.zip").write_bytes(zip_of({"a.csv": b"x\n1\n", "b.txt": b"B.\n"}))
    config = Config(workers=1, pdf_workers=1, include=("reports/**",))
    indexer.run(source, tmp_path / "out", config)
    docs = documents(tmp_path / "out")
    assert _outcome(docs["reports/q3.zip"]) == ("ok", "")
    assert docs["reports/q3.zip"]["chunks"] == 0  # its members are documents; no name list
    assert _outcome(docs["reports/q3.zip#a.csv"]) == ("ok", "")


def test_the_walk_opens_an_archive_only_when_an_include_glob_could_match_a_member(
    tmp_path: Path,
) -> None:
    for rel in ("a.zip", "docs/b.zip", "docs/c.tar.gz", "other/d.zip", "e.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"x")

    def verdicts(*include: str) -> dict[str, str | None]:
        policy = WalkPolicy(include=include, claims=default_registry().handles)
        return {e.rel: e.skip for e in walk(tmp_path, policy)}

    assert verdicts("*.pdf") == {
        "a.zip": None, "docs/b.zip": None, "docs/c.tar.gz": None, "other/d.zip": None,
        "e.txt": "excluded",
    }  # fmt: skip
    assert verdicts("docs/**/*.pdf") == {
        "a.zip": "excluded", "docs/b.zip": None, "docs/c.tar.gz": None,
        "other/d.zip": "excluded", "e.txt": "excluded",
    }  # fmt: skip
    # `*` stays within a folder: no member of docs/b.zip is `docs/<name>.pdf`
    assert verdicts("docs/*.pdf")["docs/b.zip"] == "excluded"
    assert verdicts("/a.zip/*.csv")["a.zip"] is None
    assert verdicts("/a.zip/*.csv")["docs/b.zip"] == "excluded"


def test_what_an_archive_attached_to_a_mail_holds_follows_the_mail_not_the_globs(
    tmp_path: Path,
) -> None:
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "Ann <ann@example.com>", "Bundle"
    msg.set_content("Attached.")
    bundle = zip_of({"in/a.txt": b"Zipped text.\n", "in/debug.log": b"Zipped log.\n"})
    msg.add_attachment(bundle, maintype="application", subtype="zip", filename="bundle.zip")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.eml").write_bytes(msg.as_bytes())
    (tmp_path / "src" / "loose.log").write_bytes(b"Loose log.\n")
    config = Config(workers=1, pdf_workers=1, include=("*.eml", "*.log"), exclude=("*.log",))
    indexer.run(tmp_path / "src", tmp_path / "out", config)
    got = {path: _outcome(doc) for path, doc in documents(tmp_path / "out").items()}
    assert got == {
        "loose.log": ("skipped", "excluded"),
        "m.eml": ("ok", ""),
        "m.eml#att/1/bundle.zip": ("ok", ""),
        "m.eml#att/1/bundle.zip#in/a.txt": ("ok", ""),
        "m.eml#att/1/bundle.zip#in/debug.log": ("ok", ""),
    }
