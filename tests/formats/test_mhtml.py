"""Saved web pages (`.mhtml`, `.mht`): the page through the html extractor, the parts
that are documents as children, the page's resources not."""

from __future__ import annotations

import quopri
import zipfile
from pathlib import Path

import pytest
from mailparts import mail_with, run_one
from sharedfiles import SHARED

import indexer
from indexer.formats.mail_samples import MHTML


def _page() -> bytes:
    start = MHTML.index(b"<html>")
    return quopri.decodestring(MHTML[start : MHTML.index(b"\r\n--B", start)])


def test_the_page_is_its_main_content_as_an_html_file_would_give() -> None:
    result = indexer.extract("notes.mht", MHTML)
    assert (result.kind, result.status) == ("mhtml", "ok")
    assert [c.text for c in result.chunks] == ["# Version 2", "Café mode is faster."]
    assert result.metadata == indexer.extract("notes.html", _page()).metadata
    assert result.chunks == indexer.extract("notes.html", _page()).chunks


def test_the_real_page_inside_a_word_file_reads(tmp_path: Path) -> None:
    docx = SHARED / "formats" / "tika" / "testAltChunkMHT.docx"
    if not docx.is_file():
        pytest.skip("../shared/formats is not available")
    page = zipfile.ZipFile(docx).read("word/htmlDoc.mht")
    result = indexer.extract("htmlDoc.mht", page)
    assert result.status == "ok"
    assert result.chunks[0].text == "Simple paragraph with a emphasized word."
    assert "| Red PNG dot; ROW 1 | Red dot |" in result.text


def test_a_run_yields_the_documents_of_the_page_not_its_resources(tmp_path: Path) -> None:
    docs = run_one(tmp_path, "notes.mhtml", MHTML)
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "notes.mhtml": ("mhtml", "ok"),
        "notes.mhtml#part/3/changes.txt": ("text", "ok"),  # the logo (part 2) is a resource
    }


def test_a_real_related_mail_saved_as_mht_gives_its_page(tmp_path: Path) -> None:
    mail = SHARED / "corpus" / "email-mimekit" / "multipart-related-mhtml.eml"
    if not mail.is_file():
        pytest.skip("../shared/corpus is not available")
    docs = run_one(tmp_path, "page.mht", mail.read_bytes())
    assert list(docs) == ["page.mht"]  # its one other part is a picture
    assert docs["page.mht"]["status"] == "ok"


def test_a_saved_page_attached_to_a_mail_is_opened_by_its_name_or_type(tmp_path: Path) -> None:
    docs = run_one(tmp_path / "a", "m.eml", mail_with(MHTML, "application/octet-stream", "n.mht"))
    assert docs["m.eml#att/1/n.mht"]["kind"] == "mhtml"
    assert docs["m.eml#att/1/n.mht#part/3/changes.txt"]["status"] == "ok"
    typed = run_one(tmp_path / "b", "m.eml", mail_with(MHTML, "application/x-mimearchive", "page"))
    assert typed["m.eml#att/1/page"]["kind"] == "mhtml"


def test_a_file_without_a_page_is_read_as_a_mail_degraded() -> None:
    result = indexer.extract("x.mht", b"Subject: none\n\nonly words\n")
    assert (result.status, result.kind) == ("degraded", "mhtml")
    assert "only words" in result.text
    assert indexer.extract("x.mht", b"\x00\xff garbage").chunks
