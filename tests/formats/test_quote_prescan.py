"""The splitter's pre-scan: a body that `quotelines.may_cut_anywhere` clears is not read
line by line for quoted messages, and `quotes.passages` must still equal the line-by-line
`quotes.full_passages` on every body."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

from indexer.formats.eml import quotecuts as c
from indexer.formats.eml import quotelines as q
from indexer.formats.eml.quotes import full_passages, passages
from tests.formats.mailthreads import threads

_FROM = ["From", "Von", "De", "Da", "Van", "Från", "Fra", "Od", "От", "差出人", "发件人"]
_MARKER_LINES = [
    *(f"{name}: Alice <a@x.org>" for name in _FROM),
    *(f" *{name}* : Alice" for name in _FROM),
    *(f"{name}：アリス" for name in _FROM),
    "Sent: Monday, June 3, 2024 10:00 AM",
    "Gesendet: Montag, 3. Juni 2024 10:00",
    "To: Bob <b@x.org>",
    "Subject: Re: plans",
    "Betreff: AW: Pläne",
    "-----Original Message-----",
    "-----Ursprüngliche Nachricht-----",
    "________________________________",
    "---------- Forwarded message ---------",
    "Begin forwarded message:",
    "Début du message réexpédié :",
    "Mensaje reenviado:",
    "Forwarded by Alice on 06/03/2024",
    "From: Alice Sent: Monday To: Bob Subject: plans",
    q.CUT,
    "-- ",
    "Sent from my iPhone",
    "Best regards,",
    "Tel: +49 30 1234567",
    "This message is confidential and intended solely for the addressee, who alone may read "
    "it; if you are not the intended recipient, delete it and tell the sender at once.",
]
_PLAIN_LINES = ["Fine by me.", "", "  ", "see you at 10:30", "a - b", "Alice", "- a list item"]


def _line_starts_a_message(line: str) -> bool:
    """What `quotecuts.next_cut` takes at an unquoted line, by the per-line tests only."""
    return bool(
        q.CUT in line
        or q.forward_banner(line)
        or q.header_line(line)
        or q.reply_separator(line)
        or q.header_field(line) == "from"
    )


@pytest.mark.parametrize("line", _MARKER_LINES + _PLAIN_LINES)
def test_a_line_that_may_start_a_quoted_message_is_never_cleared_by_the_pre_scan(
    line: str,
) -> None:
    for variant in (line, line.upper(), line.lower(), f"text\n{line}\nmore"):
        if any(_line_starts_a_message(each) for each in variant.split("\n")):
            assert q.may_cut_anywhere(variant), variant


def test_every_generated_body_splits_as_the_line_by_line_reading_does() -> None:
    bodies = [text for m in threads(0, 90) for text in (m.plain, m.new)]
    unquoted = [
        "\n".join(line for line in body.split("\n") if not line.lstrip().startswith(">"))
        for body in bodies
    ]
    for body in bodies + unquoted:
        for forward in (False, True):
            assert passages(body, forward=forward) == full_passages(body, forward=forward)
    cleared = [body for body in unquoted if not q.may_cut_anywhere(body)]
    assert cleared  # the fast path is taken by some, so it is what is compared


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_MARKER_LINES + _PLAIN_LINES) | st.text(max_size=40), max_size=30))
def test_any_mix_of_marker_and_plain_lines_splits_as_the_line_by_line_reading_does(
    lines: list[str],
) -> None:
    body = "\n".join(lines)
    assert passages(body) == full_passages(body)
    if not q.may_cut_anywhere(body):
        parsed = c.parse(body.replace("\r\n", "\n").replace("\r", "\n"))
        if not any(parsed.depths):
            assert c.next_cut(parsed, c.candidates(parsed), 0) is None


@pytest.mark.parametrize(
    "header",
    [
        "From: Alice <a@x.org>\nSent: Monday, June 3, 2024\nTo: Bob\nSubject: plans",
        "Von: Alice <a@x.org>\nGesendet: Montag, 3. Juni 2024\nAn: Bob\nBetreff: Pläne",
        "-----Original Message-----\nFrom: Alice\nSent: Monday\nSubject: plans",
        q.CUT,
    ],
)
def test_a_quoted_message_after_hundreds_of_plain_lines_is_still_split(header: str) -> None:
    own = "\n".join(f"line {n} of the reply, nothing quoted here" for n in range(400))
    found = passages(f"{own}\n\n{header}\n\nthe old message's text\n")
    assert found[0].kind == "own" and found[0].text.startswith("line 0 ")
    assert [s.text for s in found if s.kind == "quoted" and not s.header] == [
        "the old message's text"
    ]
