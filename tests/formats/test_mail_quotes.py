"""Mail bodies as chunks: own text, quotes (`meta.quoted`), signatures, forwards; threads."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import replace

import mailthreads as threads_module
import pytest
from sharedfiles import FORMATS

from indexer._types import DEFAULT_OPTIONS, Extracted
from indexer.formats import eml, msg
from indexer.formats.eml.threads import Mail, group, normalize_subject, thread_of

KEEP = replace(DEFAULT_OPTIONS, mail_keep_quotes=True)


def _mail(body: str, *, html: bool = False, subject: str = "Re: Plans", extra: str = "") -> bytes:
    kind = "html" if html else "plain"
    return (
        f"From: Bob <bob@example.org>\nTo: Alice <alice@example.org>\nSubject: {subject}\n{extra}"
        f"Content-Type: text/{kind}; charset=utf-8\n\n{body}"
    ).encode()


def _parts(result: Extracted) -> list[tuple[str, bool, str]]:
    return [(c.meta["part"], c.meta.get("quoted", False), c.text) for c in result.chunks[1:]]


def test_quoted_paragraphs_are_chunks_of_their_own_marked_quoted_without_markers() -> None:
    body = "Yes, Friday.\n\nOn Mon, 3 Jun 2024, Alice <alice@example.org> wrote:\n> Friday?\n"
    result = eml.extract(_mail(body), "m.eml", DEFAULT_OPTIONS)
    assert _parts(result) == [
        ("body", False, "Yes, Friday."),
        ("quoted", True, "On Mon, 3 Jun 2024, Alice <alice@example.org> wrote:"),
        ("quoted", True, "Friday?"),
    ]


def test_keep_quotes_gives_the_body_as_written() -> None:
    body = "Yes, Friday.\n\n> Friday?\n\n-- \nBob\n"
    result = eml.extract(_mail(body), "m.eml", KEEP)
    assert _parts(result) == [
        ("body", False, "Yes, Friday."),
        ("body", False, "> Friday?"),
        ("body", False, "-- \nBob"),
    ]


def test_gmail_html_quote_is_quoted() -> None:
    body = (
        '<div dir="ltr">See you there.</div><br><div class="gmail_quote"><div class="gmail_attr">'
        "On Mon, Jun 3, 2024 at 10:00 AM Alice &lt;alice@example.org&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote">Where is it?<br><blockquote>deeper</blockquote>'
        "</blockquote></div>"
    )
    parts = _parts(eml.extract(_mail(body, html=True), "m.eml", DEFAULT_OPTIONS))
    assert parts[0] == ("body", False, "See you there.")
    assert [p[1] for p in parts[1:]] == [True] * (len(parts) - 1)
    assert "Where is it?" in [p[2] for p in parts] and "deeper" in [p[2] for p in parts]


def test_outlook_html_reply_container_quotes_the_rest_in_any_language() -> None:
    body = (
        '<div>Agreed.</div><hr><div id="divRplyFwdMsg"><b>Kimden:</b> Alice<br>'
        "<b>Gönderildi:</b> Pazartesi</div><div>Eski metin burada.</div>"
    )
    parts = _parts(eml.extract(_mail(body, html=True), "m.eml", DEFAULT_OPTIONS))
    assert parts[0] == ("body", False, "Agreed.")
    assert ("quoted", True, "Eski metin burada.") in parts
    assert not any("zzindexer" in p[2] for p in parts)


def test_an_html_blockquote_inside_a_table_is_quoted() -> None:
    body = "<p>New.</p><table><tr><td>cell<blockquote>old words</blockquote></td></tr></table>"
    parts = _parts(eml.extract(_mail(body, html=True), "m.eml", DEFAULT_OPTIONS))
    assert ("quoted", True, "old words") in parts and ("body", False, "New.") in parts


def test_a_forward_is_indexed_as_forwarded_text() -> None:
    body = (
        "FYI\n\n-----Original Message-----\nFrom: Carol\nSent: Monday\nSubject: Report\n\n"
        "The report body.\n"
    )
    parts = _parts(eml.extract(_mail(body, subject="FW: Report"), "m.eml", DEFAULT_OPTIONS))
    assert parts[-1] == ("forwarded", False, "The report body.")


def test_a_message_that_is_only_a_quote_keeps_it_as_quoted_chunks() -> None:
    parts = _parts(eml.extract(_mail("> only\n> quoted\n"), "m.eml", DEFAULT_OPTIONS))
    assert parts == [("quoted", True, "only\nquoted")]


def test_mixed_charset_parts_are_each_decoded_and_split() -> None:
    latin = "Grüße, ja.\n\n> Schöne Grüße?\n".encode("latin-1")
    utf8 = "日本語の返事\n\n> 古いテキスト\n".encode()
    mime = (
        b"From: a@x.org\nSubject: Re: x\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
        b"Content-Type: text/plain; charset=iso-8859-1\n\n" + latin + b"\n--b\n"
        b"Content-Type: text/plain; charset=utf-8\n\n" + utf8 + b"\n--b--\n"
    )
    assert _parts(eml.extract(mime, "m.eml", DEFAULT_OPTIONS)) == [
        ("body", False, "Grüße, ja."),
        ("quoted", True, "Schöne Grüße?"),
        ("body", False, "日本語の返事"),
        ("quoted", True, "古いテキスト"),
    ]


def test_the_document_text_keeps_the_whole_body() -> None:
    body = "New.\n\n> old\n\n-- \nBob\n"
    result = eml.extract(_mail(body), "m.eml", DEFAULT_OPTIONS)
    assert all(word in result.text for word in ("New.", "old", "Bob"))


# threads


def _id(root: str) -> str:
    return hashlib.sha256(root.encode()).hexdigest()[:24]


def test_thread_id_is_the_references_root_else_in_reply_to_else_own_id() -> None:
    assert thread_of(references=["<a@x> <b@x>"], in_reply_to="<b@x>").id == _id("<a@x>")
    assert thread_of(in_reply_to="<b@x>", message_id="<c@x>").id == _id("<b@x>")
    assert thread_of(message_id="<c@x>").id == _id("<c@x>")
    assert thread_of(references=["<a@x> <b@x>"]).parent == "<b@x>"
    assert thread_of(in_reply_to="<b@x>", references=["<a@x>"]).parent == "<b@x>"
    assert thread_of(message_id="<c@x>").parent == ""


def test_without_ids_the_thread_is_the_normalised_subject_and_the_people() -> None:
    first = thread_of(subject="Budget", people=["Alice <a@x.org>", "b@x.org"])
    reply = thread_of(subject="AW: RE[2]: Budget", people=["B@x.org", "Alice <A@x.org>"])
    other = thread_of(subject="Re: Budget", people=["c@x.org", "a@x.org"])
    assert first.id == reply.id != other.id


@pytest.mark.parametrize(
    "subject",
    ["Re: Budget", "AW: Budget", "SV: Budget", "Fwd: Budget", "WG: AW: Budget", "TR: Budget",
     "RE[2]: Budget", "Re: [finance] Re: Budget", "回复: Budget", "Antw: Budget", "  re:budget"],
)  # fmt: skip
def test_reply_and_forward_prefixes_are_dropped_from_the_subject(subject: str) -> None:
    assert normalize_subject(subject) == "budget"


def test_every_message_record_has_a_thread_from_its_headers() -> None:
    extra = "Message-ID: <r@x>\nIn-Reply-To: <p@x>\nReferences: <root@x> <p@x>\n"
    result = eml.extract(_mail("hi", extra=extra), "m.eml", DEFAULT_OPTIONS)
    assert result.metadata["thread"] == {"id": _id("<root@x>"), "parent": ""}


def test_generated_threads_keep_every_new_word_and_leak_no_quoted_word() -> None:
    recall, leaked = threads_module.scores(threads_module.threads(7, 27))
    assert recall >= 0.99 and leaked <= 0.02


def test_the_corpus_pass_groups_replies_that_lost_their_threading_headers() -> None:
    mails = threads_module.threads(3, 18)
    docs = [eml.extract(m.mime, "", DEFAULT_OPTIONS) for m in mails]
    grouped = group([_as_mail(str(n), d) for n, d in enumerate(docs)])
    ids = [grouped[str(n)][0] for n in range(len(mails))]
    for a, b in itertools.combinations(range(len(mails)), 2):
        assert (ids[a] == ids[b]) == (mails[a].thread == mails[b].thread)
    alone = {d.metadata["thread"]["id"] for d in docs}
    assert len(alone) > len(set(ids))  # one message at a time cannot group them all


def test_the_corpus_pass_names_each_reply_its_parent_in_any_order() -> None:
    root = Mail(key="a", message_id="<a@x>", subject="Plan", people=["p@x", "q@x"])
    reply = Mail(key="b", message_id="<b@x>", in_reply_to="<a@x>", subject="Re: Plan")
    lost = Mail(key="c", message_id="<c@x>", subject="AW: Plan", people=["q@x"],
                date="Tue, 2 Jan 2024 10:00:00 +0000")  # fmt: skip
    first = group([root, reply, lost])
    assert first == group([lost, reply, root])
    assert first["b"] == (first["a"][0], "a") and first["c"] == (first["a"][0], "a")
    assert first["a"][1] == ""


def _as_mail(key: str, doc: Extracted) -> Mail:
    meta = doc.metadata
    return Mail(
        key=key, message_id=meta["message_id"], in_reply_to=meta.get("in_reply_to", ""),
        references=meta.get("references", []), subject=meta["subject"],
        people=[meta["from"], meta["to"]], date=meta["date"],
    )  # fmt: skip


def test_an_outlook_msg_body_is_split_as_a_mail_is() -> None:
    path = FORMATS / "tika" / "testMSG.msg"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    found = msg.extract(path.read_bytes(), "", DEFAULT_OPTIONS)
    parts = [(c.meta["part"], c.text) for c in found.chunks]
    assert parts[-2:] == [("signature", "BR,"), ("signature", "Jukka Zitting")]
    assert parts[1] == ("body", "Hi,")


def test_an_html_signature_container_is_the_signature() -> None:
    body = (
        '<div dir="ltr">The plan stands.<br><br><div class="gmail_signature">'
        "Bob Chen<br>Head of Logistics</div></div>"
    )
    parts = _parts(eml.extract(_mail(body, html=True), "m.eml", DEFAULT_OPTIONS))
    assert parts[0] == ("body", False, "The plan stands.")
    assert [p[0] for p in parts[1:]] == ["signature"] * (len(parts) - 1)
    assert "Head of Logistics" in parts[-1][2]


def test_text_that_is_not_a_mail_is_not_split() -> None:
    text = b"  a note\nFrom: a@x.org\nSent: Monday\nTo: b@x.org\n\nbody\n"
    result = eml.extract(text, "m.eml", DEFAULT_OPTIONS)
    assert result.degraded and {c.meta["part"] for c in result.chunks} == {"body"}
