"""The quote, signature and forward splitter (`formats.eml.quotes`), one style at a time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

from indexer.formats.eml.quotelines import quote_depth
from indexer.formats.eml.quotes import Passage, is_forward_subject, passages


def _kinds(text: str, forward: bool = False) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in passages(text, forward=forward) if not s.header]


def _own(text: str) -> str:
    return "\n".join(s.text for s in passages(text) if s.kind == "own")


def _quoted(text: str) -> str:
    return "\n".join(s.text for s in passages(text) if s.kind == "quoted" and not s.header)


def test_top_posted_reply_quotes_with_markers_stripped_and_its_attribution_as_header() -> None:
    found = passages(
        "Fine by me.\n\nOn Mon, Jun 3, 2024 at 10:00 AM Alice <a@x.org> wrote:\n"
        "> Shall we meet?\n>\n> > older\n"
    )
    assert found == (
        Passage(kind="own", text="Fine by me."),
        Passage(
            kind="quoted",
            text="On Mon, Jun 3, 2024 at 10:00 AM Alice <a@x.org> wrote:",
            depth=1,
            header=True,
        ),
        Passage(kind="quoted", text="Shall we meet?", depth=1),
        Passage(kind="quoted", text="older", depth=2),
    )


def test_bottom_posted_reply_keeps_the_new_text_after_the_quote() -> None:
    assert _kinds("Bob wrote:\n> the question\n\nthe answer\n") == [
        ("quoted", "the question"),
        ("own", "the answer"),
    ]


def test_interleaved_reply_alternates_quoted_and_own_runs() -> None:
    text = "> one?\nanswer one\n> two?\n>> deeper\nanswer two\n"
    assert _kinds(text) == [
        ("quoted", "one?"),
        ("own", "answer one"),
        ("quoted", "two?"),
        ("quoted", "deeper"),
        ("own", "answer two"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "On Mon, 3 Jun 2024 at 10:00, Alice Martin <alice@example.com> wrote:",
        "Am Mo., 3. Juni 2024 um 10:00 Uhr schrieb Alice Martin <alice@example.com>:",
        "Le lun. 3 juin 2024 à 10:00, Alice Martin <alice@example.com> a écrit :",
        "El lun, 3 jun 2024 a las 10:00, Alice Martin (<alice@example.com>) escribió:",
        "Il giorno lun 3 giu 2024 alle ore 10:00 Alice Martin <alice@example.com> ha scritto:",
        "Op ma 3 jun. 2024 om 10:00 schreef Alice Martin <alice@example.com>:",
        "Em seg., 3 de jun. de 2024 às 10:00, Alice Martin <alice@example.com> escreveu:",
        "Den mån 3 juni 2024 kl 10:00 skrev Alice Martin <alice@example.com>:",
        "2024年6月3日(月) 10:00 Alice Martin <alice@example.com>:",
        "Alice Martin <alice@example.com> 于2024年6月3日周一 10:00写道：",
        "W dniu 3.06.2024 o 10:00 Alice Martin <alice@example.com> napisał:",
    ],
)
def test_attribution_lines_in_many_languages_head_the_quote(line: str) -> None:
    found = passages(f"Neue Antwort.\n\n{line}\n> alter Text\n")
    assert [(s.kind, s.header) for s in found] == [
        ("own", False),
        ("quoted", True),
        ("quoted", False),
    ]
    assert found[1].text == line


def test_an_attribution_wrapped_over_two_lines_is_one_header() -> None:
    text = "ok\n\nOn Mon, Jun 3, 2024 at 10:00 AM Alice Martin <\nalice@x.org> wrote:\n> q\n"
    found = passages(text)
    assert [s.kind for s in found] == ["own", "quoted", "quoted"]
    assert found[1].header and found[1].text.endswith("wrote:")


def test_outlook_original_message_and_header_blocks_quote_the_rest_nested() -> None:
    text = (
        "Ich stimme zu.\n\n"
        "Von: Alice Martin [mailto:alice@example.com]\nGesendet: Montag, 3. Juni 2024 10:00\n"
        "An: Bob Chen\nBetreff: AW: Budget\n\nDer alte Text.\n\n"
        "-----Original Message-----\nFrom: Bob\nSent: Sunday\nTo: Alice\nSubject: Budget\n\n"
        "Older text.\n"
    )
    found = [(s.kind, s.depth, s.header) for s in passages(text)]
    assert found == [
        ("own", 0, False),
        ("quoted", 1, True),
        ("quoted", 1, False),
        ("quoted", 2, True),
        ("quoted", 2, False),
    ]
    assert _quoted(text) == "Der alte Text.\nOlder text."


@pytest.mark.parametrize(
    "header",
    [
        "De : Alice\nEnvoyé : lundi 3 juin 2024 10:00\nÀ : Bob\nObjet : RE: Budget",
        "De: Alice\nEnviado el: lunes, 3 de junio de 2024 10:00\nPara: Bob\nAsunto: Budget",
        "Da: Alice\nInviato: lunedì 3 giugno 2024 10:00\nA: Bob\nOggetto: Budget",
        "Van: Alice\nVerzonden: maandag 3 juni 2024 10:00\nAan: Bob\nOnderwerp: Budget",
        "Från: Alice\nSkickat: den 3 juni 2024 10:00\nTill: Bob\nÄmne: Budget",
        "发件人: Alice\n发送时间: 2024年6月3日 10:00\n收件人: Bob\n主题: Budget",
        "From: Alice Sent: Monday, June 3, 2024 10:00 AM To: Bob Subject: Budget",
        "________________________________\nFrom: Alice\nSent: Monday\nTo: Bob",
    ],
)
def test_header_blocks_in_other_languages_and_on_one_line_start_a_quote(header: str) -> None:
    text = f"New words here.\n\n{header}\n\nOld words there.\n"
    assert _own(text) == "New words here."
    assert _quoted(text) == "Old words there."


def test_the_html_readers_cut_token_quotes_the_rest_whatever_the_language() -> None:
    from indexer.formats.eml.quotelines import CUT

    text = f"mine\n\n{CUT}\n\nXyz: Alice\nQrs: Monday\n\ntheirs\n"
    assert _own(text) == "mine"
    assert "theirs" in _quoted(text)
    assert all(CUT not in s.text for s in passages(text))


@pytest.mark.parametrize(
    "banner",
    [
        "---------- Forwarded message ---------",
        "Begin forwarded message:",
        "---------- Weitergeleitete Nachricht ----------",
        "-------- Message transféré --------",
        "---------- Mensaje reenviado ---------",
        "---------- 转发的邮件 ----------",
    ],
)
def test_forwarded_message_text_is_forwarded_not_quoted(banner: str) -> None:
    text = f"FYI.\n\n{banner}\nFrom: Carol <c@x.org>\nDate: Mon, 3 Jun 2024\n\nThe report.\n"
    assert _kinds(text) == [("own", "FYI."), ("forwarded", "The report.")]


def test_a_forward_subject_makes_the_first_header_block_forwarded() -> None:
    text = "See below.\n\n-----Original Message-----\nFrom: Carol\nSent: Monday\n\nThe report.\n"
    assert _kinds(text, forward=True)[-1] == ("forwarded", "The report.")
    assert _kinds(text)[-1] == ("quoted", "The report.")
    assert is_forward_subject("Fwd: x") and is_forward_subject("WG: x")
    assert is_forward_subject("TR: x") and not is_forward_subject("Re: x")


@pytest.mark.parametrize(
    ("body", "signature"),
    [
        ("Text.\n\n-- \nBob Chen\nACME Corp", "-- \nBob Chen\nACME Corp"),
        ("Text.\n\nSent from my iPhone", "Sent from my iPhone"),
        ("Text.\n\nVon meinem iPhone gesendet", "Von meinem iPhone gesendet"),
        ("Text.\n\nEnvoyé de mon iPhone", "Envoyé de mon iPhone"),
        ("Text.\n\nBest regards,\nBob Chen\nSales", "Best regards,\nBob Chen\nSales"),
        ("Text.\n\nMit freundlichen Grüßen\nBob", "Mit freundlichen Grüßen\nBob"),
        ("Text.\n\nBob Chen | ACME\nTel: +1 555 123 4567", "Bob Chen | ACME\nTel: +1 555 123 4567"),
    ],
)
def test_signatures_are_told_apart_from_the_text(body: str, signature: str) -> None:
    assert _kinds(body) == [("own", "Text."), ("signature", signature)]


def test_a_reply_of_only_thanks_is_its_senders_text() -> None:
    assert _kinds("Thanks!\n") == [("own", "Thanks!")]


def test_a_legal_disclaimer_is_its_own_passage() -> None:
    notice = (
        "This e-mail and any attachments are confidential and intended solely for the use "
        "of the individual to whom it is addressed. If you are not the intended recipient, "
        "delete it."
    )
    assert _kinds(f"The numbers are in.\n\n{notice}\n") == [
        ("own", "The numbers are in."),
        ("disclaimer", notice),
    ]


def test_every_line_of_a_body_is_in_exactly_one_passage() -> None:
    text = (
        "a\n\nb\n> c\nd\n-- \ne\n\nOn Mon, X wrote:\n> f\n\n"
        "-----Original Message-----\nFrom: g\nSent: h\n\ni\n"
    )
    lines = [s for seg in passages(text) for s in seg.text.split("\n") if s.strip()]
    expected = [line.lstrip("> ") for line in text.split("\n") if line.strip()]
    assert lines == expected


# hostile input


def test_ten_thousand_quote_lines_are_one_quoted_passage() -> None:
    found = passages("reply\n" + "> quoted line\n" * 10_000)
    assert [s.kind for s in found] == ["own", "quoted"]
    assert found[1].text.count("quoted line") == 10_000 and ">" not in found[1].text


def test_quotes_nested_fifty_deep_keep_their_depth_and_lose_their_markers() -> None:
    text = "top\n" + "".join(">" * d + f" level {d}\n" for d in range(1, 51))
    found = passages(text)
    assert [s.depth for s in found] == list(range(51))
    assert found[-1].text == "level 50"


def test_ten_thousand_original_message_blocks_nest_without_recursion() -> None:
    block = "-----Original Message-----\nFrom: a\nSent: b\n\ntext\n\n"
    found = passages("top\n\n" + block * 10_000)
    assert found[-1].depth == 10_000


def test_a_wrote_line_with_no_quote_after_it_is_own_text() -> None:
    text = "On Monday Bob wrote:\nwe should meet on Friday.\n"
    assert _kinds(text) == [("own", text.rstrip("\n"))]
    assert _kinds("Hi\n\nOn Mon, 3 Jun 2024, Bob wrote:\n") == [
        ("own", "Hi\n\nOn Mon, 3 Jun 2024, Bob wrote:")
    ]


def test_a_message_that_is_only_a_quote_has_no_own_text() -> None:
    found = passages("> all of it\n> quoted\n")
    assert [(s.kind, s.text) for s in found] == [("quoted", "all of it\nquoted")]


def test_empty_and_blank_bodies_have_no_passages() -> None:
    assert passages("") == () and passages("\n \n>\n> \n") == ()


def test_a_contact_block_before_a_disclaimer_is_a_signature() -> None:
    notice = "This message is confidential. " * 5
    text = f"The contract is signed.\n\nDennis Lee\nGas Logistics\n(713) 853-1715\n\n{notice}"
    assert [s.kind for s in passages(text)] == ["own", "signature", "disclaimer"]


def test_a_last_paragraph_of_dates_and_table_cells_is_text_not_a_contact_block() -> None:
    text = "Here are the points.\n\n10/29/2001\t58646\t58647\nAdm cr# 27698\tWTX\tAgave"
    assert [s.kind for s in passages(text)] == ["own"]


def test_a_bracketed_thunderbird_forward_subject_is_a_forward() -> None:
    assert is_forward_subject("[Fwd: New email address]")


def test_lotus_notes_header_and_forward_banner_are_recognised() -> None:
    header = (
        "From:\tMichelle Lokay/ENRON on 03/20/2001 04:10 PM\nTo:\tTeam/NA\ncc:\t\nSubject:\tPlan"
    )
    assert _quoted(f"ok\n\n{header}\n\nold text\n") == "old text"
    banner = "---------------------- Forwarded by Dennis Lee/ET&S/Enron on 10/29/2001 ---------"
    assert _kinds(f"fyi\n\n{banner}\n\nthe notice\n") == [
        ("own", "fyi"),
        ("forwarded", "the notice"),
    ]


def test_a_bounces_indented_copy_of_the_headers_is_not_a_quoted_message() -> None:
    text = (
        "This report relates to a message you sent with these header fields:\n\n"
        "  From: Ian <ian@example.org>\n  To: list@example.org\n  Subject: hello\n\n"
        "Your message cannot be delivered to the following recipients:\n\n"
        "  Recipient address: someone@example.org\n  Reason: disk quota\n"
    )
    assert {s.kind for s in passages(text)} == {"own"}


def test_a_quoted_lines_tail_wrapped_without_its_marker_stays_quoted() -> None:
    long = "the toxins are purged from the body in the form of sweat through the"
    text = f"I agree.\n\n> {long}\narmpits, which\n> is not good.\n"
    assert _own(text) == "I agree."
    assert _quoted(text) == f"{long}\narmpits, which\nis not good."


def test_a_disclaimer_after_a_quote_is_a_disclaimer() -> None:
    notice = "This message is confidential and intended only for the addressee named. " * 2
    text = f"Yes.\n\n> a question\n\n{notice}\n"
    assert [s.kind for s in passages(text)] == ["own", "quoted", "disclaimer"]


def test_a_body_of_only_a_notice_is_its_text_even_after_blank_lines() -> None:
    notice = "This message is confidential and intended only for the addressee named. " * 2
    assert [s.kind for s in passages(f"\n\n{notice}\n")] == ["own"]


_PIECES = st.sampled_from(
    ["\n", "\n\n", "> ", ">> ", "> > ", "text words", "From: a", "Sent: b", "To: c",
     "On Mon, A wrote:", "-- ", "-----Original Message-----", "Thanks,", "Tel: +1 555 0100",
     "---------- Forwarded message ---------", "   ", ":", "confidential " * 12, "Bob"]
)  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join), st.booleans())
def test_every_non_blank_line_is_in_one_passage_in_order(text: str, forward: bool) -> None:
    found = passages(text, forward=forward)
    lines = [line for p in found for line in p.text.split("\n") if line.strip()]
    expected = [quote_depth(line)[1] for line in text.split("\n")]
    assert lines == [line for line in expected if line.strip()]
    assert all(p.text.strip() for p in found)
