"""The `eml` extractor: reference cases, fixtures, the real-world corpus, and fuzzing.

Divergences from the reference implementation are listed, with reasons, in
docs/compat.md (section `eml`); each has its own literal expectation below.
"""

from __future__ import annotations

import email
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from email.header import decode_header
from email.policy import compat32
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples
from sharedfiles import CORPUS, NO_CORPUS, NO_GOLDEN, corpus_rows, golden_cases, or_skip

import indexer
from indexer._types import DEFAULT_OPTIONS, Extracted, Options
from indexer.formats import eml
from indexer.formats.eml.decode import _ENCODED_WORD, _decode_header
from indexer.formats.eml.mime import (
    Attachment,
    decode_bytes,
    header_text,
    iter_attachments,
    parse_message,
)
from indexer.formats.eml.scan import parse_shallow

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "eml"

H, B = "headers", "body"


def _corpus_mails() -> list[str]:
    rows = corpus_rows()
    return [
        r["relpath"] for r in rows if r["relpath"].startswith("email-") and r["format"] == "eml"
    ]


def _parts(result: Extracted) -> list[tuple[str, str]]:
    return [(c.meta["part"], c.text) for c in result.chunks]


def _corpus(relpath: str) -> Extracted:
    path = CORPUS / relpath
    if not path.exists():
        pytest.skip(NO_CORPUS)
    return eml.extract(path.read_bytes(), relpath, DEFAULT_OPTIONS)


def _fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


# Our output where it differs from the reference's; every row is in docs/compat.md (`eml`).
DIVERGENT: dict[str, list[tuple[str, str]]] = {
    "eml_header_order_dupes": [
        (H, "Date: Mon, 1 Jan 2024\nTo: a@x\nTo: b@x\nCc: c@x\nSubject: Up\nFrom: z@x"),
        (B, "body"),
    ],
    "eml_space_in_name": [(H, "From: a@x"), (B, "body")],
    "eml_multipart_preamble": [(H, "From: a@x"), (B, "part one"), (B, "part one b")],
    "eml_multipart_nested": [(H, "Subject: n"), (B, "inner plain")],
    "eml_multipart_upper": [(B, "plain")],
    "eml_multipart_only_html": [(B, "only html")],
    "eml_base64_plain": [(H, "Subject: b64"), (B, "hello world")],
    "eml_qp": [(H, "Subject: qp"), (B, "café softbreak")],
    "eml_rfc2047": [(H, "Subject: Hello World\nFrom: André <a@x>"), (B, "body")],
    "eml_attachment_text_plain": [(B, "main text")],
}


def test_the_reference_has_28_eml_cases_and_we_know_each_divergent_one() -> None:
    cases = golden_cases("eml")
    if not cases:
        pytest.skip(NO_GOLDEN)
    names = {c["name"] for c in cases}
    assert len(cases) == 28
    assert set(DIVERGENT) <= names


@pytest.mark.parametrize("case", or_skip(golden_cases("eml"), NO_GOLDEN), ids=lambda c: c["name"])
def test_reference_case(case: dict[str, Any]) -> None:
    data = case["input"].encode() if "input" in case else bytes.fromhex(case["input_hex"])
    result = indexer.extract(case["path"], data)
    assert result.kind == "eml"
    assert result.error is None
    texts = [c.text for c in result.chunks]
    if case["name"] in DIVERGENT:
        assert _parts(result) == DIVERGENT[case["name"]]
        assert texts != case["chunks"]
    else:
        assert texts == case["chunks"]
        assert result.text == case["text"]


def test_reference_header_only_mail_without_salient_headers_degrades_to_its_raw_text() -> None:
    result = indexer.extract("m.eml", b"X-Foo: bar\n\n")
    assert _parts_or_none(result) == [(None, "X-Foo: bar")]
    assert result.degraded


def _parts_or_none(result: Extracted) -> list[tuple[str | None, str]]:
    return [(c.meta.get("part"), c.text) for c in result.chunks]


def test_input_that_is_not_a_mail_is_body_paragraphs_marked_degraded() -> None:
    result = eml.extract(b" leading continuation\nSubject: s\n\nb", "m.eml", DEFAULT_OPTIONS)
    assert _parts(result) == [(B, "leading continuation\nSubject: s"), (B, "b")]
    assert result.degraded
    assert result.metadata == {}


def test_threading_headers_go_to_metadata_in_a_fixed_order() -> None:
    result = eml.extract(_fixture("ok_threading.eml"), "ok_threading.eml", DEFAULT_OPTIONS)
    assert result.metadata == {
        "message_id": "<reply-2@example.org>",
        "in_reply_to": "<root-1@example.org>",
        "references": ["<root-0@example.org>", "<root-1@example.org>"],
        "subject": "Re: Café plans",
        "from": "Zöe Example <zoe@example.org>",
        "to": "a@example.org, b@example.org",
        "date": "Tue, 2 Jan 2024 10:00:00 +0000",
        # the thread's root is the first References id
        "thread": {"id": hashlib.sha256(b"<root-0@example.org>").hexdigest()[:24], "parent": ""},
    }
    assert list(result.metadata) == [
        "message_id",
        "in_reply_to",
        "references",
        "subject",
        "from",
        "to",
        "date",
        "thread",
    ]


def test_header_summary_keeps_message_order_and_duplicates_and_skips_empty_values() -> None:
    result = eml.extract(_fixture("ok_threading.eml"), "ok_threading.eml", DEFAULT_OPTIONS)
    assert _parts(result) == [
        (
            H,
            "From: Zöe Example <zoe@example.org>\nTo: a@example.org\nTo: b@example.org\n"
            "Date: Tue, 2 Jan 2024 10:00:00 +0000\nSubject: Re: Café plans",
        ),
        (B, "Sounds good."),
        ("signature", "-- \nZoë"),  # after the `-- ` delimiter
    ]
    assert result.text == "\n\n".join(c.text for c in result.chunks)


def test_lying_unknown_and_bytes_codec_charsets_decode_without_mojibake() -> None:
    result = eml.extract(_fixture("bad_lying_charsets.eml"), "x.eml", DEFAULT_OPTIONS)
    assert _parts(result)[1:] == [
        (B, "Grüße aus Köln"),  # declared iso-8859-1, really UTF-8
        (B, "Größe: 5 Äpfel"),  # declared utf-8, really Latin-1
        (B, "café crème"),  # an unknown charset, quoted-printable UTF-8
        (B, "plain ascii"),  # charset="base64", a bytes-to-bytes codec
        (B, "Frösche"),  # UTF-7, which looks like ASCII
    ]


def test_html_only_mail_is_rendered_without_scripts_and_in_its_charset() -> None:
    result = eml.extract(_fixture("ok_html_only.eml"), "x.eml", DEFAULT_OPTIONS)
    body = "\n".join(text for part, text in _parts(result) if part == B)
    assert "Quarterly results: revenue up" in body
    assert "Café menu – today" in body
    assert "evil" not in result.text
    assert "color: red" not in result.text


def test_a_failing_html_renderer_still_gives_the_visible_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(text: str, options: Options) -> Extracted:
        raise RuntimeError("renderer bug")

    monkeypatch.setattr(eml.body.html, "chunk", broken)
    result = eml.extract(_fixture("ok_html_only.eml"), "x.eml", DEFAULT_OPTIONS)
    assert _parts(result) == [
        (H, "From: news@example.org\nSubject: html only"),
        (B, "Quarterly results: revenue up"),
        (B, "Café menu – today"),
    ]


def test_chunker_form_parses_text_as_a_mail() -> None:
    text = "Subject: =?utf-8?q?caf=C3=A9?=\r\n\r\nBody one.\r\n\r\nBody two."
    assert _parts(eml.chunk(text, DEFAULT_OPTIONS)) == [
        (H, "Subject: café"),
        (B, "Body one."),
        (B, "Body two."),
    ]


def test_attachments_are_found_named_safely_and_not_entered() -> None:
    message = parse_message(_fixture("ok_attachments.eml"))
    inner = (
        b"From: inner@example.org\nSubject: the forwarded one\n"
        b'Content-Type: multipart/mixed; boundary="IN"\n\n'
        b"--IN\nContent-Type: text/plain\n\ninner body\n"
        b'--IN\nContent-Type: application/pdf; name="inner.pdf"\n'
        b"Content-Transfer-Encoding: base64\n\nJVBERi0xLjQ=\n--IN--\n"
    )
    assert list(iter_attachments(message)) == [
        Attachment(
            filename="Résumé.pdf",
            content_type="application/pdf",
            data=b"%PDF-1.4\n% fixture",
            index=1,
        ),
        Attachment(
            filename="part-2.bin", content_type="application/octet-stream", data=b"\0\1\2", index=2
        ),
        Attachment(
            filename="notes_txt.exe", content_type="text/plain", data=b"not body text", index=3
        ),
        Attachment(filename="part-4.eml", content_type="message/rfc822", data=inner, index=4),
        Attachment(
            filename="part-5.png", content_type="image/png", data=b"\x89PNG\r\n\x1a\n", index=5
        ),
    ]


def test_a_base64_encoded_enclosed_message_is_handed_out_decoded() -> None:
    inner = b"From: inner@example.org\nSubject: hidden\n\ninner body\n"
    data = (
        b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nbody\n"
        b"--B\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n"
        b"RnJvbTogaW5uZXJAZXhhbXBsZS5vcmcKU3ViamVjdDogaGlkZGVuCgppbm5lciBib2R5Cg==\n--B--\n"
    )
    assert [(a.filename, a.data) for a in iter_attachments(parse_message(data))] == [
        ("part-1.eml", inner)
    ]


def test_attachments_and_enclosed_messages_are_not_body_text() -> None:
    result = eml.extract(_fixture("ok_attachments.eml"), "x.eml", DEFAULT_OPTIONS)
    assert _parts(result) == [
        (H, "From: sender@example.org\nTo: receiver@example.org\nSubject: report attached"),
        (B, "See the attached report."),
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("=?utf-8?q?a?= =?utf-8?q?b?=", "ab"),
        ("=?utf-8?q?Hello?= World", "Hello World"),
        ("a very\r\n long subject\n\tcontinued", "a very long subject continued"),
        ("=?x-bogus?q?caf=E9?=", "café"),
        ("=?utf-8?q?caf=E9?=", "café"),
        ("=?utf-8?b?!!!?= kept", "kept"),
        ("=?iso-2022-jp?B?GyRCRnxLXDhsGyhC?=", "日本語"),
        ("J\udcfcrgen", "Jürgen"),
    ],
)
def test_header_text_decodes_without_raising(raw: str, expected: str) -> None:
    assert header_text(raw) == expected


def test_raw_8bit_headers_are_read_in_the_charset_given() -> None:
    assert header_text("Fr\udcf6sche", "iso-8859-15") == "Frösche"
    assert header_text("\udcd5\udcc5\udccf\udcc8\udcc9\udcfa", "gb2312") == "张先生"


def test_very_long_headers_decode_every_word() -> None:
    raw = " ".join(["=?utf-8?q?caf=C3=A9?= x"] * 3000)
    assert header_text(raw) == " ".join(["café x"] * 3000)


@pytest.mark.parametrize(
    ("data", "charset", "expected"),
    [
        (b"caf\xc3\xa9", "iso-8859-1", "café"),
        (b"Gr\xf6\xdfe", "utf-8", "Größe"),
        (b"Gr\xf6\xdfe", None, "Größe"),
        (b"Gr\xf6\xdfe", "undefined", "Größe"),
        (b"a\r\nb\rc", "us-ascii", "a\nb\nc"),
        (b"\xff\xfeh\x00i\x00", None, "hi"),
        (b"x\x00y", "no\x00such", "x\x00y"),
    ],
)
def test_decode_bytes_never_raises_and_never_guesses_wildly(
    data: bytes, charset: str | None, expected: str
) -> None:
    assert decode_bytes(data, charset) == expected


# --- the real-world corpus -------------------------------------------------


def test_rfc2047_subject_is_decoded() -> None:
    result = _corpus("email-flanker/bilingual-simple.eml")
    assert result.metadata["subject"] == "Simple text. How are you? Как ты поживаешь?"
    assert _parts(result)[1] == (B, "This line is in English\nА эта линия по-русски.")


def test_iso_2022_jp_subject_and_body_are_decoded() -> None:
    result = _corpus("email-mimekit/japanese.eml")
    assert result.metadata["subject"] == "日本語メールテスト (testing Japanese emails)"
    assert (B, "日本語が\n正常に\n送れているか\nテスト.") in _parts(result)


def test_base64_body_is_decoded() -> None:
    result = _corpus("email-cpython/msg_10.eml")
    assert _parts(result)[1:] == [
        (B, "This is a 7bit encoded message."),
        (B, "This is a Base64 encoded message."),
        (B, "This is a Base64 encoded message."),
        (B, "This has no Content-Transfer-Encoding: header."),
    ]  # the quoted-printable part is text/html: not used when there is text/plain


def test_latin1_body_and_raw_8bit_header_are_decoded() -> None:
    result = _corpus("email-mail-mime-parser/m0001.eml")
    assert result.metadata["to"] == '"Jürgen Schmürgen" <schmuergen@example.com>'
    assert _parts(result)[1] == (B, "Die Hasen und die Frösche")


def test_gb2312_body_is_decoded() -> None:
    result = _corpus("email-spamscope-mail-parser/mail_test_12.eml")
    assert result.metadata["subject"] == "代开各地增值税发票"
    assert _parts(result)[1][1].startswith("你好！我公司可代开各类增值税发票")


def test_a_stray_byte_does_not_turn_utf8_into_mojibake() -> None:
    result = _corpus("email-spamscope-mail-parser/mail_test_6.eml")  # html, declared UTF-8
    body = "\n".join(text for part, text in _parts(result) if part == B)
    assert all(word in body for word in ("Профиль", "Сообщения", "Контакты"))
    assert "袩褉芯" not in body  # "Про" read as GB18030, which detection guessed


def test_nested_multipart_plain_text_is_found_in_order() -> None:
    result = _corpus("email-nodemailer-mailparser/nested.eml")
    assert _parts(result) == [
        (H, "From: u@example.com"),
        (B, "Dear Sir,"),
        (B, "Good evening."),
        (B, "The footer"),
    ]


def test_a_boundary_folded_by_outlook_still_splits_the_parts() -> None:
    result = _corpus("email-mail-mime-parser/m0021.eml")
    assert _parts(result)[1] == (B, "The Hare and the Tortoise")
    assert "NextPart" not in result.text


def test_delivery_status_mail_that_breaks_policy_default_extracts() -> None:
    # policy.default raises AttributeError reading this mail's headers
    result = _corpus("email-mimekit/delivery-status.eml")
    assert _parts(result) == [
        (
            H,
            "From: The Post Office <postmaster@mm1.sprynet.com>\n"
            "Subject: email delivery error\n"
            "Cc: The Postmaster <postmaster@mm1.sprynet.com>\n"
            "To: unlisted-recipients:; (no To-header on input)\n"
            "Date: Mon, 29 Jul 1996 02:13:08 -0700",
        ),
        (B, "Processing your mail message caused the following errors:"),
        (B, "error: err.nosuchuser: newsletter-request@imusic.com"),
    ]
    assert result.metadata["message_id"] == (
        "<96Jul29.022158-0700pdt.148226-12799+708@mm1.sprynet.com>"
    )


def test_html_only_corpus_mail_has_its_html_text_in_the_body() -> None:
    result = _corpus("email-flanker/long-links.eml")
    body = "\n".join(text for part, text in _parts(result) if part == B)
    assert "THis is very long url" in body


def test_uuencoded_and_pdf_attachments_are_decoded() -> None:
    path = CORPUS / "email-mail-mime-parser/m1014.eml"
    if not path.exists():
        pytest.skip(NO_CORPUS)
    atts = list(iter_attachments(parse_message(path.read_bytes())))
    assert [(a.filename, a.content_type) for a in atts] == [
        ("redball.png", "image/png"),
        ("greenball.png", "image/png"),
        ("blueball.png", "image/png"),
    ]
    assert all(a.data.startswith(b"\x89PNG") for a in atts)
    pdf = list(
        iter_attachments(parse_message((CORPUS / "email-flanker/attached-pdf.eml").read_bytes()))
    )
    assert [(a.index, a.filename, a.data[:5]) for a in pdf] == [(1, "test.pdf", b"%PDF-")]


@pytest.mark.parametrize("relpath", or_skip(_corpus_mails(), NO_CORPUS))
def test_corpus_mail_keeps_the_invariants(relpath: str) -> None:
    data = (CORPUS / relpath).read_bytes()
    result = indexer.extract(relpath, data)
    assert result.error is None, "the extractor raised"
    assert result.chunks, "non-empty input gives at least one chunk"
    assert all(c.text.strip() for c in result.chunks)
    assert all(len(c.text) <= DEFAULT_OPTIONS.max_chunk_chars for c in result.chunks)
    assert indexer.extract(relpath, data) == result
    json.dumps(result.metadata)
    for att in iter_attachments(parse_message(data)):
        assert att.filename and "/" not in att.filename


def _corpus_digest() -> str:
    digest = hashlib.sha256()
    for relpath in _corpus_mails():
        data = (CORPUS / relpath).read_bytes()
        if len(data) > 100_000:  # the few big ones only cost time here
            continue
        result = eml.extract(data, relpath, DEFAULT_OPTIONS)
        chunks = [(c.text, c.meta) for c in result.chunks]
        digest.update(json.dumps([chunks, result.metadata, result.degraded]).encode())
    return digest.hexdigest()


@pytest.mark.slow
def test_corpus_output_is_identical_in_another_process() -> None:
    if not _corpus_mails():
        pytest.skip(NO_CORPUS)
    code = "import test_extract_eml as t; print(t._corpus_digest())"
    # The child imports this module and its helpers from where this process found them.
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == _corpus_digest()


# --- fuzzing ---------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        b"From: a@x\n",
        b"Subject: =?utf-8?b?w6k=?=\n",
        b"Subject: =?bogus?q?=FF?=\n",
        b"To: \xff\xfe\n",
        b"Content-Type: multipart/mixed; boundary=Z\n",
        b"Content-Type: text/plain; charset=utf-16\n",
        b"Content-Type: text/html; charset=x-nope\n",
        b"Content-Type: message/rfc822\n",
        b"Content-Transfer-Encoding: base64\n",
        b"Content-Transfer-Encoding: quoted-printable\n",
        b"Content-Transfer-Encoding: x-uuencode\n",
        b"Content-Disposition: attachment; filename*=bogus''%FF%2F\n",
        b"\n",
        b"--Z\n",
        b"--Z--\n",
        b"=C3=A9=\n",
        b"aGVsbG8=\n",
        b"begin 644 x\n",
        b"<p>hi</p>\n",
        b" folded\n",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.binary(max_size=400), st.lists(_FRAGMENTS, max_size=30).map(b"".join)))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = eml.extract(data, "fuzz.eml", Options())
    parts = (H, B, "quoted", "forwarded", "signature", "disclaimer")
    assert all(c.meta["part"] in parts for c in result.chunks)
    assert all(
        isinstance(a.data, bytes) and a.filename for a in iter_attachments(parse_message(data))
    )
    json.dumps(result.metadata)


def test_stdlib_compat32_is_what_we_parse_with() -> None:
    # The premise of the speed and robustness numbers in docs/compat.md (`eml`).
    message = parse_message(b"Subject: x\n\nbody")
    assert message.policy is compat32
    assert isinstance(message, email.message.Message)


# --- shallow parse (the extractor's own, faster parse) -----------------------


def _tree(message: email.message.Message) -> list[tuple[Any, ...]]:
    """The parse as `eml` reads it: every part, but not inside `message/*` parts."""
    out: list[tuple[Any, ...]] = []
    stack = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        enclosed = part.get_content_maintype() == "message"
        payload = part.__dict__["_payload"]
        kept = None if enclosed else len(payload) if isinstance(payload, list) else payload
        headers = list(part.raw_items())
        out.append((depth, headers, part.get_unixfrom(), part.preamble, part.epilogue, kept))
        out.append((part.get_default_type(),))
        if isinstance(payload, list) and not enclosed:
            stack.extend((p, depth + 1) for p in reversed(payload))
    return out


def _parse_both(data: bytes) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    return _tree(parse_message(data)), _tree(parse_shallow(data))


@pytest.mark.slow
def test_shallow_parse_builds_the_stdlib_tree_for_every_corpus_mail_and_fixture() -> None:
    paths = [CORPUS / r for r in _corpus_mails()] + sorted(FIXTURES.iterdir())
    for path in paths:
        if path.is_file():
            stdlib, shallow = _parse_both(path.read_bytes())
            assert shallow == stdlib, path


def test_shallow_parse_keeps_an_enclosed_message_as_text() -> None:
    message = parse_shallow(
        b"Content-Type: multipart/mixed; boundary=Z\n\n--Z\n\nhi\n--Z\n"
        b"Content-Type: message/rfc822\n\nSubject: inner\n\ninner body\n--Z--\n"
    )
    enclosed = message.get_payload()[1]
    assert enclosed.get_payload() == "Subject: inner\n\ninner body"


@pytest.mark.parametrize(
    "data",
    [
        b"Subject: x\nFrom y\n\nbody",  # an envelope-like last header line: pushed into the body
        b"Content-Type: multipart/mixed; boundary=Z\n\n--Z\n",  # a boundary, then the end
        b"Content-Type: multipart/mixed; boundary=Z\n\n"
        + b"--Z\nContent-Type: multipart/mixed; boundary=Y\n\n--Y\n--Z\n--Z--\n",
        b"From me Mon Jan 1\nSubject: x\nFrom other\nTo: y\n\nbody",
        b"Content-Type: multipart/digest; boundary=Z\n\n--Z\n\nSubject: d\n\nx\n--Z--\n",
        b"Content-Type: multipart/mixed; boundary=Z\r\rpre\r--Z\rA: b\r\rx\r--Z--\repi",
        b"Content-Type: multipart/mixed; boundary=Z\n\n--Z--\nafter the close\n",
    ],
)
def test_shallow_parse_follows_the_stdlib_on_rare_structures(data: bytes) -> None:
    stdlib, shallow = _parse_both(data)
    assert shallow == stdlib


def test_shallow_parse_of_absurd_nesting_is_the_stdlib_parse() -> None:
    depth = 600  # deeper than the scanner's recursion allows, not the feed parser's
    data = b"".join(
        b"Content-Type: multipart/mixed; boundary=B%d\n\n--B%d\n" % (i, i) for i in range(depth)
    )
    try:
        stdlib = _tree(parse_message(data + b"\nbottom\n"))
    except RecursionError:
        pytest.skip("the standard parser itself gives up at this depth here")
    assert _tree(parse_shallow(data + b"\nbottom\n")) == stdlib


_STRUCTURE = st.sampled_from(
    [
        b"From x Mon Jan 1\n",
        b"Content-Type: multipart/digest; boundary=Z\n",
        b"Content-Type: multipart/alternative; boundary=Y\n",
        b"Content-Type: message/delivery-status\n",
        b"--Y\n",
        b"--Y--\n",
        b"--Z--  \r\n",
        b"--Z\r",
        b"\r\n",
        b"\r",
        b":x\n",
        b"no header\n",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_FRAGMENTS | _STRUCTURE, max_size=30).map(b"".join))
def test_shallow_parse_matches_the_stdlib_parse(data: bytes) -> None:
    stdlib, shallow = _parse_both(data)
    assert shallow == stdlib


# --- encoded words (the decoder's own decode_header) --------------------------

_WORD_PIECES = st.sampled_from(
    [
        *("=?utf-8?q?", "=?UTF-8?B?", "=?iso-8859-1?Q?", "?=", "=C3=A9", "=e9", "=4", "=", "_"),
        *(" ", "\t", "\n", "\r", "\x0b", "w6k", "w6k=", "abc", "=?", "?", "é", "\udc80", "€"),
    ]
)


def _outcome(decode: Callable[[str], Any], value: str) -> tuple[str, Any]:
    try:
        return "ok", decode(value)
    except Exception as exc:  # which exception is raised is part of what is compared
        return "raised", type(exc)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(_WORD_PIECES, max_size=16).map("".join))
def test_decode_header_is_the_stdlib_decode_header(value: str) -> None:
    assert _outcome(_decode_header, value) == _outcome(decode_header, value)


@pytest.mark.slow
def test_decode_header_is_the_stdlib_decode_header_on_corpus_headers() -> None:
    paths = [CORPUS / r for r in _corpus_mails()] + sorted(FIXTURES.iterdir())
    for path in paths:
        for _, raw in parse_message(path.read_bytes()).raw_items():
            value = " ".join(str(raw).split())[:4096]
            assert _outcome(_decode_header, value) == _outcome(decode_header, value), path


def test_encoded_word_pattern_is_the_stdlib_one() -> None:
    stdlib = email.header.ecre  # type: ignore[attr-defined]
    assert _ENCODED_WORD.flags == stdlib.flags & ~re.VERBOSE
    assert _ENCODED_WORD.pattern == re.sub(r"\s+|#.*", "", stdlib.pattern)


NUL_CHARSETS = (
    b"From: a@example.com\r\nSubject: s\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="XX"\r\n\r\n--XX\r\n'
    b'Content-Type: text/plain; charset="utf\x00-8"\r\n\r\nCaf\xc3\xa9 numbers\r\n--XX\r\n'
    b'Content-Type: application/octet-stream; charset="x\x00y"\r\n'
    b'Content-Disposition: attachment; filename="a.txt"\r\n\r\nr\xc3\xa9sum\xc3\xa9\r\n--XX--\r\n'
)
"""A damaged mail (found by test_mutants): 8-bit parts whose charset parameter holds a
NUL, which makes the email package's get_payload() raise ValueError."""


def test_a_charset_parameter_with_a_nul_neither_raises_nor_loses_the_body_or_attachment() -> None:
    from indexer.formats.eml.mime import iter_attachments, parse_message

    result = indexer.extract("damaged.eml", NUL_CHARSETS)
    assert result.error is None
    assert "Café numbers" in [c.text for c in result.chunks]
    attached = list(iter_attachments(parse_message(NUL_CHARSETS)))
    assert [a.data for a in attached] == ["résumé".encode()]  # the bytes as sent
