"""The personal data `find` gives with its look-behind moved and its tests of what a
text can hold (`pii._possible`) is what it gave before them, on the corpus's texts and
on texts dense in digits and separators (the old patterns and tests kept here)."""

from __future__ import annotations

import random

import pytest
import regex
from corpustexts import texts
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

from indexer.hygiene import pii

OLD_IBAN = regex.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
OLD = tuple((k, OLD_IBAN if k == "iban" else p, c) for k, p, c in pii._DETECTORS)


def old_find(text: str) -> list[pii.Found]:
    """`find` before: every pattern but e-mail and IPv6 run over every text with a digit."""
    possible = {"iban", "card", "ipv4", "phone"} if regex.search(r"\d", text) else set()
    if "@" in text:
        possible.add("email")
    if "::" in text or text.count(":") >= 7:
        possible.add("ipv6")
    return pii._scan(text, OLD, possible)


DENSE = "0123456789      ..--+()/:,@aZDEGB\n٣"  # an Arabic-Indic digit: `\d` beyond ASCII
HOSTILE = [
    "4111 1111 1111 1111",
    "4222222222222",  # 13 digits: the shortest card
    "x 4222222222221 +1 234 567 8",  # a 13-digit look-alike; the shortest phone number
    "+1 234 567",
    "030/123 456",  # a slash between groups of under 7 digits
    "(030) 123-456",
    "1DE89370400440532013000",  # a digit before: no IBAN
    "aDE89370400440532013000",
    "4111-1111-1111-1111",
    "4111 1111 1111 111",  # 15 digits: no card, its digits no phone either
    "4111  1111 1111 1111",  # two spaces: no card
    "4111111111111111.5",
    "call +49 (30) 1234-5678 or (555) 123-4567 or 030/1234567",
    "+1 2 3 4 5 6 7",
    "06 12 34 56 78 and 555.123.4567 and 1.2.3.4.5",
    "DE89 3704 0044 0532 0130 00",
    "XDE89370400440532013000",
    "٣٣٣٣٣٣٣٣٣٣٣٣٣ and +٤٩ ٣٠ ١٢٣٤ ٥٦٧٨",
    "version 10.0.0.1 and 192.168.001.1 and 10.0.0.1.",
]


def test_the_corpus_texts_give_what_they_gave() -> None:
    found = texts()
    if not found:
        pytest.skip("../shared/corpus is not available")
    assert sum(1 for t in found if old_find(t)) > 100  # the corpus holds personal data
    for text in found:
        assert pii.find(text) == old_find(text), text


def test_hostile_and_random_dense_texts_give_what_they_gave() -> None:
    rng = random.Random(17)
    digits = "0123456789" * 4 + " -./()+ "
    randoms = ["".join(rng.choice(DENSE) for _ in range(rng.randrange(60))) for _ in range(3000)]
    randoms += ["".join(rng.choice(digits) for _ in range(rng.randrange(40))) for _ in range(3000)]
    for text in HOSTILE + randoms:
        assert pii.find(text) == old_find(text), text


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=st.sampled_from(DENSE), max_size=80) | st.text())
def test_any_text_gives_what_it_gave(text: str) -> None:
    assert pii.find(text) == old_find(text)
