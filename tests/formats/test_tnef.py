"""TNEF (`winmail.dat`): the message's body and the attachments inside, as a file and as
an attachment, and streams damaged every way a reader can be lied to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mailparts import mail_with, run_one
from sharedfiles import SHARED

import indexer
from indexer._samples import minimal_pdf
from indexer._types import DEFAULT_OPTIONS
from indexer.formats.tnef import extract
from indexer.formats.tnef.samples import SAMPLE, attribute, mapi_block, tnef_file
from indexer.formats.tnef.stream import MAX_ATTRIBUTES, SIGNATURE

_HEAD = SIGNATURE + b"\x01\x00"


def _chunks(out: Path) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for path in sorted(out.glob("chunks-*.ndjson")):
        for line in path.read_bytes().splitlines():
            chunk = json.loads(line)
            found.setdefault(chunk["path"], []).append(chunk)
    return found


def test_the_body_sender_and_subject_are_read() -> None:
    result = indexer.extract("winmail.dat", SAMPLE)
    assert (result.kind, result.status) == ("tnef", "ok")
    assert [c.text for c in result.chunks] == [
        "From: Ann Lee <ann@example.com>\nSubject: Quarterly figures",
        "The figures are attached.",
        "Regards, Ann",
    ]
    metadata = dict(result.metadata)
    thread = metadata.pop("thread")
    assert metadata == {"subject": "Quarterly figures", "from": "Ann Lee <ann@example.com>"}
    assert thread["id"] and thread["parent"] == ""  # read as a mail is: its thread too


def test_an_html_body_is_rendered_and_an_rtf_body_read_when_there_is_no_plain_one() -> None:
    html = tnef_file(props={0x1013: b"<html><body><p>Hello <b>there</b></p></body></html>"})
    assert indexer.extract("winmail.dat", html).chunks[-1].text == "Hello there"
    rtf = b"{\\rtf1\\ansi Budget \\b approved\\b0.\\par}"
    raw = len(rtf).to_bytes(4, "little")
    stored = (len(rtf) + 12).to_bytes(4, "little") + raw + b"MELA" + bytes(4) + rtf
    result = indexer.extract("winmail.dat", tnef_file(subject="Budget", props={0x1009: stored}))
    assert result.chunks[-1].text == "Budget approved."


def test_a_winmail_dat_file_gives_its_attachments_as_children(tmp_path: Path) -> None:
    docs = run_one(tmp_path, "winmail.dat", SAMPLE)
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "winmail.dat": ("tnef", "ok"),
        "winmail.dat#att/1/notes.txt": ("text", "ok"),
    }
    chunks = _chunks(tmp_path / "out")
    assert chunks["winmail.dat#att/1/notes.txt"][0]["text"] == "Revenue rose in March."
    mail = chunks["winmail.dat#att/1/notes.txt"][0]["meta"]["mail"]
    assert mail["subject"] == "Quarterly figures"  # a TNEF message is mail: its context passes
    assert chunks["winmail.dat"][0]["meta"]["mail"]["from"] == "Ann Lee <ann@example.com>"


@pytest.mark.parametrize(("name", "content_type"), [
    ("winmail.dat", "application/ms-tnef"),
    ("ATT00001", "application/ms-tnef"),  # no extension: chosen by its type
    ("ATT00002.bin", "application/vnd.ms-tnef"),
    ("winmail.dat", "application/octet-stream"),  # by its name
])  # fmt: skip
def test_a_tnef_attachment_is_opened_by_name_or_type(
    tmp_path: Path, name: str, content_type: str
) -> None:
    docs = run_one(tmp_path, "mail.eml", mail_with(SAMPLE, content_type, name))
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "mail.eml": ("eml", "ok"),
        f"mail.eml#att/1/{name}": ("tnef", "ok"),
        f"mail.eml#att/1/{name}#att/1/notes.txt": ("text", "ok"),
    }


def test_an_attachment_without_a_type_goes_by_its_name_else_by_its_bytes(tmp_path: Path) -> None:
    files = [("README", b"Read me first.\n"), ("logo", b"\x89PNG\r\n\x1a\n\x00\x00"),
             ("memo.html", b"<p>Memo</p>")]  # fmt: skip
    docs = run_one(tmp_path, "winmail.dat", tnef_file(subject="Files", attachments=files))
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "winmail.dat": ("tnef", "ok"),
        "winmail.dat#att/1/README": ("text", "ok"),
        "winmail.dat#att/2/logo": ("", "skipped"),  # no type, not text: named, not lost
        "winmail.dat#att/3/memo.html": ("html", "ok"),
    }


def test_an_attached_message_inside_becomes_a_tnef_child_of_its_own(tmp_path: Path) -> None:
    inner = tnef_file(subject="Inner", body="The inner words.", attachments=[("a.txt", b"A.")])
    iid = b"\x07\x03\x02\x00" + bytes(4) + b"\xc0" + bytes(6) + b"\x46"
    outer = tnef_file(subject="Outer", body="Outer words.") + attribute(2, 0x9002, bytes(14))
    outer += attribute(2, 0x9005, mapi_block({0x3001: "Forwarded", 0x3701: (iid, inner)}))
    docs = run_one(tmp_path, "winmail.dat", outer)
    assert {p: d["status"] for p, d in docs.items()} == {
        "winmail.dat": "ok",
        "winmail.dat#att/1/Forwarded.tnef": "ok",
        "winmail.dat#att/1/Forwarded.tnef#att/1/a.txt": "ok",
    }
    assert docs["winmail.dat#att/1/Forwarded.tnef"]["metadata"]["subject"] == "Inner"


def test_the_real_winmail_dat_that_is_a_png_is_recorded_not_lost(tmp_path: Path) -> None:
    mail = SHARED / "corpus" / "email-mail-mime-parser" / "m4006.eml"
    if not mail.is_file():
        pytest.skip("../shared/corpus is not available")
    child = run_one(tmp_path, "m4006.eml", mail.read_bytes())["m4006.eml#att/1/winmail.dat"]
    assert (child["kind"], child["status"], child["reason"]) == ("tnef", "skipped", "binary")
    assert "not TNEF" in child["reason_text"]


def test_an_attached_dat_that_is_not_tnef_goes_by_its_type_as_before(tmp_path: Path) -> None:
    pdf = minimal_pdf([["Scanned invoice"]])
    docs = run_one(tmp_path, "m.eml", mail_with(pdf, "application/pdf", "scan.dat"))
    assert (docs["m.eml#att/1/scan.dat"]["kind"], docs["m.eml#att/1/scan.dat"]["status"]) == (
        "pdf", "ok",
    )  # fmt: skip


def test_a_winmail_dat_that_is_not_tnef_reads_as_any_file_and_other_dat_files_are_not_claimed() -> (
    None
):
    from indexer.registry import default_registry

    text = b"id;value\n1;2\n\nsecond paragraph\n"
    assert indexer.extract("winmail.dat", text) == indexer.extract("table.txt", text)
    assert indexer.extract("WINMAIL.DAT", b"\x00\x01\x02binary").skipped == "binary: not TNEF"
    assert default_registry().for_path("dumps/table.dat").name != "tnef"  # a data dump
    failed = indexer.extract("x.tnef", b"not a stream at all")
    assert (failed.status, failed.error) == ("failed", "corrupt: not TNEF (no TNEF signature)")


def _notes(data: bytes) -> list[str]:
    result = extract(data, "winmail.dat", DEFAULT_OPTIONS)
    assert result.chunks and all(c.text.strip() for c in result.chunks)
    return list(result.metadata.get("notes", []))


def _boundaries(data: bytes) -> set[int]:
    at, found = len(_HEAD), {len(_HEAD)}
    while at < len(data):
        at += 11 + int.from_bytes(data[at + 5 : at + 9], "little")
        found.add(at)
    return found


def test_a_stream_cut_anywhere_gives_what_was_read_and_says_it_was_cut() -> None:
    whole = _boundaries(SAMPLE)
    for end in range(len(_HEAD) + 1, len(SAMPLE)):
        result = extract(SAMPLE[:end], "winmail.dat", DEFAULT_OPTIONS)
        assert result.chunks, end
        if end not in whole:  # a cut between two attributes is a shorter stream, no damage
            assert result.degraded and result.metadata["notes"], end
    cut = SAMPLE[: SAMPLE.index(b"Revenue")]
    notes = _notes(cut)
    assert notes and notes[0].startswith("cut short: an attribute of")
    assert "Quarterly figures" in extract(cut, "w.dat", DEFAULT_OPTIONS).text


def test_lying_lengths_and_counts_stop_at_the_bytes_there_are() -> None:
    huge = attribute(1, 0x8004, b"Subject\0", kind=0x0001)
    lying = _HEAD + huge[:5] + (2**32 - 1).to_bytes(4, "little") + huge[9:]
    assert _notes(lying)[0].startswith("cut short: an attribute of 4294967295 bytes")
    count = (2**32 - 1).to_bytes(4, "little")
    many = tnef_file(subject="S") + attribute(1, 0x9003, count + mapi_block({0x1000: "x"})[4:])
    assert _notes(many) == ["the message's properties cut short"]
    values = count + b"\x1f\x10\x00\x10" + count  # one multi-valued string claiming 2**32
    assert _notes(tnef_file(subject="S") + attribute(1, 0x9003, values)) == [
        "the message's properties cut short"
    ]


def test_a_wrong_checksum_is_noted_and_the_text_kept() -> None:
    body = attribute(1, 0x800C, b"Kept words.", kind=0x0002, checksum=1)
    result = extract(_HEAD + body, "winmail.dat", DEFAULT_OPTIONS)
    assert result.text == "Kept words."
    assert result.metadata["notes"] == ["1 attributes with a wrong checksum"]


def test_a_huge_attribute_count_is_cut_at_the_limit() -> None:
    tiny = attribute(1, 0x0001, b"")
    data = _HEAD + attribute(1, 0x8004, b"Many\0", kind=0x0001) + tiny * MAX_ATTRIBUTES
    assert _notes(data) == [f"more than {MAX_ATTRIBUTES} attributes: the rest not read"]


def test_bytes_after_the_last_attribute_are_noted() -> None:
    assert _notes(SAMPLE + b"\xffjunk") == ["5 bytes after the last attribute not read"]
