"""The splitter's fast paths: `quotes.passages` (and `full_passages`) must return what the
reference implementation (`tests/formats/quoteref`, the splitter before them) returns, on
every body the mail extractor splits in the generated threads, the shared corpus's `.eml`
files and enron.pst's messages, and on random and hostile bodies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples
from sharedfiles import CORPUS, FORMATS, NO_CORPUS, NO_FORMATS, or_skip

from indexer._types import DEFAULT_OPTIONS
from indexer.formats import eml
from indexer.formats.eml import body, quotes
from tests.formats.mailthreads import threads
from tests.formats.quoteref import quotes as reference

Seen = tuple[tuple[str, str, int, bool], ...]
_ENRON = FORMATS / "mail" / "enron.pst"


def _reference(text: str, forward: bool) -> Seen:
    found = reference.passages(text, forward=forward)
    assert found == reference.full_passages(text, forward=forward)
    return tuple((p.kind, p.text, p.depth, p.header) for p in found)


def _check(text: str, forward: bool = False) -> None:
    """Both entry points equal the reference, passage for passage."""
    expected = _reference(text, forward)
    for split in (quotes.passages, quotes.full_passages):
        found = split(text, forward=forward)
        assert tuple((p.kind, p.text, p.depth, p.header) for p in found) == expected, text[:200]


def _split_bodies(mails: list[bytes], monkeypatch: pytest.MonkeyPatch) -> int:
    """Extract `mails`, checking every body the extractor splits; return how many."""
    count = 0

    def checked(text: str, *, forward: bool = False) -> tuple[quotes.Passage, ...]:
        nonlocal count
        count += 1
        _check(text, forward)
        _check(text, not forward)
        return quotes.passages(text, forward=forward)

    monkeypatch.setattr(body, "passages", checked)
    for data in mails:
        eml.extract(data, "", DEFAULT_OPTIONS)
    return count


def test_every_generated_body_splits_as_the_reference_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mails = threads(0, 180)
    assert _split_bodies([m.mime for m in mails], monkeypatch) == len(mails)
    for mail in mails:
        _check(mail.plain)
        _check(mail.new)


_EMLS = sorted(CORPUS.glob("email-*/**/*.eml")) if CORPUS.is_dir() else []


@pytest.mark.parametrize("path", or_skip(_EMLS, NO_CORPUS))
def test_every_corpus_body_splits_as_the_reference_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _split_bodies([path.read_bytes()], monkeypatch)


@pytest.mark.parametrize("pst", or_skip([_ENRON] if _ENRON.is_file() else [], NO_FORMATS))
def test_every_enron_body_splits_as_the_reference_does(
    pst: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.formats.msg.pst import iter_messages

    mails = [data for _, _, data, _ in iter_messages(str(pst)) if data]
    assert _split_bodies(mails, monkeypatch) >= len(mails) > 50


def _hostile() -> Iterator[str]:
    yield ""
    yield "\n" * 5000
    yield "x" * 200_000
    yield ("word " * 40_000) + "\n-- \nBob"
    yield "\n".join(">" * (n % 40 + 1) + " line" for n in range(10_000))
    yield "\n".join(">" for _ in range(10_000))
    yield "\n".join("> > >" if n % 3 else "" for n in range(10_000))
    yield "On Mon, Alice wrote:\n" + "\n".join("> quoted" for _ in range(10_000))
    yield "\n".join(f"From: a{n}\nSent: Monday\n\ntext {n}" for n in range(2_000))
    yield "\n".join(f"-----Original Message-----\nFrom: a{n}\nTo: b\n" for n in range(2_000))
    yield "reply\r\n\r\nOn Mon, A wrote:\r\n> one\r> two\n>> three\r\n-- \r\nBob\r"
    yield "reply\u2028> not a line\u2029\x85\x0b\x0c\x1c\x1d\x1e\nOn Mon, A wrote:\n> q"
    yield "nul\x00 here\n> \x00quoted\x00\n\x00\n-- \x00\nBob\x00"
    yield "\ufeffreply\n\u3000\n> 引用\n-- \n名前\nTel: +81 3 1234 5678"
    yield "Thanks!\n\nThis message is confidential and intended solely for you. " * 300
    yield "\n".join(["Best regards,", "Alice"] * 3_000)
    yield "\n".join(["Sent from my iPhone", ""] * 3_000)
    yield "\n".join(["a", "-- ", "b"] * 3_000)
    yield "\n".join([" " * 100_000, "\t" * 50_000, ">" * 100_000 + "x"])
    yield f"text\n{quotes.q.CUT}\n" * 3_000


@pytest.mark.parametrize("text", list(_hostile()), ids=lambda t: f"{len(t)}:{t[:12]!r}")
def test_a_hostile_body_splits_as_the_reference_does(text: str) -> None:
    _check(text)
    _check(text, forward=True)


_LINES_DISCLAIMER = (
    "This message is confidential and intended solely for the addressee, who alone may read "
    "it; if you are not the intended recipient, delete it and tell the sender at once."
)


def _edges() -> Iterator[str]:
    """Bodies at the bounds of the signature rules: lines after a sign-off or a `-- `,
    paragraphs before a disclaimer, lines of a contact block, each one either side."""
    notice = _LINES_DISCLAIMER
    for n in range(10):
        short = [f"line {k}" for k in range(n)]
        yield "\n".join(["Text of the reply.", "", "Best regards,", *short])
        yield "\n".join(["Best regards,", *short])
        yield "\n".join(
            ["Text.", "Thanks", *short, "A line much longer than a signature's lines are, " * 2]
        )
        yield "\n".join(["Text.", "", "Alice", *short[:n], "Tel: +49 30 1234567"])
        yield "\n".join(["Text.", *(["", "para"] * n), "", notice])
        yield "\n".join([notice, *(["", "para"] * n)])
        for after in range(4):
            yield "\n".join([*(["para", ""] * (n % 5)), notice, *(["", "para"] * after)])
        yield "\n".join(["Text.", "-- ", *(f"sig {k}" for k in range(n + 16))])
        yield "\n".join(["Text.", *["", "Sent from my iPhone"][: n % 3], "", notice, "", notice])
        yield "\n".join(["> quoted", *short, "Regards", "> quoted", "Alice", *short])


@pytest.mark.parametrize("text", list(_edges()))
def test_a_body_at_a_signature_rules_bound_splits_as_the_reference_does(text: str) -> None:
    _check(text)


_LINES = [
    "On Mon, 3 Jun 2024 10:00, Alice <a@x.org> wrote:",
    "On Mon, 3 Jun 2024 10:00, Alice",
    "<a@x.org> wrote:",
    "Am 03.06.2024 um 10:00 schrieb Bob:",
    "2024年6月3日(月) 10:00 山田 <a@b.jp>:",
    "From: Alice <a@x.org>",
    " *Von:* Alice",
    "差出人：アリス",
    "Sent: Monday, June 3, 2024 10:00 AM",
    "Date: Mon",
    "To: Bob <b@x.org>",
    "Cc: Carol",
    "Subject: Re: plans",
    "  continued, recipients",
    "-----Original Message-----",
    "________________________________",
    "---------- Forwarded message ---------",
    "Begin forwarded message:",
    "Forwarded by Alice on 06/03/2024",
    "From: Alice Sent: Monday To: Bob Subject: plans",
    quotes.q.CUT,
    "-- ",
    "--",
    "__",
    "—",
    "Sent from my iPhone",
    "iPhoneから送信",
    "Best regards,",
    "Thanks",
    "Alice",
    "Tel: +49 30 1234567",
    "alice@example.org",
    "www.example.org",
    "This message is confidential and intended solely for the addressee, who alone may read "
    "it; if you are not the intended recipient, delete it and tell the sender at once.",
    "A long line of the reply that a client would wrap at seventy-two characters, or so.",
    "wrapped tail",
    "Fine by me.",
    "see you at 10:30",
    "- a list item",
    "",
    " ",
    "\t",
]
_MARKS = st.sampled_from(["", "> ", ">", ">> ", "> > ", " > ", ">>> ", "\t>"])
_LINE = st.tuples(_MARKS, st.sampled_from(_LINES) | st.text(max_size=30)).map("".join)


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(_LINE, max_size=40), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_any_mix_of_quoted_and_marker_lines_splits_as_the_reference_does(
    lines: list[str], newline: str, forward: bool
) -> None:
    _check(newline.join(lines), forward)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from("> -_:\n\r\t aA1—：\u2028\x00"), max_size=200))
def test_any_text_of_the_splitters_characters_splits_as_the_reference_does(text: str) -> None:
    _check(text)
