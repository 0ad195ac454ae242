"""Outlook .msg files: read as mails, attachments as child documents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import olefile
import pytest
from cfb import nested_msg
from outputs import document_lines
from sharedfiles import SHARED

import indexer
from indexer.config import Config
from indexer.formats.msg.rtf import decompress
from indexer.formats.rtf import rtf_to_text

FORMATS = SHARED / "formats"
CONFIG = Config(workers=1, pdf_workers=1, max_failures=100)

# file: (From, To, Cc, Date, Subject, a sentence of the body)
EXPECTED = {
    "tika/testMSG.msg": (
        "Jukka Zitting <jukka.zitting@gmail.com>", "tika-dev@lucene.apache.org", None,
        "Thu, 29 Jan 2009 19:16:40 +0000", "MIME registry use cases",
        "I've been working on making the type detection code more",
    ),
    "tika/test-outlook2003.msg": (
        "Microsoft Outlook 2003 Team <olteam@microsoft.com>", "New Outlook User", None,
        "Sun, 28 Mar 2010 22:27:38 +0000", "Welcome to Microsoft Office Outlook 2003",
        "Thank you for using Microsoft® Office Outlook® 2003!",
    ),
    "tika/testMSG_att_msg.msg": (
        "Nick Booth <nick.booth@pof.com.au>", "Nick Booth <nick.booth@pof.com.au>", None,
        "Fri, 18 Jun 2010 09:54:19 +1000", "test email", "Test email with 1 msg attachment, 1 pdf",
    ),
    "tika/testMSG_att_doc.msg": (
        "Nicolas1 23456 <nicolas1.23456@free.fr>", "nicolas1.23456@free.fr", None,
        "Wed, 22 Apr 2009 14:36:33 +0000", "test pièce jointe 1", "contenu",
    ),
    "unstructured/fake-email-with-cc-and-bcc.msg": (
        '"John" <johnjennings702@gmail.com>', '"John Jennings" <john-ctr@unstructured.io>',
        "steve@unstructured.io", "Mon, 29 Jul 2024 16:38:11 -0400",
        "Fake email with cc and bcc recipients", "This is a test email. Please ignore.",
    ),
    "markitdown/test_outlook_msg.msg": (
        "M. C. Kurtuluş <muratcan.kurtulus@gmail.com>",
        "M. C. Kurtuluş <muratcan.kurtulus@gmail.com>", None,
        "Sun, 22 Dec 2024 11:23:00 +0300", "Test Email Message",
        "This is the body of the test email message",
    ),
}  # fmt: skip


def _real(name: str) -> Path:
    path = FORMATS / name
    if not path.is_file():
        pytest.skip(f"../shared/formats/{name} is not available")
    return path


def _docs(out: Path) -> dict[str, dict[str, object]]:
    lines = document_lines(out)
    return {json.loads(x)["path"]: json.loads(x) for x in lines}


def _chunks(out: Path) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for line in (out / "chunks-00000.ndjson").read_bytes().splitlines():
        chunk = json.loads(line)
        found.setdefault(chunk["path"], []).append(chunk)
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_real_msg_gives_sender_recipients_date_subject_and_body(name: str) -> None:
    sender, to, cc, date, subject, sentence = EXPECTED[name]
    result = indexer.extract(name, _real(name).read_bytes())
    assert (result.kind, result.status) == ("msg", "ok")
    lines = [f"From: {sender}", f"To: {to}", *([f"Cc: {cc}"] if cc else []), f"Date: {date}"]
    assert result.chunks[0].text == "\n".join([*lines, f"Subject: {subject}"])
    assert result.chunks[0].meta == {"part": "headers"}
    assert any(sentence in c.text for c in result.chunks[1:])
    assert (result.metadata["from"], result.metadata["subject"]) == (sender, subject)


def test_an_exchange_sender_keeps_its_name_never_its_distinguished_name() -> None:
    result = indexer.extract("x.msg", _real("tika/testMSG_Task.msg").read_bytes())
    assert result.chunks[0].text.startswith("From: Allison, Timothy B.\n")
    assert "/o=" not in result.text.lower()


def test_threading_headers_come_from_the_transport_headers() -> None:
    result = indexer.extract("x.msg", _real("markitdown/test_outlook_msg.msg").read_bytes())
    assert result.metadata["message_id"] == (
        "<CAG5p-vYs4eK8i7X=N5XSB+4bHTg-RQqwmH9DpemS-dQwAU6Chw@mail.gmail.com>"
    )


def test_attachments_and_an_enclosed_message_become_children(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(_real("tika/testMSG_att_msg.msg"), source / "mail.msg")
    indexer.run(source, tmp_path / "out", CONFIG)
    docs = _docs(tmp_path / "out")
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "mail.msg": ("msg", "ok"),
        "mail.msg#att/1/Test Attachment.eml": ("eml", "ok"),
        "mail.msg#att/2/smbprn.00009008.KdcPjl.pdf": ("pdf", "ok"),
    }
    chunks = _chunks(tmp_path / "out")
    context = {
        "subject": "test email",
        "from": "Nick Booth <nick.booth@pof.com.au>",
        "date": "Fri, 18 Jun 2010 09:54:19 +1000",
        "message_id": "<3975CB0784A2C249A2EDDD4D43C53D08045B971A87@Stitch.pof.com.au>",
    }
    for child in (
        "mail.msg#att/1/Test Attachment.eml",
        "mail.msg#att/2/smbprn.00009008.KdcPjl.pdf",
    ):
        assert chunks[child] and all(c["meta"]["mail"] == context for c in chunks[child])
    assert "Subject: Test Attachment" in str(
        chunks["mail.msg#att/1/Test Attachment.eml"][0]["text"]
    )


def test_bytes_that_are_no_outlook_message_fail_with_the_reason() -> None:
    result = indexer.extract("x.msg", b"this is plain text, not an OLE file")
    assert result.status == "failed"
    assert result.error is not None and "not an Outlook MSG file" in result.error


def test_a_damaged_attachment_table_still_gives_the_message_and_a_record(tmp_path: Path) -> None:
    damaged = tmp_path / "src" / "damaged.msg"
    damaged.parent.mkdir()
    shutil.copy(_real("tika/testMSG_att_doc.msg"), damaged)
    stream = "__attach_version1.0_#00000000/__properties_version1.0"
    with olefile.OleFileIO(str(damaged), write_mode=True) as ole:
        size = ole.get_size(stream)
        ole.write_stream(stream, b"\xff" * size)
    indexer.run(damaged.parent, tmp_path / "out", CONFIG)
    docs = _docs(tmp_path / "out")
    assert docs["damaged.msg"]["status"] == "ok"
    assert docs["damaged.msg#att/1/attachment-1"]["status"] == "failed"  # could not be read
    assert docs["damaged.msg#att/1/attachment-1"]["reason"] == "unreadable"
    assert "damaged.msg#att/2/pj1.txt" in docs


def test_the_compressed_rtf_body_decompresses_to_the_messages_text() -> None:
    from oxmsg import Message
    from oxmsg.domain import constants

    message = Message.load(_real("tika/testMSG.msg").read_bytes())
    rtf = decompress(message.properties.binary_prop_value(constants.PID_RTF_COMPRESSED))
    assert rtf.startswith(b"{\\rtf1")
    assert "making the type detection code more" in rtf_to_text(rtf)


def test_an_uncompressed_rtf_property_is_returned_as_stored() -> None:
    rtf = rb"{\rtf1\ansi Caf\'e9 ok\par Next}"
    stored = b"\x00" * 4 + len(rtf).to_bytes(4, "little") + b"MELA" + b"\x00" * 4 + rtf
    assert decompress(stored) == rtf
    with pytest.raises(ValueError, match="not compressed RTF"):
        decompress(b"\x00" * 8 + b"ABCD" + rtf)


@pytest.mark.parametrize("chained", [False, True], ids=["balanced", "chained"])
def test_messages_enclosed_hundreds_deep_keep_the_top_message_and_read_no_deeper(
    chained: bool,
) -> None:
    """The file is read only as deep as the enclosed messages kept (`msg.ole`): it used
    to fail whole with `RecursionError` inside olefile (125 deep with each storage's
    children chained, 200 balanced), before any property was read."""
    deep = indexer.extract("deep.msg", nested_msg(300, chained=chained))
    assert (deep.status, [c.text for c in deep.chunks[:2]]) == (
        "ok",
        ["Subject: level 0 subject", "The body of the message at level 0."],
    )
    assert deep == indexer.extract("deep.msg", nested_msg(12, chained=chained))


def test_a_run_over_a_message_enclosed_hundreds_deep_records_each_level_it_opens(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "deep.msg").write_bytes(nested_msg(300, chained=True))
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = _docs(tmp_path / "out")
    assert docs["deep.msg"]["status"] == "ok"
    statuses = [d["status"] for path, d in sorted(docs.items()) if path != "deep.msg"]
    assert statuses and set(statuses[:-1]) == {"ok"} and statuses[-1] == "skipped"


def test_a_message_with_attachments_is_read_from_its_outlook_file_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`children` hands the MIME it rendered for the message's own document to its
    attachments, rather than parsing the Outlook file a second time."""
    import indexer.formats.msg as msg
    from indexer._spec import Nesting
    from indexer._types import Options

    calls: list[int] = []
    real = msg.read_msg

    def counted(data: bytes) -> object:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(msg, "read_msg", counted)
    data = (FORMATS / "tika" / "testMSG_att_doc.msg").read_bytes()
    options = Options()
    steps = msg.children(data, "m.msg", options, Nesting.top("m.msg", options.containers))
    held = []
    try:
        while True:
            held.append(next(steps))
    except StopIteration as done:
        doc = done.value
    assert doc.status == "ok" and len(held) >= 2
    assert calls == [len(data)]
