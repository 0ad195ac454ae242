"""Packing blocks into retrieval chunks: sizes, hard boundaries, context, nothing lost."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

from indexer._text import split_text
from indexer._types import Chunk
from indexer.chunking import Packing, pack

WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
SMALL = Packing(target=120, maximum=200, minimum=50)


def words(chunks: Iterable[Chunk | str]) -> list[str]:
    return [w for c in chunks for w in (c if isinstance(c, str) else c.text).split()]


def para(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def _top(block: Chunk) -> str | None:
    return (block.meta.get("headings") or [None])[0]


@st.composite
def blocks(draw: st.DrawFn) -> list[Chunk]:
    out = []
    for _ in range(draw(st.integers(0, 25))):
        text = " ".join(draw(st.lists(WORD, min_size=1, max_size=80)))
        meta: dict[str, Any] = {}
        if draw(st.booleans()):
            meta["headings"] = draw(st.lists(st.sampled_from(["A", "B", "C"]), max_size=3))
        if draw(st.booleans()):
            meta["page"] = draw(st.integers(1, 5))
        if draw(st.booleans()):
            meta["part"] = draw(st.sampled_from(["headers", "body"]))
        out.append(Chunk(text=text, meta=meta))
    return out


@settings(max_examples=examples(200), deadline=None)
@given(blocks())
def test_packing_keeps_every_word_in_order(given_blocks: list[Chunk]) -> None:
    assert words(pack(given_blocks, SMALL, 4000)) == words(given_blocks)


@settings(max_examples=examples(200), deadline=None)
@given(blocks(), st.integers(64, 400))
def test_no_chunk_is_over_the_maximum_or_max_chunk_chars(
    given_blocks: list[Chunk], max_chars: int
) -> None:
    for chunk in pack(given_blocks, SMALL, max_chars):
        assert len(chunk.text) <= min(SMALL.maximum, max_chars)
        assert chunk.text.strip()


@settings(max_examples=examples(200), deadline=None)
@given(blocks())
def test_a_chunk_never_crosses_a_part_or_a_top_level_heading(given_blocks: list[Chunk]) -> None:
    for chunk in pack(given_blocks, SMALL, 4000):
        first, last = chunk.meta["blocks"]
        inside = given_blocks[first : last + 1]
        parts = [b.meta.get("part") for b in inside]
        # a mail's header summary leads the body's start: the one part that may be crossed
        led = parts.count("headers")
        assert len(set(parts)) == 1 or parts == ["headers"] * led + ["body"] * (len(parts) - led)
        assert len({(b.meta.get("headings") or [None])[0] for b in inside}) == 1


@settings(max_examples=examples(200), deadline=None)
@given(blocks())
def test_a_mail_header_summary_is_never_a_chunk_alone(given_blocks: list[Chunk]) -> None:
    chunks = pack(given_blocks, SMALL, 4000)
    for chunk in chunks:
        first, last = chunk.meta["blocks"]
        nxt = given_blocks[last + 1] if last + 1 < len(given_blocks) else None
        alone = first == last and given_blocks[first].meta.get("part") == "headers"
        small = 2 * len(given_blocks[first].text) + 4 <= SMALL.maximum
        if alone and small and nxt is not None and nxt.meta.get("part") == "body":
            if _top(nxt) != _top(given_blocks[first]):
                continue  # a new top-level heading: a boundary still
            pytest.fail(f"header summary alone: {chunk.text!r}")


def test_blocks_mode_gives_the_extractors_chunks_exactly() -> None:
    given = [Chunk(text="a", meta={"para": 0}), Chunk(text="b", meta={"para": 1})]
    assert pack(given, Packing(mode="blocks"), 4000) == tuple(given)


def test_small_blocks_are_packed_to_about_the_target() -> None:
    given = [Chunk(text=para(8, f"p{i}_"), meta={"para": i}) for i in range(60)]
    chunks = pack(given, Packing(target=400, maximum=600, minimum=200), 4000)
    assert all(200 <= len(c.text) <= 400 for c in chunks[:-1])
    assert 200 <= len(chunks[-1].text) <= 600  # a short tail joined the chunk before it
    for chunk, after in itertools.pairwise(chunks):  # closed only when the next would not fit
        next_block = given[after.meta["blocks"][0]].text
        assert chunk.meta["blocks"][1] + 1 == after.meta["blocks"][0]
        assert len(chunk.text) + 2 + len(next_block) > 400


def test_a_short_last_chunk_joins_the_one_before_when_it_fits() -> None:
    given = [Chunk(text=para(40, tag), meta={}) for tag in "ab"] + [Chunk(text="end", meta={})]
    chunks = pack(given, Packing(target=150, maximum=400, minimum=100), 4000)
    assert [c.meta["blocks"] for c in chunks] == [[0, 0], [1, 2]]
    assert chunks[-1].text.endswith("\n\nend")


def test_pages_may_be_crossed_and_the_range_is_recorded() -> None:
    given = [Chunk(text=para(10), meta={"page": p}) for p in (1, 1, 2, 3)]
    (chunk,) = pack(given, Packing(), 4000)
    assert chunk.meta["pages"] == [1, 3] and chunk.meta["blocks"] == [0, 3]


@pytest.mark.parametrize("key", ["sheet", "slide", "part", "chapter"])
def test_sheets_slides_parts_and_chapters_are_hard_boundaries(key: str) -> None:
    given = [Chunk(text="x y", meta={key: 1}), Chunk(text="z", meta={key: 2})]
    assert [c.text for c in pack(given, Packing(), 4000)] == ["x y", "z"]


def test_json_records_are_packed_whole_and_never_cut() -> None:
    given = [Chunk(text=f'{{"n": {i}, "text": "{para(20)}"}}', meta={"index": i}) for i in range(9)]
    chunks = pack(given, Packing(target=300, maximum=500, minimum=100), 4000)
    assert len(chunks) > 1
    for chunk in chunks:
        first, last = chunk.meta["blocks"]
        assert chunk.text == "\n\n".join(b.text for b in given[first : last + 1])
        assert chunk.meta["index"] == first


def test_subsections_share_a_chunk_under_their_common_heading_path() -> None:
    given = [
        Chunk(text="intro", meta={"headings": ["Guide"]}),
        Chunk(text="setup text", meta={"headings": ["Guide", "Setup"]}),
        Chunk(text="use text", meta={"headings": ["Guide", "Use"]}),
        Chunk(text="other", meta={"headings": ["Appendix"]}),
    ]
    chunks = pack(given, Packing(), 4000)
    assert [c.meta["headings"] for c in chunks] == [["Guide"], ["Appendix"]]
    assert chunks[0].text == "intro\n\nsetup text\n\nuse text"


def test_a_block_over_the_maximum_is_cut_at_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} says something short." for i in range(40)]
    chunks = pack([Chunk(text=" ".join(sentences), meta={})], SMALL, 4000)
    assert len(chunks) > 1
    assert all(c.text.endswith(".") for c in chunks)
    assert words(chunks) == " ".join(sentences).split()


def test_a_split_table_repeats_its_header_rows_in_every_piece() -> None:
    rows = "\n".join(f"| {i} | value {i} |" for i in range(60))
    table = f"| n | v |\n| --- | --- |\n{rows}"
    chunks = pack([Chunk(text=table, meta={"headings": []})], SMALL, 4000)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.startswith("| n | v |\n| --- | --- |\n| ")
        assert len(chunk.text) <= SMALL.maximum
    body = [line for c in chunks for line in c.text.splitlines()[2:]]
    assert body == rows.splitlines()


def test_overlap_repeats_the_previous_chunks_last_words() -> None:
    given = [Chunk(text=para(30, f"b{i}_"), meta={}) for i in range(6)]
    packing = Packing(target=200, maximum=400, minimum=100, overlap=40)
    chunks = pack(given, packing, 4000)
    for before, after in itertools.pairwise(chunks):
        tail = after.text.split("\n", 1)[0]
        assert 0 < len(tail) <= 40 and before.text.endswith(tail)
        assert len(after.text) <= packing.maximum


def test_the_prefix_names_the_title_and_heading_and_the_plain_text_follows() -> None:
    given = [Chunk(text="body", meta={"headings": ["Results", "Table 2"]})]
    (chunk,) = pack(given, Packing(prefix=True), 4000, title="Q3 report")
    assert chunk.text == "Q3 report > Results\n\nbody"
    assert chunk.meta["context"] == "Q3 report > Results"
    (plain,) = pack(given, Packing(), 4000, title="Q3 report")
    assert plain.text == "body" and plain.meta["context"] == "Q3 report > Results"


def test_sizes_can_count_tokens_of_a_local_tokenizer(tmp_path: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, **{f"t{i}": i + 1 for i in range(50)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    packing = Packing(unit="tokens", tokenizer=str(path), target=30, maximum=40, minimum=10)
    given = [Chunk(text=" ".join(f"t{j}" for j in range(i, i + 7)), meta={}) for i in range(30)]
    chunks = pack(given, packing, 4000)
    counts = [len(tokenizer.encode(c.text, add_special_tokens=False).ids) for c in chunks]
    assert all(c <= 40 for c in counts) and max(counts) > 20
    assert words(chunks) == words(given)


@pytest.mark.parametrize(
    "bad",
    [
        {"target": 100, "maximum": 50},
        {"minimum": 0},
        {"overlap": 1000},
        {"unit": "tokens"},
        {"mode": "pages"},
    ],
)
def test_impossible_settings_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Packing(**bad)


def sheet_block(records: range, titles: tuple[str, ...] = ("Quarterly sales",)) -> Chunk:
    head = ["## Sales", *titles, "Region | Product | Units"]
    rows = [f"Region: north {i} | Product: widget {i} | Units: {i * 7}" for i in records]
    return Chunk(text="\n".join(head + rows), meta={"sheet": "Sales", "rows": [2, 99]})


def test_a_cut_sheet_block_repeats_its_name_titles_and_header_row() -> None:
    block = sheet_block(range(60))
    chunks = pack([block], SMALL, 4000)
    assert len(chunks) > 2
    head = "## Sales\nQuarterly sales\nRegion | Product | Units\nRegion: north "
    assert all(c.text.startswith(head) and len(c.text) <= SMALL.maximum for c in chunks)
    records = [line for c in chunks for line in c.text.splitlines()[3:]]
    assert records == block.text.splitlines()[3:]


def test_a_cut_sheet_without_a_header_row_repeats_only_its_name() -> None:
    rows = "\n".join(f"A: {i} | B: {i * 3} | C: note {i}" for i in range(80))
    chunks = pack(
        [Chunk(text=f"## Data\n{rows}", meta={"sheet": "Data", "rows": [1, 80]})], SMALL, 4000
    )
    assert len(chunks) > 2
    assert all(c.text.startswith("## Data\nA: ") for c in chunks)


def test_a_csv_header_line_is_repeated_however_wide_while_it_leaves_room() -> None:
    header = ",".join(f"column_{i}" for i in range(25))  # 250 characters
    rows = [",".join(f"{r}.{c}" for c in range(25)) for r in range(30)]
    chunks = pack([Chunk(text="\n".join([header, *rows]), meta={"rows": [1, 30]})], Packing(), 4000)
    assert len(chunks) > 1
    assert all(c.text.startswith(header + "\n") for c in chunks)


def test_a_header_taking_over_half_a_chunk_is_not_repeated_and_no_chunk_is_over() -> None:
    header = "x" * 150
    text = "\n".join([header, *(para(6, f"r{i}_") for i in range(40))])
    chunks = pack([Chunk(text=text, meta={"rows": [1, 40]})], SMALL, 4000)
    assert sum(c.text.startswith(header) for c in chunks) == 1
    assert all(len(c.text) <= SMALL.maximum for c in chunks)
    assert words(chunks) == text.split()


def test_a_csv_header_too_wide_to_repeat_starts_the_first_piece_and_is_never_alone() -> None:
    header = ",".join(f"Column{i}" for i in range(150))  # 1,339 characters: over half
    record = " | ".join(f"Column{i}: value {i}" for i in range(150))  # 3,186
    text = f"{header}\n{record}"
    chunks = pack([Chunk(text=text, meta={"rows": [1, 1]})], Packing(), 4000)
    assert len(chunks) > 1
    assert chunks[0].text.startswith(f"{header}\nColumn0: value 0")
    assert all(c.text.strip() != header for c in chunks)
    assert all(len(c.text) <= Packing().maximum for c in chunks)
    assert words(chunks) == text.split()


def test_a_mail_header_summary_packs_with_the_body_start_however_long_the_body() -> None:
    summary = "From: Ann <ann@example.com>\nTo: team@example.com\nSubject: Q3 numbers"
    body = [para(400, "b"), para(30, "c")]  # the first body block over the maximum
    given = [Chunk(text=summary, meta={"part": "headers"})]
    given += [Chunk(text=t, meta={"part": "body"}) for t in body]
    chunks = pack(given, Packing(), 4000)
    assert chunks[0].text.startswith(f"{summary}\n\nb0 b1")
    assert chunks[0].meta["part"] == "headers" and chunks[0].meta["blocks"] == [0, 1]
    assert all(c.meta["part"] == "body" for c in chunks[1:])
    assert all(len(c.text) <= Packing().maximum for c in chunks)
    assert words(chunks) == words(given)


def test_a_header_summary_leads_a_body_that_opens_with_a_quote_and_says_it_is_one() -> None:
    """A reply whose body opens with the quote: the summary is no chunk of its own, and
    the chunk it shares with the quote is marked quoted (a corpus pass may drop it)."""
    summary = "From: Ann <ann@example.com>\nSubject: Re: Q3"
    given = [Chunk(text=summary, meta={"part": "headers", "quoted": False})]
    given += [Chunk(text=para(30, "q"), meta={"part": "quoted", "quoted": True})]
    given += [Chunk(text=para(30, "b"), meta={"part": "body", "quoted": False})]
    chunks = pack(given, Packing(), 4000)
    assert all(c.text.strip() != summary for c in chunks)
    assert chunks[0].text.startswith(f"{summary}\n\nq0")
    assert (chunks[0].meta["part"], chunks[0].meta["quoted"]) == ("quoted", True)
    assert (chunks[-1].meta["part"], chunks[-1].meta["quoted"]) == ("body", False)
    assert words(chunks) == words(given)


def test_a_mail_without_a_body_is_its_header_summary() -> None:
    given = [Chunk(text="From: a@b\nSubject: hi", meta={"part": "headers"})]
    assert [c.text for c in pack(given, Packing(), 4000)] == ["From: a@b\nSubject: hi"]


def test_a_block_over_the_maximum_is_cut_into_pieces_of_about_equal_size() -> None:
    text = para(830)  # 4,039 characters
    assert min(map(len, split_text(text, 2000))) < 100  # cut at the maximum: a short tail
    chunks = pack([Chunk(text=text, meta={})], Packing(), 4000)
    sizes = [len(c.text) for c in chunks]
    assert len(sizes) == 3 and max(sizes) <= 2000 and min(sizes) > 1200
    assert words(chunks) == text.split()


def test_a_long_title_is_cut_in_the_context_and_the_prefix_leaves_room_for_text() -> None:
    title = " ".join(["Subject line"] * 2000)
    given = [Chunk(text=para(200), meta={})]
    chunks = pack(given, Packing(prefix=True), 4000, title=title)
    assert all(len(c.meta["context"]) <= 200 for c in chunks)
    assert all(len(c.text) <= 2000 for c in chunks)
    assert words(c.text.split("\n\n", 1)[1] for c in chunks) == words(given)


def test_a_packed_chunk_holding_any_page_read_poorly_is_flagged() -> None:
    good = {"page": 1, "ocr": True, "ocr_confidence": 93.0}
    poor = {"page": 2, "ocr": True, "ocr_confidence": 41.0, "low_confidence": True}
    blocks = [Chunk(text="words read well " * 3, meta=good), Chunk(text="garbled", meta=poor)]
    (packed,) = pack(blocks, SMALL, 10_000)
    assert packed.meta["pages"] == [1, 2]
    assert packed.meta["low_confidence"] is True
    (clean,) = pack([blocks[0], Chunk(text="more", meta={**good, "page": 2})], SMALL, 10_000)
    assert "low_confidence" not in clean.meta
