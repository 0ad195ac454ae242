"""Outlook .pst mailboxes: one document per message, in folder order, read out of process."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from outputs import document_records
from sharedfiles import SHARED

import indexer
from indexer.config import Config

PST = SHARED / "formats" / "tika" / "testPST.pst"
CONFIG = Config(workers=1, pdf_workers=1, max_failures=100)
FOLDER = "Début du fichier de données Outlook"


@pytest.fixture
def pst() -> Path:
    if not PST.is_file():
        pytest.skip("../shared/formats/tika/testPST.pst is not available")
    return PST


def test_a_pst_gives_one_document_per_message_in_folder_order(pst: Path, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    shutil.copy(pst, tmp_path / "src" / "box.pst")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = document_records(tmp_path / "out")
    assert (docs[0]["path"], docs[0]["kind"], docs[0]["status"]) == ("box.pst", "pst", "ok")
    messages = [d for d in docs if d["path"].count("#") == 1]
    assert [d["path"] for d in messages] == [f"box.pst#{FOLDER}/{n}" for n in range(1, 8)]
    assert all((d["kind"], d["status"]) == ("eml", "ok") for d in messages)
    subjects = [d["metadata"]["subject"] for d in messages]
    assert subjects[0] == "Re: Feature Generators" and subjects[-1] == "FW: First email"
    assert messages[0]["metadata"]["from"] == "Jörn Kottmann <kottmann@gmail.com>"
    assert messages[-1]["metadata"]["from"] == "Luis Filipe da Cruz Nassif", "no Exchange DN"
    assert messages[-1]["metadata"]["in_reply_to"] == "<3148510c2360443396a78d35e0888de9@pf.gov.br>"
    enclosed = [d for d in docs if d["path"].startswith(f"box.pst#{FOLDER}/7#att/1/")]
    assert len(enclosed) == 1 and enclosed[0]["status"] == "skipped"


def test_bytes_that_are_no_mailbox_give_one_unreadable_record(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "fake.pst").write_bytes(b"!BDN" + os.urandom(4096))
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = document_records(tmp_path / "out")
    assert [(d["path"], d["status"]) for d in docs] == [
        ("fake.pst", "ok"),
        ("fake.pst#1", "failed"),  # content that could not be read
    ]
    assert docs[1]["reason"] == "unreadable"


def test_a_mailbox_file_of_no_bytes_is_empty_with_no_messages(tmp_path: Path) -> None:
    """It used to be `ok`, and a .pst or .ost then had an `unreadable` message record
    from the reader that found no mailbox in it."""
    (tmp_path / "src").mkdir()
    for name in ("a.ost", "b.pst", "c.mbox"):
        (tmp_path / "src" / name).write_bytes(b"")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = document_records(tmp_path / "out")
    assert [(d["path"], d["kind"], d["status"], d["reason"]) for d in docs] == [
        ("a.ost", "pst", "empty", "blank"),
        ("b.pst", "pst", "empty", "blank"),
        ("c.mbox", "mbox", "empty", "blank"),
    ]


@pytest.mark.slow  # a whole run per damaged copy
def test_a_damaged_pst_never_takes_the_run_down(pst: Path, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    data = bytearray(pst.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 200_000] = os.urandom(200_000)
    (tmp_path / "src" / "damaged.pst").write_bytes(bytes(data))
    (tmp_path / "src" / "after.txt").write_bytes(b"Still indexed.\n")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = {d["path"]: d for d in document_records(tmp_path / "out")}
    assert docs["damaged.pst"]["status"] == "ok" and docs["after.txt"]["status"] == "ok"
    inside = [d for p, d in docs.items() if p.startswith("damaged.pst#")]
    assert inside and all(d["status"] in ("ok", "skipped", "degraded", "empty") for d in inside)
