"""The shared decoding and splitting helpers every extractor relies on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer._text import decode, limit_chunks, split_paragraphs, split_text
from indexer._types import Chunk


@pytest.mark.parametrize(
    ("data", "declared", "text"),
    [
        ("Größe und Jürgen".encode("latin-1"), None, "Größe und Jürgen"),
        ("“quoted” – dash".encode("cp1252"), None, "“quoted” – dash"),
        ("naïve café".encode(), "iso-8859-1", "naïve café"),  # the commonest charset lie
        ("Привет, мир".encode("koi8-r"), "koi8-r", "Привет, мир"),
        ("a\r\nb\rc".encode("utf-16"), None, "a\nb\nc"),
        ('["é"]'.encode("utf-16-le"), None, '["é"]'),
        ('["é"]'.encode("utf-16-be"), None, '["é"]'),
        (b"\xef\xbb\xbfbom", None, "bom"),
        (b"ok \xff\xfe bad", None, "ok ÿþ bad"),
        (b"x" * 300 + b"\xff" + b" \xc3\xa9" * 20, None, "x" * 300 + "\ufffd" + " é" * 20),
    ],
)
def test_decode_trusts_boms_then_declared_then_utf8_then_detection(
    data: bytes, declared: str | None, text: str
) -> None:
    assert decode(data, declared) == text


def test_decode_never_raises_on_a_bogus_declared_charset() -> None:
    assert decode(b"plain", "x-no-such-charset\x00") == "plain"


def test_paragraphs_split_on_whitespace_only_lines() -> None:
    assert split_paragraphs("a\n \t\nb\n\n\n  c  \n d\n") == ["a", "b", "c  \n d"]


def test_split_text_prefers_paragraph_then_line_then_sentence_boundaries() -> None:
    text = "First sentence here. Second one follows.\n\nNew paragraph text."
    assert split_text(text, 45) == [
        "First sentence here. Second one follows.",
        "New paragraph text.",
    ]
    assert split_text("One. Two. Three. Four.", 12) == ["One. Two.", "Three. Four."]
    assert split_text("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]


def test_limit_chunks_drops_blank_and_splits_long_keeping_meta() -> None:
    chunks = [Chunk(text="  ", meta={"i": 0}), Chunk(text="word " * 30, meta={"i": 1})]
    limited = limit_chunks(chunks, 64)
    assert all(len(c.text) <= 64 and c.meta == {"i": 1} for c in limited)
    assert " ".join(c.text for c in limited).split() == ["word"] * 30


def _split_by_copying(text: str, max_chars: int) -> list[str]:
    """The first split_text, which copied the rest after every cut: an oracle."""
    pieces, rest = [], text
    while len(rest) > max_chars:
        window, cut = rest[: max_chars + 1], max_chars
        for sep in ("\n\n", "\n", ". ", "! ", "? ", "; ", " "):
            at = window.rfind(sep, max_chars // 4)
            if at > 0:
                cut = at + len(sep)
                break
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            pieces.append(head)
    if rest.strip():
        pieces.append(rest.strip())
    return pieces


@given(
    st.text(alphabet="ab .!?;\n\t\u00a0\u2003\u3000\x1c\x85\u00e9", max_size=300),
    st.integers(1, 60),
)
def test_split_text_cuts_where_the_copying_version_did(text: str, max_chars: int) -> None:
    assert split_text(text, max_chars) == _split_by_copying(text, max_chars)
