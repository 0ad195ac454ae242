"""The RTF extractor and `rtf_to_text` on real documents and on hostile ones built here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from outputs import document_records
from sharedfiles import NO_FORMATS, SHARED, or_skip

import indexer
from indexer._extract import raised
from indexer.config import Config
from indexer.formats.rtf import rtf_to_text

FORMATS = SHARED / "formats"


def _real(name: str) -> bytes:
    path = FORMATS / name
    if not path.exists():
        pytest.skip("../shared/formats is not available")
    return path.read_bytes()


def _real_files() -> list[Path]:
    return sorted(FORMATS.rglob("*.rtf")) if FORMATS.is_dir() else []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tika/testRTFNewlines.rtf", "one\n\ntwo\n\nthree\n\nfour"),
        ("tika/testRTFWindowsCodepage1250.rtf", "zażółć gęślą jaźń\n\nZAŻÓŁĆ GĘŚLĄ JAŹŃ"),
        ("tika/testRTF-ms932.rtf", "Hello\n\nこんにちは\n\nTest\n\nテスト"),
        ("tika/testRTFUnicodeGothic.rtf", "𐌲𐌿𐍄𐌹𐍃𐌺"),
        ("tika/testRTFUnicodeUCNControlWordCharacterDoubling.rtf", "0 年 abc 念"),
        ("tika/testRTFWithCurlyBraces.rtf", "{ some text inside curly brackets }"),
        ("tika/testRTF_nestedHyperlinkPageRef.rtf", "Before 42 after."),
        ("tika/testRTF_annotation_spacing.rtf", "This is supercali [This is a comment]fragilistic"),
        ("tika/testRTFRegularImages.rtf", "Duck: cat:"),
    ],
)
def test_real_documents_give_the_text_a_word_processor_shows(name: str, text: str) -> None:
    assert rtf_to_text(_real(name)) == text


def test_tables_become_cell_rows_and_headers_are_kept() -> None:
    fake = rtf_to_text(_real("unstructured/fake-doc.rtf"))
    assert fake.endswith(
        "Column 1 | Column 2\nRow 1, Cell 1 | Row 1, Cell 2\nRow 2, Cell 1 | Row 2, Cell 2"
    )
    assert rtf_to_text(_real("tika/testRTFBoldPlain.rtf")).startswith(
        "Animal Hospital\n\n(555) 555-1212"
    )


def test_paragraphs_become_chunks_and_properties_metadata() -> None:
    result = indexer.extract("j.rtf", _real("tika/testRTF-ms932.rtf"))
    assert (result.kind, result.status) == ("rtf", "ok")
    assert [(c.text, c.meta) for c in result.chunks][:2] == [
        ("Hello", {"para": 0}),
        ("こんにちは", {"para": 1}),
    ]
    assert result.metadata == {
        "title": "タイトル",
        "author": "shinsuke",
        "created": "2010-10-08T14:18:00",
        "modified": "2010-10-10T06:59:00",
    }


def test_pictures_objects_and_binary_runs_are_jumped_not_read() -> None:
    picture = b"{\\pict\\pngblip " + b"89504e47" * 500_000 + b"}"
    binary = b"{\\object{\\*\\objdata \\bin6 }{}}{}}{\\result kept}}"
    doc = b"{\\rtf1\\ansi before " + picture + binary + b" after\\par}"
    assert rtf_to_text(doc) == "before kept after"


@pytest.mark.parametrize(
    "source",
    [
        b"{\\rtf1 unclosed {{{ group",
        b"{\\rtf1 \\u-3913? lone \\'",
        b"{\\rtf1 \\bin99999999 x}",
        b"}}}{",
    ],
)
def test_broken_rtf_never_raises(source: bytes) -> None:
    assert isinstance(rtf_to_text(source), str)
    assert not raised(indexer.extract("b.rtf", source))


def test_a_document_without_text_is_empty_as_no_text_with_its_properties() -> None:
    result = indexer.extract("objects.rtf", _real("tika/testRTFEmbeddedFiles.rtf"))
    assert (result.status, result.error) == ("empty", "no text")
    assert result.chunks[0].text == "[rtf extraction failed: no text]"
    assert result.metadata["created"] == "2014-03-27T19:52:00"


def test_a_file_named_rtf_that_is_not_rtf_is_read_as_text_or_fails_clearly() -> None:
    text = indexer.extract("note.rtf", b"Just a note.\n\nSecond.")
    assert (text.status, [c.text for c in text.chunks]) == ("degraded", ["Just a note.", "Second."])
    binary = indexer.extract("image.rtf", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    assert (binary.status, binary.error) == ("failed", "corrupt: not RTF (no {\\rtf header)")


@pytest.mark.parametrize("path", or_skip(_real_files(), NO_FORMATS), ids=lambda p: p.name)
def test_every_real_rtf_gives_a_result_without_raising(path: Path) -> None:
    result = indexer.extract(path.name, path.read_bytes())
    assert not raised(result)
    assert result.status == "ok" or (result.status, result.error) == ("empty", "no text")
    assert "\\" not in result.text and "{" not in result.text.replace("{ some", "")


@pytest.mark.slow  # every shared RTF through worker processes
def test_every_real_rtf_gives_one_record_through_the_isolated_pool(tmp_path: Path) -> None:
    files = _real_files()
    if not files:
        pytest.skip("../shared/formats is not available")
    source = tmp_path / "src"
    source.mkdir()
    for path in files:
        shutil.copyfile(path, source / f"{path.parent.name}-{path.name}")
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=1, pdf_workers=2, max_failures=10))
    docs = document_records(out)
    assert sorted(d["path"] for d in docs) == sorted(f"{p.parent.name}-{p.name}" for p in files)
    assert {(d["status"], d["reason"]) for d in docs} == {("ok", ""), ("empty", "no_text")}
    assert {d["kind"] for d in docs} == {"rtf"}


_RTF_PIECES = st.sampled_from(
    ["{", "}", "\\par ", "\\u8364?", "\\u-10179?", "\\u-8704?", "\\'e9", "\\'81", "\\f1 ",
     "\\uc0 ", "\\uc2 ", "{\\*\\x ", "{\\pict ", "{\\fonttbl{\\f1\\fcharset128 x;}}", "\\bin3 ",
     "\\cell ", "\\row ", "{\\info{\\title t}{\\creatim\\yr2020\\mo1\\dy2}}", "text ", "\\",
     "\\ansicpg1251 ", "\\ansicpg99999 ", "{\\annotation note}"]
)  # fmt: skip


@given(st.lists(_RTF_PIECES, max_size=60))
def test_any_mix_of_rtf_tokens_gives_encodable_text(pieces: list[str]) -> None:
    text = rtf_to_text("{\\rtf1 " + "".join(pieces))
    text.encode("utf-8")  # no lone surrogate reaches the output
