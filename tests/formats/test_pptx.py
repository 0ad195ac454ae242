"""PowerPoint presentations: one chunk per slide, in order, with its title, text in reading
order, tables, charts, comments and speaker notes."""

from __future__ import annotations

from pathlib import Path

import indexer
from indexer.formats.office.samples import pptx_file, text_shape


def _extract(formats: Path, rel: str) -> indexer.Extracted:
    return indexer.extract(rel, (formats / rel).read_bytes())


def test_each_slide_is_one_chunk_in_order_with_its_title_first(formats: Path) -> None:
    result = _extract(formats, "unstructured/sample-presentation.pptx")
    assert result.status == "ok" and result.metadata == {"slides": 4}
    assert [c.meta for c in result.chunks] == [{"slide": n} for n in (1, 2, 3, 4)]
    assert result.chunks[0].text == "# Title Slide\n\nWith a subtitle"
    assert result.chunks[3].text == (
        "# This is kinda backwards, huh?\n\n| Table | A | B | C |\n| --- | --- | --- | --- |\n"
        "| 1 | A1 | B1 | C1 |\n| 2 | A2 | B2 | C2 |"
    )


def test_tables_become_gfm_tables(formats: Path) -> None:
    result = _extract(formats, "unstructured/fake-power-point-table.pptx")
    assert result.chunks[0].text == (
        "# A Slide with a Table\n\n| Column 1 | Column 2 | Column 3 |\n| --- | --- | --- |\n"
        "| Red | Green | Blue |\n| Purple | Orange | Yellow |\n| Tangerine | Pink | Aqua |"
    )


def test_notes_charts_and_comments_stay_with_their_slide(formats: Path) -> None:
    result = _extract(formats, "tika/testPPT_various2.pptx")
    slides = {c.meta["slide"]: c.text for c in result.chunks}
    assert len(slides) == 10 == result.metadata["slides"]
    assert slides[2].endswith("Comment: Slide2Comment\n\nNotes:\nNotesWordArtPage2\nNotesForSlide2")
    assert "Chart: SLIDE3ChartTitle\n\n| Category | Series 1 | Series 2 | Series 3 |" in slides[3]
    assert "| Category 2 | 2.5 | 4.4 | 2 |" in slides[3]
    assert slides[9].startswith("This slide is hidden")


def test_grouped_shapes_are_read_where_their_group_sits(formats: Path) -> None:
    result = _extract(formats, "unstructured/group-shapes-nested.pptx")
    assert result.chunks[0].text.split("\n\n") == ["B", "D", "A", "C", "E", "F", "G", "H", "I", "J"]


def test_shapes_are_read_top_to_bottom_whatever_their_order_in_the_file() -> None:
    deck = pptx_file(
        [text_shape("third", y=3000) + text_shape("first", y=1000) + text_shape("second", y=2000)]
    )
    assert indexer.extract("x.pptx", deck).chunks[0].text == "first\n\nsecond\n\nthird"


def test_a_slide_longer_than_the_limit_splits_keeping_its_number() -> None:
    shapes = "".join(text_shape(f"point {i} " + "word " * 20, y=i) for i in range(20))
    result = indexer.extract(
        "x.pptx", pptx_file([text_shape("Short"), shapes]), indexer.Options(max_chunk_chars=300)
    )
    assert result.chunks[0].text == "Short" and result.chunks[0].meta == {"slide": 1}
    rest = result.chunks[1:]
    assert len(rest) > 2 and all(c.meta == {"slide": 2} and len(c.text) <= 300 for c in rest)
    assert (
        " ".join(c.text for c in rest).split()
        == " ".join(f"point {i} " + "word " * 20 for i in range(20)).split()
    )


def test_slides_follow_the_presentation_list_not_file_names() -> None:
    deck = pptx_file([text_shape("one"), text_shape("two")], order=[1, 0])
    assert [c.text for c in indexer.extract("x.pptx", deck).chunks] == ["two", "one"]


def test_properties_and_the_slide_count_go_in_metadata(formats: Path) -> None:
    result = _extract(formats, "tika/testComment.pptx")
    assert result.metadata == {
        "title": "Here is some text",
        "author": "Michael McCandless",
        "created": "2011-09-17T12:44:40Z",
        "modified": "2011-09-17T12:46:16Z",
        "slides": 1,
    }
    assert result.chunks[0].text == "# Here is some text\n\nComment: Here is a comment"
