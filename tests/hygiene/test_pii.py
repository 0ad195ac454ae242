"""Personal data found by pattern and kept only when its check holds: hostile look-alikes
(cards failing Luhn, IBANs with a wrong checksum, version strings shaped like IPs) are not
personal data."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.hygiene.pii import find, luhn
from indexer.hygiene.redact import Scrubber


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in find(text)]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "write to Jane.Doe+tag@mail.example.co.uk today",
            ("email", "Jane.Doe+tag@mail.example.co.uk"),
        ),
        ("IBAN DE89 3704 0044 0532 0130 00.", ("iban", "DE89 3704 0044 0532 0130 00")),
        ("GB82WEST12345698765432", ("iban", "GB82WEST12345698765432")),
        ("paid with 4111 1111 1111 1111 yesterday", ("card", "4111 1111 1111 1111")),
        ("amex 3782-822463-10005", ("card", "3782-822463-10005")),
        ("host 192.168.10.20 is down", ("ipv4", "192.168.10.20")),
        ("via 2001:db8::8a2e:370:7334 only", ("ipv6", "2001:db8::8a2e:370:7334")),
        ("call +44 20 7946 0958 now", ("phone", "+44 20 7946 0958")),
        ("call (555) 123-4567", ("phone", "(555) 123-4567")),
        ("Büro 030 1234 5678", ("phone", "030 1234 5678")),
    ],
)
def test_each_kind_is_found_with_its_offsets(text: str, wanted: tuple[str, str]) -> None:
    assert found(text) == [wanted]


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112 fails Luhn",
        "order 1234567890123456 is a number",  # Luhn fails and no issuer starts with 1
        "0000 0000 0000 0000",  # passes Luhn, one digit repeated: a placeholder
        "IBAN DE89 3704 0044 0532 0130 01 has a wrong check digit",
        "GB00WEST12345698765432",
        "version 1.2.3.4 is out, v10.0.0.1 too, build 2.0.0.1",
        "release 4.19.0.12 and 1.2.3.4.5",
        "dated 01.02.2003",
        "at 12:30:45 sharp",
        "on 2024-01-15 we shipped 3.14159 units",
        "ISBN 978-3-16-148410-0",
    ],
)
def test_look_alikes_that_fail_their_check_are_not_personal_data(text: str) -> None:
    assert found(text) == []


def test_overlapping_spans_keep_the_stronger_kind() -> None:
    assert found("mail root@10.0.0.1.example.com") == [("email", "root@10.0.0.1.example.com")]


def test_luhn_is_the_checksum() -> None:
    assert luhn("79927398713") and not luhn("79927398710")


def test_offsets_are_code_points_after_non_ascii_text() -> None:
    text = "Grüße 👋 — écrivez à zoe@example.fr"
    [f] = find(text)
    assert (f.kind, f.start, text[f.start : f.end]) == ("email", 20, "zoe@example.fr")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789 .:-+()@abcDEFxyz/\n"), max_size=80) | st.text())
def test_any_text_gives_ordered_disjoint_spans_within_it(text: str) -> None:
    spans = find(text)
    assert all(0 <= f.start < f.end <= len(text) for f in spans)
    assert all(a.end <= b.start for a, b in pairwise(spans))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789 .:-+@abexample/"), max_size=80))
def test_redacted_offsets_point_at_the_tokens_written(text: str) -> None:
    written, spans = Scrubber(mode="redact", key=b"").text(text)
    for span in spans.split():
        kind, _, where = span.partition(":")
        start, end = map(int, where.split("-"))
        assert written[start:end] == f"[{kind.upper()}]"
