"""The `text` extractor (the fallback): reference golden cases, divergences and the real corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual_kinds import (
    GOLDEN,
    Case,
    assert_invariants,
    assert_lists_match_golden,
    golden,
    manifest_paths,
    outcome,
)

from indexer import Options, extract
from indexer.formats import text as text_extractor

OPTIONS = Options()

# Golden cases of kind text where we agree with the reference: (name, path, input, text, chunks).
AGREED: list[Case] = [
    ("conformance_corpus_0", "corpus.txt", "", "", []),
    ("conformance_corpus_1", "corpus.txt", "single line", "single line", ["single line"]),
    ("conformance_corpus_2", "corpus.txt", "a\n\n\n\nb  \n", "a\n\n\n\nb  \n", ["a", "b"]),
    ("conformance_corpus_3", "corpus.txt", "para one\n\npara two\n\n\npara three",
     "para one\n\npara two\n\n\npara three", ["para one", "para two", "para three"]),
    ("conformance_corpus_4", "corpus.txt", "mültibyte ä ö ü 漢字 \n\n end",
     "mültibyte ä ö ü 漢字 \n\n end", ["mültibyte ä ö ü 漢字", "end"]),
    ("registry_hello_world", "x.txt", "hello world", "hello world", ["hello world"]),
    ("dispatch_dotfile_json", ".json", '[{"a":1}]', '[{"a":1}]', ['[{"a":1}]']),
    ("dispatch_trailing_dot", "file.", "a\n\nb", "a\n\nb", ["a", "b"]),
    ("dispatch_noext", "README", "a\n\nb", "a\n\nb", ["a", "b"]),
    ("dispatch_md_is_text", "n.md", "# T\n\nbody", "# T\n\nbody", ["# T", "body"]),
    ("dispatch_xml_is_text", "n.xml", "<a>1</a>", "<a>1</a>", ["<a>1</a>"]),
    ("dispatch_empty_txt", "n.txt", "", "", []),
    ("text_triple_newline", "n.txt", "a\n\n\nb", "a\n\n\nb", ["a", "b"]),
    ("text_indented", "n.txt", "  x  \n  y\n\n\n\n  z  ", "  x  \n  y\n\n\n\n  z  ",
     ["x  \n  y", "z"]),
]  # fmt: skip


# Golden cases where we deliberately differ (docs/compat.md (`text`) says why):
# (name, path, input, our text, our chunks).
DIVERGED: list[Case] = [
    ("text_crlf_blank_line", "n.txt", "a\r\n\r\nb", "a\n\nb", ["a", "b"]),
    ("text_space_blank_line", "n.txt", "a\n \nb", "a\n \nb", ["a", "b"]),
    ("registry_whitespace_only", "x.txt", "  \n\t \n", "", []),
    ("text_whitespace_only", "n.txt", " \n\n \t", "", []),
]


@pytest.mark.parametrize(("name", "path", "source", "text", "chunks"), AGREED + DIVERGED)
def test_golden_case(name: str, path: str, source: str, text: str, chunks: list[str]) -> None:
    assert outcome(path, source) == (text, chunks)


def test_golden_cases_are_of_kind_text_and_never_degraded() -> None:
    results = [extract(path, source.encode()) for _, path, source, *_ in AGREED + DIVERGED]
    assert {(r.kind, r.degraded) for r in results} == {("text", False)}


def test_invalid_utf8_is_decoded_not_replaced() -> None:
    # Golden `dispatch_invalid_utf8_text` gives `ok \ufffd\ufffd bad`; the shared
    # decoder reads bytes that are not UTF-8 as cp1252 instead.
    result = extract("n.txt", bytes.fromhex("6f6b20fffe206261640a0a6e657874"))
    assert [c.text for c in result.chunks] == ["ok ÿþ bad", "next"]


def test_meta_numbers_paragraphs_from_zero() -> None:
    result = extract("n.txt", b"one\n\n\n two \n\t\nthree")
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("one", {"para": 0}),
        ("two", {"para": 1}),
        ("three", {"para": 2}),
    ]


def test_lone_cr_and_unicode_whitespace_lines_split_paragraphs() -> None:
    result = text_extractor.chunk("a\rb\r\r\u00a0\u2003\rc\n\x0c\nd", OPTIONS)
    assert [c.text for c in result.chunks] == ["a\nb", "c", "d"]


def test_a_long_paragraph_is_split_by_extract() -> None:
    # 2000 five-character words: cuts fall after the 800th and 1600th space.
    result = extract("n.txt", ("abcd " * 2000).encode())
    assert [len(c.text) for c in result.chunks] == [3999, 3999, 1999]
    assert all(c.meta == {"para": 0} for c in result.chunks)


# --- the real corpus ------------------------------------------------------------------------


@pytest.mark.slow
def test_every_corpus_text_file_keeps_the_invariants(corpus: Path) -> None:
    files = manifest_paths(corpus, "text")
    assert len(files) == 83
    assert [relpath for relpath in files if assert_invariants(corpus, relpath, "text")] == []


def test_corpus_fable_with_crlf_and_space_only_lines_splits_at_them(corpus: Path) -> None:
    relpath = "email-mail-mime-parser/attachment-files/wolfandlamb.txt"
    result = extract(relpath, (corpus / relpath).read_bytes())
    assert len(result.chunks) == 2
    assert result.chunks[0].text == "The Wolf and the Lamb"
    assert result.chunks[1].text.startswith("WOLF, meeting with a Lamb astray from the fold,")
    assert result.chunks[1].text.endswith("will always find a pretext for\nhis tyranny.")
    assert "\r" not in result.text


def test_corpus_fake_text_gives_its_four_paragraphs(corpus: Path) -> None:
    relpath = "unstructured-example-docs/fake-text.txt"
    result = extract(relpath, (corpus / relpath).read_bytes())
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("This is a test document to use for unit tests.", {"para": 0}),
        ("Doylestown, PA 18901", {"para": 1}),
        ("Important points:", {"para": 2}),
        ("- Hamburgers are delicious\n   - Dogs are the best\n   - I love fuzzy blankets",
         {"para": 3}),
    ]  # fmt: skip


@pytest.mark.skipif(not GOLDEN.is_file(), reason="../shared/reference is absent")
def test_case_lists_cover_every_golden_text_case() -> None:
    listed = {row[0] for row in AGREED + DIVERGED} | {"dispatch_invalid_utf8_text"}
    assert listed == set(golden("text"))
    assert_lists_match_golden("text", AGREED, DIVERGED)
