"""The `csv` extractor: reference golden cases, our divergences, fixtures and the real corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual_kinds import (
    GOLDEN,
    REGISTRY_INPUTS,
    Case,
    assert_invariants,
    assert_lists_match_golden,
    golden,
    golden_registry_chunks,
    manifest_paths,
    outcome,
)

from indexer import Options, extract
from indexer.formats import csv as csv_extractor

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "csv"
OPTIONS = Options()


def grouping_input(rows: int, width: int) -> str:
    header = ",".join(f"h{j + 1}" for j in range(width))
    body = (",".join(f"r{i}" if j == 0 else f"v{i}" for j in range(width)) for i in range(rows))
    return "\n".join([header, *body])


def grouping_records(first: int, last: int, width: int) -> str:
    return "\n".join(
        " | ".join(f"h{j + 1}: r{i}" if j == 0 else f"h{j + 1}: v{i}" for j in range(width))
        for i in range(first, last)
    )


# Golden cases of kind csv where we agree with the reference:
# (name, path, input, text, chunks).
AGREED: list[Case] = [
    ("dispatch_Csv_mixed", "t.Csv", "a,b\n1,2", "a: 1 | b: 2", ["a,b\na: 1 | b: 2"]),
    ("dispatch_tsv_with_commas", "t.tsv", "a,b\n1,2", "a,b: 1,2", ["a,b\na,b: 1,2"]),
    ("dispatch_empty_csv", "n.csv", "", "", []),
    ("csv_basic", "t.csv", "name,age\nAlice,30\nBob,25",
     "name: Alice | age: 30\nname: Bob | age: 25",
     ["name,age\nname: Alice | age: 30\nname: Bob | age: 25"]),
    ("csv_quoted", "t.csv", 'a,b\n"x,y","he said ""hi"""\n', 'a: x,y | b: he said "hi"',
     ['a,b\na: x,y | b: he said "hi"']),
    ("csv_crlf", "t.csv", "a,b\r\n1,2\r\n3,4\r\n", "a: 1 | b: 2\na: 3 | b: 4",
     ["a,b\na: 1 | b: 2\na: 3 | b: 4"]),
    ("csv_lone_cr", "t.csv", "a,b\r1,2\r3,4", "a: 1 | b: 2\na: 3 | b: 4",
     ["a,b\na: 1 | b: 2\na: 3 | b: 4"]),
    ("csv_blank_lines", "t.csv", "a,b\n\n1,2\n\n\n3,4\n\n", "a: 1 | b: 2\na: 3 | b: 4",
     ["a,b\na: 1 | b: 2\na: 3 | b: 4"]),
    ("csv_ragged_extra", "t.csv", "a,b\n1,2,3,4\n5", "a: 1 | b: 2 | col2: 3 | col3: 4\na: 5",
     ["a,b\na: 1 | b: 2 | col2: 3 | col3: 4\na: 5"]),
    ("csv_short_row", "t.csv", "a,b,c\n1", "a: 1", ["a,b,c\na: 1"]),
    ("csv_empty_values", "t.csv", "a,b,c\n,x,\n", "a:  | b: x | c: ", ["a,b,c\na:  | b: x | c: "]),
    ("csv_all_empty_row", "t.csv", "a,b\n,,\n1,2", "a: 1 | b: 2", ["a,b\na: 1 | b: 2"]),
    ("csv_spaces", "t.csv", " a , b \n 1 , 2 ", "a: 1 | b: 2", [" a , b \na: 1 | b: 2"]),
    ("csv_embedded_newline", "t.csv", 'a,b\n"line1\nline2",x', "a: line1\nline2 | b: x",
     ["a,b\na: line1\nline2 | b: x"]),
    ("csv_unterminated_quote", "t.csv", 'a,b\n"open,1\n2,3', "a: open,1\n2,3",
     ["a,b\na: open,1\n2,3"]),
    ("csv_quote_mid_field", "t.csv", 'a,b\nab"c,d"e,f', "a: abc,de | b: f",
     ["a,b\na: abc,de | b: f"]),
    ("csv_whitespace_only", "t.csv", "   \n  \n", "", []),
    ("csv_trailing_comma_no_newline", "t.csv", "a,\n1,", "a: 1 | : ", ["a,\na: 1 | : "]),
    ("csv_empty_header_cells", "t.csv", ",b\n1,2", ": 1 | b: 2", [",b\n: 1 | b: 2"]),
    ("csv_45_rows_grouping", "t.csv", grouping_input(45, 2), grouping_records(0, 45, 2),
     ["h1,h2\n" + grouping_records(0, 20, 2), "h1,h2\n" + grouping_records(20, 40, 2),
      "h1,h2\n" + grouping_records(40, 45, 2)]),
    ("csv_40_rows_grouping", "t.csv", grouping_input(40, 1).replace("h1", "h"),
     grouping_records(0, 40, 1).replace("h1", "h"),
     ["h\n" + grouping_records(0, 20, 1).replace("h1", "h"),
      "h\n" + grouping_records(20, 40, 1).replace("h1", "h")]),
    ("tsv_basic", "t.tsv", "a\tb\n1\t2", "a: 1 | b: 2", ["a\tb\na: 1 | b: 2"]),
    ("tsv_quotes", "t.tsv", 'a\tb\n"x\ty"\t2', "a: x\ty | b: 2", ["a\tb\na: x\ty | b: 2"]),
]  # fmt: skip


# Golden cases where we deliberately differ (docs/compat.md (`csv`) says why):
# (name, path, input, our text, our chunks).
DIVERGED: list[Case] = [
    ("csv_header_only", "t.csv", "just,a,header", "just,a,header", ["just,a,header"]),
    ("csv_header_only_newline", "t.csv", "just,a,header\n", "just,a,header", ["just,a,header"]),
    ("csv_single_field", "t.csv", "hello", "hello", ["hello"]),
    ("csv_header_quoted_delim", "t.csv", '"x,y",z\n1,2', "x,y: 1 | z: 2",
     ['"x,y",z\nx,y: 1 | z: 2']),
    ("csv_bom", "t.csv", "\ufeffname,age\nA,1", "name: A | age: 1", ["name,age\nname: A | age: 1"]),
    ("csv_semicolon", "t.csv", "a;b\n1;2", "a: 1 | b: 2", ["a;b\na: 1 | b: 2"]),
    ("csv_crlf_in_quotes", "t.csv", 'a\r\n"x\r\ny"\r\n', "a: x\ny", ["a\na: x\ny"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "path", "source", "text", "chunks"), AGREED + DIVERGED)
def test_golden_case(name: str, path: str, source: str, text: str, chunks: list[str]) -> None:
    assert outcome(path, source) == (text, chunks)


def test_golden_cases_are_of_kind_csv_and_never_degraded() -> None:
    results = [extract(path, source.encode()) for _, path, source, *_ in AGREED + DIVERGED]
    assert {(r.kind, r.degraded) for r in results} == {("csv", False)}


# The registry's text-to-chunks form, on the reference's conformance strings.
CHUNKER = list(
    zip(
        REGISTRY_INPUTS,
        [
            [],
            ["single line"],
            ["a\na: b"],
            ["para one\npara one: para two\npara one: para three"],
            ["mültibyte ä ö ü 漢字 \nmültibyte ä ö ü 漢字: end"],
            ["hello world"],
            [],
        ],
        strict=True,
    )
)


@pytest.mark.parametrize(("source", "chunks"), CHUNKER)
def test_chunker_matches_reference_registry_chunker(source: str, chunks: list[str]) -> None:
    assert [c.text for c in csv_extractor.chunk(source, OPTIONS).chunks] == chunks


def test_meta_counts_non_blank_data_rows_from_one() -> None:
    result = extract("t.csv", grouping_input(45, 2).replace("\nr5,", "\n,,\n\nr5,").encode())
    assert [c.meta for c in result.chunks] == [
        {"rows": [1, 20]},
        {"rows": [21, 40]},
        {"rows": [41, 45]},
    ]


def test_rows_quoted_end_to_end_read_alike_with_or_without_quotes_inside() -> None:
    # "x","y" is split in place; "p""q","r" (a quote inside) and the rows
    # spanning lines, one of them unterminated, go through `split_quoted`.
    source = b'a,b\n"x","y"\n"p""q","r"\n"m\nn",o\n"u","v"\n"open,"\n'
    result = extract("t.csv", source, Options(rows_per_chunk=2))
    assert [(c.text, c.meta) for c in result.chunks] == [
        ('a,b\na: x | b: y\na: p"q | b: r', {"rows": [1, 2]}),
        ("a,b\na: m\nn | b: o\na: u | b: v", {"rows": [3, 4]}),
        ("a,b\na: open,", {"rows": [5, 5]}),
    ]
    assert result.text == 'a: x | b: y\na: p"q | b: r\na: m\nn | b: o\na: u | b: v\na: open,'


def test_rows_per_chunk_option_sets_the_group_size() -> None:
    result = extract("t.csv", grouping_input(5, 2).encode(), Options(rows_per_chunk=2))
    assert [c.text for c in result.chunks] == [
        "h1,h2\n" + grouping_records(0, 2, 2),
        "h1,h2\n" + grouping_records(2, 4, 2),
        "h1,h2\n" + grouping_records(4, 5, 2),
    ]


def test_groups_shrink_to_keep_header_and_stay_under_max_chunk_chars() -> None:
    # Each record is 5 + 10 + 3 + 1 + 11 = 30 characters, the header line 5.
    source = "a,b\n" + "\n".join(f"{'x' * 10},{i:011d}" for i in range(10))
    result = extract("t.csv", source.encode(), Options(max_chunk_chars=100))
    assert [c.meta for c in result.chunks] == [
        {"rows": [1, 3]},
        {"rows": [4, 6]},
        {"rows": [7, 9]},
        {"rows": [10, 10]},
    ]
    assert all(c.text.startswith("a,b\na: xxxxxxxxxx | b: ") for c in result.chunks)
    assert all(len(c.text) <= 100 for c in result.chunks)


@pytest.mark.parametrize(
    ("max_chunk_chars", "metas"), [(96, [[1, 3], [4, 4]]), (95, [[1, 2], [3, 4]])]
)
def test_a_full_group_is_kept_when_it_fits_the_budget_exactly(
    max_chunk_chars: int, metas: list[list[int]]
) -> None:
    # Header line 3 + 1, three 30-character records and their two newlines: 96 exactly.
    source = "a,b\n" + "\n".join(f"{'x' * 10},{i:011d}" for i in range(4))
    options = Options(rows_per_chunk=3, max_chunk_chars=max_chunk_chars)
    result = extract("t.csv", source.encode(), options)
    assert [c.meta["rows"] for c in result.chunks] == metas


def test_header_line_requotes_cells_holding_delimiter_quote_or_newline() -> None:
    assert csv_extractor.join_row(["a,b", 'say "hi"', "x\ny", "plain", ""], ",") == (
        '"a,b","say ""hi""","x\ny",plain,'
    )
    assert csv_extractor.join_row(["a,b", "c;d"], ";") == 'a,b;"c;d"'


@pytest.mark.parametrize(
    ("header", "delimiter"),
    [("a;b;c", ";"), ("a|b|c", "|"), ("a\tb\tc", "\t"), ("a,b;c;d", ","), ("abc", ","),
     ("a;b|c|d", "|"), ("a;b|c", ";"), ('"x;y,z"|b', "|"), ('"a\n,b";c', ";")],
)  # fmt: skip
def test_sniff_delimiter_only_when_the_header_has_no_comma(header: str, delimiter: str) -> None:
    assert csv_extractor.sniff_delimiter(f"\n\n{header}\n1,2") == delimiter


def test_fields_longer_than_the_stdlib_limit_are_kept() -> None:
    big = "y" * 200_000
    result = csv_extractor.chunk(f'a,b\n"{big}",1\n', OPTIONS)
    assert result.chunks[0].text.startswith("a,b\na: yyy")
    assert all(len(c.text) <= 4000 for c in result.chunks)
    kept = "".join(c.text for c in result.chunks).removeprefix("a,b\n")
    assert "".join(kept.split()) == "".join(f"a: {big} | b: 1".split())


def test_a_record_too_long_for_a_chunk_starts_with_its_header_never_alone() -> None:
    header = ",".join(f"Column{i}" for i in range(150))  # 1,339 characters
    row = ",".join(f"value {i}" for i in range(150))
    result = extract("wide.csv", f"{header}\n{row}\n{row}\n".encode())
    texts = [c.text for c in result.chunks]
    assert len(texts) == 4
    assert texts[0].startswith(f"{header}\nColumn0: value 0") and texts[2] == texts[0]
    assert texts[1].startswith("Column") and not texts[1].startswith(header)
    assert all(len(t) <= 4000 and t.strip() != header for t in texts)
    assert [c.meta["rows"] for c in result.chunks] == [[1, 1], [1, 1], [2, 2], [2, 2]]


def test_extract_splits_a_row_longer_than_max_chunk_chars() -> None:
    result = extract("t.csv", ("a\n" + "word " * 2000).encode())
    assert len(result.chunks) == 3
    assert all(len(c.text) <= 4000 and c.meta == {"rows": [1, 1]} for c in result.chunks)


def test_input_of_blank_rows_only_degrades_to_its_text() -> None:
    result = extract("t.csv", b",,\n , \n")
    assert result.degraded is True
    assert [c.text for c in result.chunks] == [",,\n ,"]


@pytest.mark.parametrize(
    ("row", "fields"),
    [
        ('"a","b""c","d"', ["a", 'b"c', "d"]),
        ('"a","b,c"', ["a", "b,c"]),
        ('"a"b","c"', ["ab,c"]),
        ('"a"",""b"', ['a","b']),
        ('x""y,z', ["xy", "z"]),
        ('x"""y,z', ['x"y,z']),
        ('"ab"cd,e', ["abcd", "e"]),
        ('"a",b,"c', ["a", "b", "c"]),
        ('"",""', ["", ""]),
        ('"', [""]),
        ("a,", ["a", ""]),
        ('x,"a,b",y', ["x", "a,b", "y"]),
        ('x,"a,b\x00",y""z', ["x", "a,b\x00", "yz"]),
        ('x,"a\x00b",y', ["x", "a\x00b", "y"]),
        ('x,"a,\x00""b",c', ["x", 'a,\x00"b', "c"]),
    ],
)
def test_quoting_follows_the_reference_toggle(row: str, fields: list[str]) -> None:
    assert csv_extractor.parse_rows(row, ",") == [fields]


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        ('a,b\n"x,1",2\nab"c,d"e,f\n"q ""w""",3\n',
         [["a", "b"], ["x,1", "2"], ["abc,de", "f"], ['q "w"', "3"], [""]]),
        ('a\nx"y\nz"\n1', [["a"], ["xy\nz"], ["1"]]),
        ('a\n"l1\n""l2""",b\n', [["a"], ['l1\n"l2"', "b"], [""]]),
        ('"a",b\n\n"c\nd",e', [["a", "b"], [], ["c\nd", "e"]]),
    ],
)  # fmt: skip
def test_quotes_the_c_reader_takes_literally_are_read_by_the_toggle(
    text: str, rows: list[list[str]]
) -> None:
    # Blank lines come out as [] from the C reader and [""] from the toggle.
    parsed = csv_extractor.parse_rows(text, ",")
    assert [row for row in parsed if any(row)] == [row for row in rows if any(row)]


def test_multiline_quoted_fields_fixture() -> None:
    result = extract("t.csv", (FIXTURES / "ok_quoted_multiline.csv").read_bytes())
    assert [(c.text, c.meta) for c in result.chunks] == [
        (
            'id,"note, long",who\n'
            'id: 1 | note, long: first line\nsecond "quoted" line | who: Ada\n'
            "id: 2 | note, long: plain | who: Grace\n"
            "id: 3 | note, long: a,b | who: Linus | col3: extra",
            {"rows": [1, 3]},
        )
    ]


def test_pipe_separated_fixture_with_blank_rows_and_short_rows() -> None:
    result = extract("t.csv", (FIXTURES / "ok_pipes_ragged.csv").read_bytes())
    assert (
        result.text
        == "year: 1986 | count: 44000 | note: first\nyear: 1987\nyear: 1988 | count: 50000"
    )
    assert [c.meta for c in result.chunks] == [{"rows": [1, 3]}]


# --- the real corpus ------------------------------------------------------------------------


@pytest.mark.slow
def test_every_corpus_csv_file_keeps_the_invariants(corpus: Path) -> None:
    files = manifest_paths(corpus, "csv", "tsv")
    assert len(files) == 77
    assert [relpath for relpath in files if assert_invariants(corpus, relpath, "csv")] == []


SPOT_CHECKS: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    ("csv-spectrum/csvs/comma_in_quotes.csv",
     [("first,last,address,city,zip\nfirst: John | last: Doe | address: 120 any st. | "
       "city: Anytown, WW | zip: 08123", {"rows": [1, 1]})]),
    ("csv-spectrum/csvs/escaped_quotes.csv",
     [('a,b\na: 1 | b: ha "ha" ha\na: 3 | b: 4', {"rows": [1, 2]})]),
    ("csv-spectrum/csvs/quotes_and_newlines.csv",
     [('a,b\na: 1 | b: ha \n"ha" \nha\na: 3 | b: 4', {"rows": [1, 2]})]),
    ("csv-spectrum/csvs/json.csv",
     [('key,val\nkey: 1 | val: {"type": "Point", "coordinates": [102.0, 0.5]}',
       {"rows": [1, 1]})]),
    ("csv-spectrum/csvs/empty.csv",
     [("a,b,c\na: 1 | b:  | c: \na: 2 | b: 3 | c: 4", {"rows": [1, 2]})]),
    ("csv-csvkit/mac_newlines.csv",
     [("a,b,c\na: 1 | b: 2 | c: 3\na: Once upon\na time | b: 5 | c: 6", {"rows": [1, 2]})]),
    ("csv-csvkit/null_byte.csv", [("a,b,c\na: \x00 | b: 2 | c: 3", {"rows": [1, 1]})]),
    ("csv-csvkit/test_utf8_bom.csv",
     [("foo,bar,baz\nfoo: 1 | bar: 2 | baz: 3\nfoo: 4 | bar: 5 | baz: ʤ", {"rows": [1, 2]})]),
    ("csv-csvkit/test_utf16_little.csv",
     [("a,b,c\na: 1 | b: 2 | c: 3\na: 4 | b: 5 | c: ʤ", {"rows": [1, 2]})]),
    ("csv-csvkit/test_header_newline.csv",
     [('"\t\n\x0b\x0c\n start \t\n\x0b\x0c\n end \t\n\x0b\x0c\n",b,c\nstart \t\n\x0b\x0c\n end: d'
       " | b: e | c: f", {"rows": [1, 1]})]),
    ("csv-csvkit/dummy.tsv", [("a\tb\tc\na: 1 | b: 2 | c: 3", {"rows": [1, 1]})]),
    ("csv-csvkit/bad.csv",
     [("column_a,column_b,column_c\ncolumn_a: 1 | column_b: 27 | column_c:  | col3: I'm too long!\n"
       "column_a:  | column_b: I'm too short!\n"
       "column_a: 0 | column_b: mixed types.... uh oh | column_c: 17", {"rows": [1, 3]})]),
]  # fmt: skip


@pytest.mark.parametrize(("relpath", "chunks"), SPOT_CHECKS)
def test_corpus_spot_check(
    corpus: Path, relpath: str, chunks: list[tuple[str, dict[str, Any]]]
) -> None:
    result = extract(relpath, (corpus / relpath).read_bytes())
    assert [(c.text, c.meta) for c in result.chunks] == chunks


def test_semicolon_corpus_file_is_sniffed(corpus: Path) -> None:
    result = extract("x.csv", (corpus / "csv-messytables" / "simple.ssv.csv").read_bytes())
    assert result.text.split("\n")[:2] == [
        "date: 2011-01-01 | temperature: 1 | place: Galway",
        "date: 2011-01-02 | temperature: -1 | place: Galway",
    ]
    assert [c.meta for c in result.chunks] == [{"rows": [1, 6]}]


def test_large_cr_only_corpus_file_gives_every_row(corpus: Path) -> None:
    result = extract("x.csv", (corpus / "csv-messytables" / "211.csv").read_bytes())
    assert result.chunks[0].text.startswith("ResourceAgencyNum,PublicName,AlternateName,")
    assert result.chunks[-1].meta["rows"][1] == 2132


# --- cross-check against the reference file itself, when it is there --------------------------


@pytest.mark.skipif(not GOLDEN.is_file(), reason="../shared/reference is absent")
def test_case_lists_cover_every_golden_csv_case_and_agree_with_it() -> None:
    assert {row[0] for row in AGREED + DIVERGED} == set(golden("csv"))
    assert_lists_match_golden("csv", AGREED, DIVERGED)
    assert golden_registry_chunks("csv") == CHUNKER
