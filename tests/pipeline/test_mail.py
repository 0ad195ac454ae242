"""Mail archives: mbox splitting, Maildir, attachments as child documents."""

from __future__ import annotations

import io
import json
import mailbox
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import hostile
import pytest
from outputs import document_lines

import indexer
from indexer._samples import minimal_pdf
from indexer.config import Config
from indexer.formats import mbox
from indexer.pipeline.output import shape
from indexer.registry import default_registry

CONFIG = Config(workers=2, pdf_workers=2, max_failures=100)
_BROKEN = "broken data stream when reading image file"  # Pillow's words


def _mail(i: int, body: str, attachments: tuple[tuple[str, str, bytes], ...] = ()) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"Sender {i} <s{i}@example.com>"
    msg["To"] = "team@example.com"
    msg["Subject"] = f"Report {i}"
    msg["Date"] = "Mon, 01 Jan 2024 10:00:00 +0000"
    msg["Message-ID"] = f"<m{i}@example.com>"
    msg.set_content(body)
    for filename, ctype, data in attachments:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return msg.as_bytes()


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (width, height), 255).save(buffer, format="PNG")
    return buffer.getvalue()


def _mbox(messages: list[bytes]) -> bytes:
    out = b""
    for data in messages:
        quoted = b"\n".join(
            b">" + line if line.lstrip(b">").startswith(b"From ") else line
            for line in data.split(b"\n")
        )
        out += b"From sender@example.com Mon Jan  1 10:00:00 2024\n" + quoted.rstrip(b"\n")
        out += b"\n\n"
    return out


def _stdlib(path: Path) -> list[mailbox.mboxMessage]:
    box = mailbox.mbox(path, create=False)
    try:
        return list(box)
    finally:
        box.close()


def _docs(out: Path) -> dict[str, dict[str, object]]:
    lines = document_lines(out)
    return {json.loads(x)["path"]: json.loads(x) for x in lines}


def _chunks(out: Path) -> list[dict[str, object]]:
    return [
        json.loads(line)
        for shard in sorted(out.glob("chunks-*.ndjson"))
        for line in shard.read_bytes().splitlines()
    ]


def test_mbox_split_matches_the_stdlib_on_plain_archives(tmp_path: Path) -> None:
    data = _mbox([_mail(i, f"Body {i}.\n\nSecond paragraph.") for i in range(25)])
    path = tmp_path / "a.mbox"
    path.write_bytes(data)
    ours = list(mbox.split(io.BytesIO(data)))
    theirs = [m.as_bytes() for m in _stdlib(path)]
    assert len(ours) == len(theirs) == 25
    assert [m.split(b"\n\n", 1)[1].strip() for m in ours] == [
        m.split(b"\n\n", 1)[1].strip() for m in theirs
    ]


def test_body_lines_starting_with_from_do_not_split_messages(tmp_path: Path) -> None:
    body = "Hello,\nFrom the sales team: numbers are up.\nFrom now on we meet weekly."
    data = _mbox([_mail(1, body), _mail(2, "Second mail.")])
    unquoted = data.replace(b">From ", b"From ")  # an mboxo writer that did not quote
    path = tmp_path / "b.mbox"
    path.write_bytes(unquoted)
    assert len(_stdlib(path)) == 4, "the stdlib splits at every From line"
    ours = list(mbox.split(io.BytesIO(unquoted)))
    assert len(ours) == 2
    assert b"From the sales team" in ours[0] and b"From now on" in ours[0]


def test_mboxrd_quoting_is_undone_and_content_length_is_honoured() -> None:
    body = b"Intro\n\nFrom the middle: not a separator\nX-Looks: like a header\n"
    sized = b"From a@x Mon Jan  1 10:00:00 2024\nSubject: sized\nContent-Length: %d\n\n%s\n" % (
        len(body),
        body,
    )
    quoted = b"From b@x Mon Jan  1 10:00:00 2024\nSubject: quoted\n\n>From here\n>>From there\n"
    messages = list(mbox.split(io.BytesIO(sized + quoted)))
    assert len(messages) == 2
    assert messages[0].endswith(b"From the middle: not a separator\nX-Looks: like a header\n")
    assert messages[1] == b"Subject: quoted\n\nFrom here\n>From there\n"


def test_mbox_messages_become_documents_in_file_order(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    messages = [_mail(i, f"Message number {i}.") for i in range(1, 13)]
    (source / "archive.mbox").write_bytes(_mbox(messages))
    (source / "mbox").write_bytes(_mbox(messages[:2]))
    out = tmp_path / "out"
    summary = indexer.run(source, out, CONFIG)
    docs = _docs(out)
    assert list(docs)[:3] == ["archive.mbox", "archive.mbox#1", "archive.mbox#2"]
    assert docs["archive.mbox"]["status"] == "ok" and docs["archive.mbox"]["kind"] == "mbox"
    assert [docs[f"archive.mbox#{i}"]["metadata"]["subject"] for i in range(1, 13)] == [
        f"Report {i}" for i in range(1, 13)
    ]
    assert {docs["mbox#1"]["kind"], docs["mbox#2"]["kind"]} == {"eml"}
    assert summary.documents == 1 + 12 + 1 + 2


def test_attachments_become_children_carrying_the_mail_headers(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    pdf = minimal_pdf([["Quarterly revenue grew."]])
    inner = _mail(9, "Forwarded body text.", (("inner.csv", "text/csv", b"a,b\n1,2\n"),))
    attachments = (
        ("report.pdf", "application/pdf", pdf),
        ("data.csv", "text/csv", b"region,total\nnorth,10\n"),
        ("icon.png", "image/png", _png(16, 16)),
        ("fwd.eml", "message/rfc822", inner),
        ("logo.svg", "image/svg+xml", b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
    )
    (source / "mail.eml").write_bytes(_mail(1, "See attached.", attachments))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    docs = _docs(out)
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "mail.eml": ("eml", "ok"),
        "mail.eml#att/1/report.pdf": ("pdf", "ok"),
        "mail.eml#att/2/data.csv": ("csv", "ok"),
        "mail.eml#att/3/icon.png": ("image", "skipped"),
        "mail.eml#att/4/fwd.eml": ("eml", "ok"),
        "mail.eml#att/4/fwd.eml#att/1/inner.csv": ("csv", "ok"),
        "mail.eml#att/5/logo.svg": ("", "skipped"),
    }
    assert docs["mail.eml#att/3/icon.png"]["reason"] == "image_too_small"
    assert docs["mail.eml#att/3/icon.png"]["reason_text"].endswith("text: 16x16 px.")
    assert docs["mail.eml#att/5/logo.svg"]["reason"] == "no_extractor"
    assert docs["mail.eml#att/5/logo.svg"]["reason_text"].endswith("type: image/svg+xml.")
    by_path = {c["path"]: c for c in _chunks(out)}
    pdf_chunk = by_path["mail.eml#att/1/report.pdf"]
    assert pdf_chunk["text"] == "Quarterly revenue grew."
    assert pdf_chunk["meta"] == shape.CHUNK_META | {
        "page": 1,
        "pages": [1, 1],
        "blocks": [0, 0],
        "mail": {
            "subject": "Report 1",
            "from": "Sender 1 <s1@example.com>",
            "date": "Mon, 01 Jan 2024 10:00:00 +0000",
            "message_id": "<m1@example.com>",
        },
        "language": "",  # [hygiene] language is off by default
    }
    assert by_path["mail.eml#att/4/fwd.eml#att/1/inner.csv"]["meta"]["mail"]["subject"] == (
        "Report 9"
    )


def test_a_crashing_attachment_parser_fails_only_that_child(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    attachments = (
        ("boom.segv", "application/octet-stream", b"payload"),
        ("notes.txt", "text/plain", b"Plain notes survive."),
    )
    (source / "mail.eml").write_bytes(_mail(1, "Body survives.", attachments))
    (source / "other.txt").write_bytes(b"Other file survives.")
    registry = default_registry().copy()
    registry.register(hostile.SEGFAULT)
    out = tmp_path / "out"
    summary = indexer.run(source, out, CONFIG, registry=registry)
    docs = _docs(out)
    assert (
        docs["mail.eml#att/1/boom.segv"]["status"],
        docs["mail.eml#att/1/boom.segv"]["reason"],
    ) == (
        "failed",
        "crashed",
    )
    assert docs["mail.eml"]["status"] == "ok"
    assert docs["mail.eml#att/2/notes.txt"]["status"] == "ok"
    assert docs["other.txt"]["status"] == "ok"
    assert summary.failed == 1


def test_maildir_messages_are_mail_and_tmp_is_skipped(tmp_path: Path) -> None:
    source = tmp_path / "src"
    box = source / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1700000000.M1P1.host:2,S").write_bytes(_mail(1, "Read mail."))
    (box / "new" / "1700000001.M2P2.host").write_bytes(_mail(2, "New mail."))
    (box / "tmp" / "1700000002.M3P3.host").write_bytes(_mail(3, "Being delivered."))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    docs = _docs(out)
    assert {p: (d["kind"], d["status"], d["reason"]) for p, d in docs.items()} == {
        "Maildir/cur/1700000000.M1P1.host:2,S": ("eml", "ok", ""),
        "Maildir/new/1700000001.M2P2.host": ("eml", "ok", ""),
        "Maildir/tmp/": ("", "skipped", "maildir_tmp"),
    }


def test_an_appended_mbox_re_extracts_only_the_new_messages(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    messages = [_mail(i, f"Message {i}.") for i in range(1, 21)]
    archive = source / "archive.mbox"
    archive.write_bytes(_mbox(messages[:15]))
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    assert first.extracted == 15
    archive.write_bytes(_mbox(messages))
    second = indexer.run(source, out, CONFIG)
    assert (second.extracted, second.reused) == (5, 15)
    lines = (out / "changes.ndjson").read_bytes().splitlines()
    assert [(json.loads(x)["change"], json.loads(x)["path"]) for x in lines] == [
        ("changed", "archive.mbox"),  # its own record: the file grew
        *(("added", f"archive.mbox#{i}") for i in range(16, 21)),
    ]
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    for name in ("manifest.json", "documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name
    # Unchanged now: the mbox's stat stands for its messages, and the output is re-committed.
    third = indexer.run(source, out, CONFIG)
    assert (third.extracted, third.reused) == (0, 20)
    assert json.loads((out / "run.json").read_bytes())["unchanged"] is True
    assert (out / "changes.ndjson").read_bytes() == b""
    for name in ("manifest.json", "documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name


@pytest.mark.slow
def test_corpus_mail_attachments_are_found_and_extracted(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    indexer.run(corpus / "email-flanker", out, CONFIG)
    docs = _docs(out)
    pdf = docs["attached-pdf.eml#att/1/test.pdf"]
    assert (pdf["kind"], pdf["status"], pdf["metadata"]["pages"]) == ("pdf", "ok", 1)
    texts = [c["text"] for c in _chunks(out) if c["path"] == "attached-pdf.eml#att/1/test.pdf"]
    assert texts == ["Test."]
    children = [p for p in docs if "#att/" in p]
    assert len(children) >= 10
    failed = {p: docs[p]["reason"] for p in children if docs[p]["status"] == "failed"}
    assert failed == {"torture.eml#att/9/part-9.gif": "corrupt"}
    assert docs["torture.eml#att/9/part-9.gif"]["reason_text"].endswith(f"read: {_BROKEN}.")
    # A browser screenshot, attached as a PNG: read by OCR (the image tests measure how well)
    (shot,) = [p for p in children if p.startswith("russian-attachment-yahoo.eml#att/1/")]
    assert (docs[shot]["kind"], docs[shot]["status"]) == ("image", "ok")
    assert "Apple Store" in " ".join(c["text"] for c in _chunks(out) if c["path"] == shot)


@pytest.mark.slow  # whole runs compared across worker counts
@pytest.mark.parametrize("workers", [1, 3])
def test_mail_output_is_independent_of_worker_count(
    corpus: Path, tmp_path: Path, workers: int
) -> None:
    reference = tmp_path / "ref"
    indexer.run(corpus / "email-cpython", reference, Config(workers=2, pdf_workers=2))
    out = tmp_path / f"w{workers}"
    indexer.run(corpus / "email-cpython", out, Config(workers=workers, pdf_workers=workers))
    for name in ("manifest.json", "documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


def test_a_copied_mail_reuses_its_output_rebased_and_equals_a_fresh_run(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    pdf = minimal_pdf([["Quarterly revenue grew."]])
    attachments = (
        ("report.pdf", "application/pdf", pdf),
        ("data.csv", "text/csv", b"region,total\nnorth,10\n"),
    )
    (source / "a.eml").write_bytes(_mail(1, "See attached.", attachments))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    (source / "later").mkdir()
    (source / "later" / "b.eml").write_bytes((source / "a.eml").read_bytes())
    again = indexer.run(source, out, CONFIG)
    assert (again.extracted, again.reused) == (0, 6), "both mails and their attachments"
    fresh = tmp_path / "fresh"
    indexer.run(source, fresh, CONFIG)
    for name in ("documents-00000.ndjson", "chunks-00000.ndjson"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes()
    assert "later/b.eml#att/1/report.pdf" in _docs(out)


@pytest.mark.slow  # three whole runs
def test_changing_the_pdf_engine_re_extracts_mails_with_pdf_attachments(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    pdf = minimal_pdf([["Quarterly revenue grew."]])
    (source / "with-pdf.eml").write_bytes(
        _mail(1, "See attached.", (("report.pdf", "application/pdf", pdf),))
    )
    (source / "plain.eml").write_bytes(_mail(2, "No attachment."))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    rerun = indexer.run(source, out, Config(workers=2, pdf_workers=2, pdf_engine="pdfplumber"))
    assert rerun.extracted == 2, "the mail and its PDF; the plain mail is reused"


def test_an_mbox_reply_names_its_parent_and_leaves_out_the_quote_of_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    root = _mail(1, "Shall we ship on Friday?")
    reply = EmailMessage()
    for name, value in (
        ("From", "Bob <bob@example.com>"),
        ("To", "s1@example.com"),
        ("Subject", "Re: Report 1"),
        ("Message-ID", "<m2@example.com>"),
        ("In-Reply-To", "<m1@example.com>"),
        ("References", "<m1@example.com>"),
    ):
        reply[name] = value
    reply.set_content(
        "Friday works.\n\nOn Mon, 1 Jan 2024, Sender 1 wrote:\n> Shall we ship on Friday?\n"
    )
    (source / "box.mbox").write_bytes(_mbox([root, reply.as_bytes()]))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    docs: dict[str, Any] = _docs(out)
    threads = {docs[p]["metadata"]["thread"]["id"] for p in ("box.mbox#1", "box.mbox#2")}
    assert len(threads) == 1 and docs["box.mbox"]["metadata"]["thread"] == {"id": "", "parent": ""}
    assert docs["box.mbox#2"]["metadata"]["thread"]["parent"] == docs["box.mbox#1"]["doc_id"]
    mine: list[Any] = [c for c in _chunks(out) if c["path"] == "box.mbox#2"]
    text = "\n".join(c["text"] for c in mine)
    assert "Friday works." in text and "wrote:" not in text
    assert "Shall we ship" not in text  # its original is indexed: the quote is left out
