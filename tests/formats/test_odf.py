"""OpenDocument text and presentations: the same chunk shapes as Word and PowerPoint."""

from __future__ import annotations

from pathlib import Path

import indexer
from indexer.formats.office.samples import odf_file


def _extract(formats: Path, rel: str) -> indexer.Extracted:
    return indexer.extract(rel, (formats / rel).read_bytes())


def _texts(result: indexer.Extracted) -> list[str]:
    return [chunk.text for chunk in result.chunks]


def test_an_odt_table_becomes_a_gfm_table(formats: Path) -> None:
    result = _extract(formats, "unstructured/fake.odt")
    assert result.kind == "odt" and result.status == "ok"
    assert _texts(result) == [
        "Lorem ipsum dolor sit amet.",
        "| Header row | Mon | Wed | Fri |\n| --- | --- | --- | --- |\n"
        "| Color | Blue | Red | Green |\n| Time | 1pm | 2pm | 3pm |\n"
        "| Leader | Sarah | Mark | Ryan |",
    ]


def test_odt_headings_set_the_path_and_lists_become_list_blocks(formats: Path) -> None:
    heading = "These are a few of my favorite things:"
    result = _extract(formats, "unstructured/simple.odt")
    assert (result.chunks[0].text, result.chunks[0].meta) == (
        f"# {heading}",
        {"headings": [heading]},
    )
    assert all(c.meta == {"headings": [heading]} for c in result.chunks)
    assert _texts(_extract(formats, "tika/testStyles.odt"))[2:] == [
        "- One\n- Two\n- Three",
        "- First\n- Second\n- Third",
    ]


def test_footnotes_comments_nested_lists_and_spaces_are_read() -> None:
    body = (
        '<text:h text:outline-level="2">Plan</text:h>'
        "<text:p>Cited<text:note><text:note-citation>1</text:note-citation><text:note-body>"
        "<text:p>The source.</text:p></text:note-body></text:note> here"
        '<office:annotation><dc:creator xmlns:dc="http://purl.org/dc/elements/1.1/">Ann</dc:creator>'
        "<text:p>Check this</text:p></office:annotation>.</text:p>"
        "<text:p>a<text:s text:c='3'/>b<text:tab/>c<text:line-break/>d</text:p>"
        "<text:list><text:list-item><text:p>top</text:p><text:list><text:list-item>"
        "<text:p>inner</text:p></text:list-item></text:list></text:list-item></text:list>"
        "<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted</text:p>"
        "</text:deletion></text:changed-region></text:tracked-changes>"
    )
    result = indexer.extract("x.odt", odf_file("text", body))
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("## Plan", {"headings": ["Plan"]}),
        ("Cited[^1] here.", {"headings": ["Plan"]}),
        ("a b c\nd", {"headings": ["Plan"]}),
        ("- top\n  - inner", {"headings": ["Plan"]}),
        ("[^1]: The source.", {"headings": [], "part": "notes"}),
        ("Comment (Ann): Check this", {"headings": [], "part": "comments"}),
    ]


def test_an_encrypted_odt_fails_as_encrypted(formats: Path) -> None:
    result = _extract(formats, "tika/testODTEncrypted.odt")
    assert (result.status, result.error) == ("failed", "encrypted")
    assert _texts(result) == ["[odt extraction failed: encrypted]"]


def test_document_properties_come_from_meta_xml(formats: Path) -> None:
    result = _extract(formats, "tika/testODTStyles2.odt")
    assert result.metadata == {
        "author": "Frank Hendrickx",
        "created": "2004-08-02T15:26:46",
        "modified": "2017-01-17T12:09:24.15",
    }


def test_an_odp_page_is_one_slide_chunk_with_its_title_first(formats: Path) -> None:
    result = _extract(formats, "tika/LibreOfficeImpress_odp_1.3.odp")
    assert result.kind == "odp" and result.metadata["slides"] == 2
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("# This is\n\nAn example Impress file", {"slide": 1})
    ]


def test_odp_frames_read_top_to_bottom_and_notes_follow() -> None:
    def frame(text: str, y: str, kind: str = "") -> str:
        cls = f' presentation:class="{kind}"' if kind else ""
        box = f"<draw:text-box><text:p>{text}</text:p></draw:text-box>"
        return f'<draw:frame svg:y="{y}"{cls}>{box}</draw:frame>'

    notes = "<presentation:notes>" + frame("say hello", "1cm", "notes") + "</presentation:notes>"
    first = frame("low", "10cm") + frame("high", "30mm") + frame("Agenda", "9cm", "title")
    page = f"<draw:page>{first}{notes}</draw:page><draw:page>{frame('second', '1in')}</draw:page>"
    result = indexer.extract("x.odp", odf_file("presentation", page))
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("# Agenda\n\nhigh\n\nlow\n\nNotes:\nsay hello", {"slide": 1}),
        ("second", {"slide": 2}),
    ]
