"""Legacy binary Word and PowerPoint: text through the piece table and the text atoms."""

from __future__ import annotations

from pathlib import Path

import indexer
from indexer.formats.office.doc import LEGACY_WORD
from indexer.formats.office.ole_samples import PPT, doc_file, ole_file


def _extract(formats: Path, rel: str) -> indexer.Extracted:
    return indexer.extract(rel, (formats / rel).read_bytes())


def _parts(result: indexer.Extracted) -> list[tuple[str, str | None]]:
    return [(c.text, c.meta.get("part")) for c in result.chunks]


def test_a_word_97_document_gives_its_paragraphs_headers_and_footers(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD.doc")
    assert result.kind == "doc" and result.status == "ok"
    parts = _parts(result)
    assert parts[:4] == [
        ("This is the header for our document", "header"),
        ("Sample Word Document Title", None),
        ("And now for a subtitle", None),
        ("Main Heading", None),
    ]
    assert parts[-1] == ("This is the footer for our document", "footer")
    assert ("Apache Tika: http://tika.apache.org/ Tika", None) in parts
    assert result.metadata == {
        "title": "Sample Word Document",
        "author": "Keith Bennett",
        "created": "2010-11-12T16:22:00",
        "modified": "2010-11-12T16:22:00",
    }


def test_characters_beyond_the_bmp_do_not_shift_the_stories(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_various.doc")
    parts = _parts(result)
    assert ("𐌲𐌿𐍄𐌹𐍃𐌺", None) in parts
    assert [p for p in parts if p[1]] == [
        ("This is the header text.", "header"),
        ("Here is a text box", "boxes"),
        ("This is a footnote.", "notes"),
        ("This is the footer text.", "footer"),
    ]


def test_properties_are_decoded_with_their_code_page(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_tabular_symbol.doc")
    assert result.metadata["title"] == "Информационный бюллетень новых поступлений"


def test_field_instructions_are_dropped_and_their_results_kept() -> None:
    text = 'See \x13 HYPERLINK "http://x" \x14the site\x15 and \x13 PAGE \x15.\r'
    result = indexer.extract("x.doc", doc_file(text))
    assert [c.text for c in result.chunks] == ["See the site and ."]


def test_encrypted_word_documents_fail_as_encrypted(formats: Path) -> None:
    real = _extract(formats, "tika/testWORD_protected_passtika.doc")
    built = indexer.extract("x.doc", doc_file("secret\r", encrypted=True))
    for result in (real, built):
        assert (result.status, result.error) == ("failed", "encrypted")


def test_word_95_and_older_are_skipped_with_the_convert_reason_naming_the_version() -> None:
    result = indexer.extract("x.doc", doc_file("Old\r", n_fib=104))
    assert (result.status, result.chunks) == ("skipped", ())
    assert result.skipped == "legacy binary Word format: Word 6.0/95 (nFib 104), convert to .docx"
    assert result.skipped.startswith(LEGACY_WORD + ": ")
    word2 = indexer.extract("x.doc", doc_file("Old\r", n_fib=45))
    assert word2.skipped == (
        "legacy binary Word format: Word 2.0 or older (nFib 45), convert to .docx"
    )


def test_a_wordperfect_file_named_doc_fails_as_unrecognised(formats: Path) -> None:
    result = _extract(formats, "tika/testWordPerfect_42.doc")
    assert (result.status, result.error) == (
        "failed",
        "unrecognised: the content is not a doc file",
    )


def test_an_ole_file_without_a_word_stream_is_corrupt() -> None:
    result = indexer.extract("x.doc", ole_file({"Other": b"x"}))
    assert result.status == "failed"
    assert result.error == "corrupt: not a doc file (an OLE file of no known kind)"


def test_a_powerpoint_97_slide_gives_title_body_and_its_number() -> None:
    result = indexer.extract("x.ppt", PPT)
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("# Old deck\n\nStill readable", {"slide": 1})
    ]


def test_a_real_powerpoint_97_file_reads_each_current_slide_once(formats: Path) -> None:
    result = _extract(formats, "unstructured/fake-power-point.ppt")
    assert [(c.text, c.meta) for c in result.chunks] == [
        (
            "# Adding a Bullet Slide\n\nFind the bullet slide layout\n"
            "Use _TextFrame.text for first bullet\n"
            "Use _TextFrame.add_paragraph() for subsequent bullets\nHere is a lot of text!"
            "\n\nHere is some text in a text box!",
            {"slide": 1},
        )
    ]
    various = _extract(formats, "tika/testPPT_various.ppt")
    assert "Suddenly some Japanese text:\nゾルゲと尾崎、淡々と最期" in various.chunks[0].text


def test_an_encrypted_presentation_fails_as_encrypted(formats: Path) -> None:
    result = _extract(formats, "tika/testPPT_protected_passtika.ppt")
    assert (result.status, result.error) == ("failed", "encrypted")


def test_a_truncated_legacy_file_fails_as_corrupt_without_raising() -> None:
    for name, data in (("x.ppt", PPT), ("x.doc", doc_file("Some text\r"))):
        for cut in (600, 2000, len(data) - 700):
            result = indexer.extract(name, data[:cut])
            assert result.status == "failed", (name, cut)
            assert result.error is not None and result.error.startswith("corrupt:"), result.error
