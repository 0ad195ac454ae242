"""The reason codes: one declaration (`indexer.reasons`), its docs, and how reasons read."""

from __future__ import annotations

import re
from pathlib import Path

from indexer.reasons import BY_CODE, REASONS, explain, reasons_markdown, status_of

DOCS = Path(__file__).resolve().parents[1] / "docs" / "reasons.md"


def test_docs_list_every_code_as_the_declaration_does() -> None:
    assert reasons_markdown() in DOCS.read_text(encoding="utf-8")
    assert len(BY_CODE) == len(REASONS)


def test_every_code_is_snake_case_with_a_status_a_sentence_and_what_to_do() -> None:
    for reason in REASONS:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", reason.code), reason.code
        assert reason.status in ("empty", "degraded", "failed", "skipped")
        assert reason.text.endswith(".") and reason.action


def test_a_code_with_detail_gives_the_code_and_the_detail_in_the_sentence() -> None:
    code, text = explain("skipped", "unsupported_compression: method 6")
    assert code == "unsupported_compression"
    assert text is not None and text.endswith("supports: method 6.")


def test_older_phrasings_map_to_codes_with_their_status() -> None:
    cases = {
        "damaged: Bad magic number for file header": ("corrupt", "failed"),
        "encrypted (password required)": ("encrypted", "failed"),
        "response is not a PDF (missing %PDF header)": ("wrong_format", "failed"),
        "no text layer": ("no_text", "empty"),
        "no text layer (OCR not installed)": ("ocr_not_installed", "skipped"),
        "no text: only pictures (2); OCR is off": ("ocr_off", "skipped"),
        "no extractor for application/octet-stream": ("no_extractor", "skipped"),
        "exception in csv chunker: ValueError: bad": ("extractor_error", "failed"),
    }
    for raw, (code, status) in cases.items():
        assert (explain(status, raw)[0], status_of(raw)) == (code, status), raw


def test_ok_has_no_reason_and_others_always_have_one() -> None:
    assert explain("ok", None) == (None, None)
    assert explain("empty", None)[0] == "blank"
    assert explain("degraded", None, {"failed_pages": [2]})[0] == "pages_unread"
    assert explain("degraded", None, {"notes": ["cut"]}) == (
        "partial",
        "Part of the document could not be read or was cut; the rest is indexed: cut.",
    )
    assert explain("degraded", None)[0] == "not_parsed"
