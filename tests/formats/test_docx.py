"""Word documents: real files from ../shared/formats give their text and structure, and
documents built here pin down each construct (headings, lists, tables, notes, boxes)."""

from __future__ import annotations

from pathlib import Path

import pytest

import indexer
from indexer.formats.office.samples import docx_file

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _extract(formats: Path, rel: str, **options: int) -> indexer.Extracted:
    return indexer.extract(rel, (formats / rel).read_bytes(), indexer.Options(**options))


def _texts(result: indexer.Extracted) -> list[str]:
    return [chunk.text for chunk in result.chunks]


def _p(text: str, props: str = "") -> str:
    return f"<w:p><w:pPr>{props}</w:pPr><w:r><w:t xml:space='preserve'>{text}</w:t></w:r></w:p>"


def test_word_heading_styles_become_headings_whose_path_every_chunk_carries(
    formats: Path,
) -> None:
    result = _extract(formats, "markitdown/test_with_comment.docx")
    title = "AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation"
    assert result.status == "ok" and result.kind == "docx"
    assert (result.chunks[0].text, result.chunks[0].meta) == (f"# {title}", {"headings": [title]})
    abstract = next(c for c in result.chunks if c.text == "# Abstract")
    assert abstract.meta == {"headings": ["Abstract"]}
    nested = next(c for c in result.chunks if c.text.startswith("In light of the intuition"))
    assert nested.meta == {"headings": ["Introduction", "d666f1f7-46cb-42bd-9a39-9a39cf2a509f"]}


def test_tables_become_gfm_tables_and_links_keep_their_target(formats: Path) -> None:
    result = _extract(formats, "unstructured/fake_table.docx")
    assert _texts(result) == [
        "| Header Col 1 | Header Col 2 |\n| --- | --- |\n"
        "| Lorem ipsum | [A Link example](http://github.com/) |",
        "Dolor sit amet",
    ]


def test_list_paragraphs_become_one_list_with_words_markers(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_numbered_list.docx")
    assert _texts(result)[0] == "1) This\n  a) Is\n    i) A multi\n    ii) Level"
    assert "6. six\n7. seven\n  a. seven a\ne. seven e\nf. seven f" in _texts(result)


def test_headers_notes_and_footers_come_once_each_around_the_body(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_various.docx")
    first, last = result.chunks[0], result.chunks[-1]
    assert (first.text, first.meta) == (
        "This is the header text.",
        {"headings": [], "part": "header"},
    )
    assert (last.text, last.meta) == (
        "This is the footer text.",
        {"headings": [], "part": "footer"},
    )
    assert "Footnote appears here[^1]" in _texts(result)
    note = next(c for c in result.chunks if c.meta.get("part") == "notes")
    assert note.text == "[^1]: This is a footnote."
    assert _texts(result).count("This is the header text.") == 1
    assert result.metadata == {
        "author": "Michael McCandless",
        "created": "2011-09-05T11:00:00Z",
        "modified": "2017-11-24T00:00:52Z",
    }


def test_comments_follow_the_body_with_their_author(formats: Path) -> None:
    result = _extract(formats, "markitdown/test_with_comment.docx")
    comments = [c.text for c in result.chunks if c.meta.get("part") == "comments"]
    assert comments == [
        "Comment (Unknown Author): This is a test comment. 12df-321a",
        "Comment (Unknown Author): Yet another comment in the doc. 55yiyi-asd09",
    ]


def test_text_boxes_follow_their_anchor_once_in_body_header_and_footer(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_text_box.docx")
    assert [(c.text, c.meta.get("part")) for c in result.chunks] == [
        ("This text is inside of a text box in the header of the document.", "header"),
        ("This text is directly in the body of the document.", None),
        ("This text is inside of a text box in the body of the document.", None),
        ("This text is inside of a text box in the footer of the document.", "footer"),
    ]


def test_a_chart_gives_its_title_and_its_data_as_a_table(formats: Path) -> None:
    result = _extract(formats, "tika/testWORD_charts.docx")
    assert _texts(result)[0] == "Chart: wants a peach"
    assert _texts(result)[1].startswith("| Category | NUMBER |\n| --- | --- |\n| January | 5 |")


def test_an_imported_html_chunk_is_rendered_by_the_html_kind(formats: Path) -> None:
    result = _extract(formats, "tika/testAltChunkHTML.docx")
    assert (
        _texts(result)[-1]
        == "| Col 1 | Col 2 |\n| --- | --- |\n| ROW 1 | ROW 1 |\n| ROW 2 | ROW 2 |"
    )
    mhtml = _extract(formats, "tika/testAltChunkMHT.docx")
    assert _texts(mhtml)[:2] == ["Simple paragraph with a emphasized word.", "Example of a table:"]


def test_a_word_2003_xml_file_named_doc_is_read_as_word(formats: Path) -> None:
    result = _extract(formats, "tika/testWORDML_tableInsideParagraph.doc")
    assert (result.kind, result.status, result.metadata) == ("doc", "ok", {"format": "docx"})
    assert _texts(result)[:3] == ["First Page", "Some Data", "Second column"]


def test_tracked_deletions_and_moved_away_text_are_not_text() -> None:
    body = (
        "<w:p><w:r><w:t>kept </w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del>"
        "<w:ins><w:r><w:t>added</w:t></w:r></w:ins>"
        "<w:moveFrom><w:r><w:t>moved away</w:t></w:r></w:moveFrom></w:p>"
    )
    assert _texts(indexer.extract("x.docx", docx_file(body))) == ["kept added"]


def test_an_alternate_content_fallback_does_not_repeat_its_text_box() -> None:
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    box = "<w:txbxContent>" + _p("boxed") + "</w:txbxContent>"
    body = (
        f"<w:p><w:r><w:t>anchor</w:t></w:r><w:r><mc:AlternateContent {mc}>"
        f"<mc:Choice Requires='wps'><w:drawing><x>{box}</x></w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict><y>{box}</y></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r></w:p>"
    )
    assert _texts(indexer.extract("x.docx", docx_file(body))) == ["anchor", "boxed"]


def test_a_large_table_is_split_with_its_header_repeated() -> None:
    cell = "<w:tc>" + _p("{}") + "</w:tc>"
    rows = "".join(
        "<w:tr>" + cell.format(f"row {i}") + cell.format("x" * 30) + "</w:tr>" for i in range(60)
    )
    result = indexer.extract(
        "x.docx", docx_file(f"<w:tbl>{rows}</w:tbl>"), indexer.Options(max_chunk_chars=400)
    )
    assert len(result.chunks) > 3
    for chunk in result.chunks:
        assert len(chunk.text) <= 400
        assert chunk.text.startswith(f"| row 0 | {'x' * 30} |\n| --- | --- |\n")


def test_outline_levels_and_styles_based_on_headings_are_headings() -> None:
    styles = (
        '<w:style w:styleId="H1"><w:name w:val="heading 1"/></w:style>'
        '<w:style w:styleId="Mine"><w:name w:val="My heading"/><w:basedOn w:val="H1"/></w:style>'
    )
    body = (
        _p("Part", "<w:pStyle w:val='Mine'/>")
        + _p("Section", "<w:outlineLvl w:val='1'/>")
        + _p("Text")
        + _p("Next part", "<w:pStyle w:val='H1'/>")
    )
    result = indexer.extract("x.docx", docx_file(body, styles))
    assert [(c.text, c.meta["headings"]) for c in result.chunks] == [
        ("# Part", ["Part"]),
        ("## Section", ["Part", "Section"]),
        ("Text", ["Part", "Section"]),
        ("# Next part", ["Next part"]),
    ]


def test_hyperlink_fields_become_links_and_other_field_codes_vanish() -> None:
    def run(inner: str) -> str:
        return f"<w:r>{inner}</w:r>"

    complex_link = (
        run("<w:fldChar w:fldCharType='begin'/>")
        + run('<w:instrText> HYPERLINK "https://example.com/a b" </w:instrText>')
        + run("<w:fldChar w:fldCharType='separate'/>")
        + run("<w:t>the site</w:t>")
        + run("<w:fldChar w:fldCharType='end'/>")
    )
    page = (
        run("<w:fldChar w:fldCharType='begin'/>")
        + run("<w:instrText>PAGE</w:instrText>")
        + run("<w:fldChar w:fldCharType='separate'/>")
        + run("<w:t>7</w:t>")
        + run("<w:fldChar w:fldCharType='end'/>")
    )
    simple = (
        "<w:fldSimple w:instr='HYPERLINK \"mailto:a@b.c\"'><w:r><w:t>mail</w:t></w:r></w:fldSimple>"
    )
    anchor = "<w:fldSimple w:instr='HYPERLINK \\l \"top\"'><w:r><w:t>up</w:t></w:r></w:fldSimple>"
    body = f"<w:p>{run('<w:t>See </w:t>')}{complex_link}{run('<w:t>, page </w:t>')}{page}</w:p>"
    space = run("<w:t xml:space='preserve'> </w:t>")
    body += f"<w:p>{simple}{space}{anchor}</w:p>"
    assert _texts(indexer.extract("x.docx", docx_file(body))) == [
        "See [the site](https://example.com/a%20b), page 7",
        "[mail](mailto:a@b.c) up",
    ]


def test_a_dangling_relationship_loses_only_its_target() -> None:
    body = (
        "<w:p><w:hyperlink xmlns:r='http://schemas.openxmlformats.org/officeDocument/2006/"
        "relationships' r:id='rId99'><w:r><w:t>no target</w:t></w:r></w:hyperlink></w:p>"
    )
    result = indexer.extract("x.docx", docx_file(body))
    assert (result.status, _texts(result)) == ("ok", ["no target"])


@pytest.mark.parametrize("name", ["x.docx", "x.docm", "x.dotx", "x.dotm"])
def test_every_word_extension_is_read_as_docx(name: str) -> None:
    result = indexer.extract(name, docx_file(_p("same")))
    assert (result.kind, _texts(result)) == ("docx", ["same"])
