"""Language and quality signals of a document's chunks, and personal data redacted or
pseudonymised in them (`indexer.hygiene.annotate`)."""

from __future__ import annotations

import pytest

from indexer._types import Chunk, Extracted, Hygiene
from indexer.hygiene import annotate, language, quality, tag

EN = "The committee will meet on Thursday to discuss the budget for next year."
DE = "Der Ausschuss trifft sich am Donnerstag, um den Haushalt für das nächste Jahr zu beraten."
FR = "Le comité se réunira jeudi pour discuter du budget de l'année prochaine."


def doc(*texts: str, **metadata: object) -> Extracted:
    chunks = tuple(Chunk(text=t, meta={}) for t in texts)
    return Extracted(kind="text", text="\n\n".join(texts), chunks=chunks, metadata=dict(metadata))


@pytest.mark.parametrize(("text", "code"), [(EN, "en"), (DE, "de"), (FR, "fr")])
def test_a_sentence_gets_its_language(text: str, code: str) -> None:
    guess = language.guess(text)
    assert guess.code == code and 0.5 < guess.confidence <= 1.0


@pytest.mark.parametrize("text", ["", "12 345 6789", "3.14 | 2.71 | 1.41", "Q3 2024"])
def test_numbers_and_scraps_have_no_language(text: str) -> None:
    assert language.guess(text).code == ""


def test_a_document_is_mixed_when_a_second_language_holds_a_fifth_of_its_letters() -> None:
    one = annotate(doc(EN, EN + " " + EN, DE), Hygiene(language=True, pii="mark"))
    assert one.metadata["language"]["code"] == "en"
    assert one.metadata["language"]["mixed"] is True
    assert [c.meta["language"] for c in one.chunks] == ["en", "en", "de"]
    plain = annotate(doc(EN, EN, EN, EN, EN, DE), Hygiene(language=True, pii="mark"))
    assert plain.metadata["language"]["mixed"] is False
    assert 0.5 < plain.metadata["language"]["confidence"] < 1.0  # a share is German


def test_quality_scores_mojibake_replacement_junk_and_repetition() -> None:
    clean = quality.score([EN], None)
    assert clean["words"] == 13 and clean["mojibake"] == clean["replacement"] == 0.0
    assert clean["duplicate_lines"] == 0.0 and clean["top_trigram"] == 0.0
    broken = quality.score(["The cafÃ© said â€œhelloâ€\x9d to JosÃ© \ufffd\ufffd"], None)
    assert broken["mojibake"] > 0.1 and broken["replacement"] > 0.03
    junk = quality.score(["|---|---|\n| 1 | 2 |\n| 3 | 4 |"], None)
    assert junk["non_letter"] == 1.0
    looped = quality.score(["click here now\n" * 20], None)
    assert looped["duplicate_lines"] == 0.95 and looped["top_trigram"] > 0.3


def test_quality_takes_the_mean_ocr_confidence_of_the_pages_read() -> None:
    scored = quality.score(["text"], {"confidence": {"1": 90.0, "2": 70.0, "3": None}})
    assert scored["ocr_confidence"] == 80.0
    assert quality.score(["text"], None)["ocr_confidence"] == -1.0


def test_mark_gives_offsets_and_leaves_the_text() -> None:
    text = "Mail ann@example.com or 192.168.0.7."
    [chunk] = annotate(doc(text), Hygiene(pii="mark")).chunks
    assert chunk.text == text
    assert chunk.meta["pii"] == "email:5-20 ipv4:24-35"


def test_redact_replaces_the_values_in_texts_and_mail_headers_with_offsets_of_the_new_text() -> (
    None
):
    out = annotate(
        doc("Mail ann@example.com now", **{"from": "Ann <ann@example.com>"}), Hygiene(pii="redact")
    )
    [chunk] = out.chunks
    assert chunk.text == "Mail [EMAIL] now"
    assert chunk.meta["pii"] == "email:5-12" and chunk.text[5:12] == "[EMAIL]"
    assert out.metadata["from"] == "Ann <[EMAIL]>"


def test_pseudonyms_are_the_same_for_the_same_value_and_key_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Hygiene(pii="pseudonymise", pii_key_env="TEST_PII_KEY")
    monkeypatch.setenv("TEST_PII_KEY", "one")
    first = annotate(
        doc("from ANN@example.com", "to ann@example.com", "to bob@example.com"), settings
    )
    a, b, c = (ch.text.split()[1] for ch in first.chunks)
    assert a == b != c and a.startswith("[EMAIL:") and len(a) == len("[EMAIL:]") + 12
    key_one = tag(settings)
    monkeypatch.setenv("TEST_PII_KEY", "two")
    [again] = annotate(doc("to ann@example.com"), settings).chunks
    assert again.text.split()[1] != a
    assert tag(settings) != key_one and "one" not in key_one


def test_pseudonymise_without_a_key_raises_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TEST_PII_KEY", raising=False)
    with pytest.raises(KeyError, match="TEST_PII_KEY"):
        annotate(doc("ann@example.com"), Hygiene(pii="pseudonymise", pii_key_env="TEST_PII_KEY"))


def test_everything_off_or_nothing_written_leaves_the_document_as_it_is() -> None:
    off = Hygiene(language=False, quality=False, pii="off")
    plain = doc(EN)
    assert annotate(plain, off) is plain
    failed = Extracted(kind="text", text="", chunks=plain.chunks, error="exception in x")
    assert annotate(failed, Hygiene(language=True, pii="mark")) is failed


def test_the_language_is_read_from_the_middle_past_a_mail_header() -> None:
    chunk = "From: Ann Smith\nTo: Team\nSubject: Meeting notes\n\n" + " ".join([DE] * 3)
    assert language.guess(chunk).code == "de"


@pytest.mark.parametrize(("text", "count"), [("abc XYZ 123", 6), ("Grüße, Ånne!", 9), ("", 0)])
def test_letters_counts_alike_for_ascii_and_other_text(text: str, count: int) -> None:
    assert language.letters(text) == count == sum(map(str.isalpha, text))
