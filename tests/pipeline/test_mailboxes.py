"""Mailboxes are declared as any format is: an extractor with `lists` (mbox and Outlook
`.pst` are built in), whose messages the walk lists as entries of their own. A plugin
adds one through its entry point alone."""

from __future__ import annotations

import json
import os
from email.message import EmailMessage
from pathlib import Path

import pytest
from outputs import committed, documents
from plugins import install_plugin

import indexer
from indexer.config import Config

CONFIG = Config(workers=2, pdf_workers=1, max_failures=100)

DIGEST = '''\
"""A toy mailbox from outside the package: messages after `=== message` lines; a
`=== lost` line is a message its reader could not read."""

from indexer._types import Chunk, Extracted
from indexer.registry import ExtractorSpec, Held


def extract(data, path, options):
    return Extracted(kind="digest", text="", chunks=(Chunk(text="a digest"),))


def lists(listing):
    with listing.open() as handle:
        parts = handle.read().split(b"=== ")[1:]
    for n, part in enumerate(parts, start=1):
        head, _, body = part.partition(b"\\n")
        if head == b"lost":
            yield Held(path=str(n), name="m.eml", data=None, size=0, problem="torn", damaged=True)
        else:
            yield Held(path=str(n), name="m.eml", data=body, size=len(body))


def specs():
    return [ExtractorSpec(
        name="digest", kind="digest", extensions=("digest",), version="1", extract=extract,
        lists=lists,
    )]
'''


def _mail(n: int) -> bytes:
    mail = EmailMessage()
    mail["From"], mail["To"] = f"sender{n}@example.com", "team@example.com"
    mail["Subject"], mail["Message-ID"] = f"Weekly note {n}", f"<note{n}@example.com>"
    mail.set_content(f"Note number {n}: the shipment of lamps {n * 7} left the harbour.\n")
    return mail.as_bytes()


@pytest.fixture
def digest_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "site"
    root.mkdir()
    install_plugin(root, "digest_plugin", DIGEST, monkeypatch)
    paths = [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))  # the worker processes too


def _digest(messages: list[bytes | None]) -> bytes:
    return b"".join(b"=== lost\n" if m is None else b"=== message\n" + m for m in messages)


def test_a_plugin_mailbox_is_listed_through_its_entry_point_alone(
    tmp_path: Path, digest_plugin: None
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "team.digest").write_bytes(_digest([_mail(1), None, _mail(3)]))
    (source / "zz.txt").write_text("A note after the mailbox.\n")
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    docs = documents(out)
    assert list(docs) == [
        "team.digest",
        "team.digest#1",
        "team.digest#2",
        "team.digest#3",
        "zz.txt",
    ]
    box = docs["team.digest"]
    assert (box["kind"], box["status"], box["chunks"], box["metadata"]["container"]) == (
        "digest", "ok", 0, "digest",
    )  # fmt: skip
    assert (docs["team.digest#1"]["kind"], docs["team.digest#1"]["status"]) == ("eml", "ok")
    assert docs["team.digest#1"]["metadata"]["subject"] == "Weekly note 1"
    assert (docs["team.digest#2"]["status"], docs["team.digest#2"]["reason"]) == (
        "failed", "unreadable",
    )  # fmt: skip
    assert "torn" in docs["team.digest#2"]["reason_text"]


def test_a_plugin_mailbox_reuses_each_message_on_its_own(
    tmp_path: Path, digest_plugin: None
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    box = source / "team.digest"
    box.write_bytes(_digest([_mail(1), _mail(2)]))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    box.write_bytes(_digest([_mail(1), _mail(2), _mail(3)]))
    again = indexer.run(source, out, CONFIG)
    assert again.extracted == 1  # only the new message
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    assert committed(out) == committed(fresh)


def test_an_mbox_read_whole_gives_each_messages_chunks_in_order() -> None:
    data = b"".join(
        b"From a@example.com Mon Jan  1 10:00:00 2024\n" + _mail(n) + b"\n" for n in (1, 2)
    )
    result = indexer.extract("box.mbox", data)
    texts = [c.text for c in result.chunks]
    assert result.kind == "mbox" and result.error is None
    first = next(i for i, t in enumerate(texts) if "Note number 1" in t)
    second = next(i for i, t in enumerate(texts) if "Note number 2" in t)
    assert first < second


def test_a_file_named_mbox_is_a_mailbox_and_never_too_large(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    messages = [
        b"From a@example.com Mon Jan  1 10:00:00 2024\n" + _mail(n) + b"\n" for n in range(3)
    ]
    (source / "MBOX").write_bytes(b"".join(messages))
    config = Config(workers=1, pdf_workers=1, max_file_bytes=len(messages[0]) + 10)
    out = tmp_path / "out"
    indexer.run(source, out, config)
    docs = documents(out)
    assert docs["MBOX"]["kind"] == "mbox" and docs["MBOX"]["status"] == "ok"
    assert [docs[f"MBOX#{n}"]["status"] for n in (1, 2, 3)] == ["ok"] * 3
    assert json.loads(json.dumps(docs["MBOX#2"]["metadata"]))["subject"] == "Weekly note 1"


def test_capabilities_list_the_mailboxes() -> None:
    from indexer.capabilities import capabilities

    kinds = {e["name"]: e for e in capabilities()["extractors"]}
    assert {"mbox", "pst"} <= set(kinds)


def test_a_walk_skip_says_its_detail_and_never_a_path_outside_source(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "big.txt").write_bytes(b"word " * 100)
    (source / "tool.exe").write_bytes(b"MZ")
    (source / "nul.txt").write_bytes(b"text\0more")
    (tmp_path / "outside.txt").write_text("elsewhere\n")
    (source / "link.txt").symlink_to(tmp_path / "outside.txt")
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=1, pdf_workers=1, max_file_bytes=100))
    docs = documents(out)
    assert docs["big.txt"]["reason"] == "too_large"
    assert docs["big.txt"]["reason_text"].endswith(": 500 > 100 bytes.")
    assert docs["tool.exe"]["reason_text"].endswith(": .exe.")
    assert "NUL byte" in docs["nul.txt"]["reason_text"]
    assert docs["link.txt"]["reason"] == "symlink_outside_source"
    assert str(tmp_path) not in docs["link.txt"]["reason_text"]
