"""The pdf extractor: both engines on generated PDFs, the golden cases, cleanup helpers.

The generated PDFs (`fixtures/pdf/minipdf.py`) are written byte by byte, so
every expected chunk below is literal. The shared corpus's PDFs run in child
processes (`fixtures/pdf/corpus_runner.py`): a bad file can crash or hang a parser.
"""

from __future__ import annotations

import random
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fixtures.pdf import minipdf as mp
from fixtures.pdf.corpus_runner import run_isolated
from sharedfiles import CORPUS, NO_CORPUS, NO_GOLDEN, golden_cases, or_skip

from indexer import Chunk, Extracted, Options, extract
from indexer.formats.pdf.plumber import markdown_table
from indexer.formats.pdf.text import Line, clean_text, paragraphs, sanitize_message

ENGINES = ("pdfium", "pdfplumber")


def run(data: bytes, engine: str = "pdfium") -> Extracted:
    return extract("doc.pdf", data, Options(pdf_engine=engine))  # type: ignore[arg-type]


def chunks(result: Extracted) -> list[tuple[str, dict[str, Any]]]:
    return [(c.text, c.meta) for c in result.chunks]


def failure(reason: str) -> tuple[Chunk, ...]:
    return (Chunk(text=f"[pdf extraction failed: {reason}]"),)


# -- generated documents ---------------------------------------------------------------

LEFT = ["Left column starts here and", "runs on for three lines of", "text about an exam-", "ple."]
RIGHT = ["Right column text comes", "after the left column."]


def two_columns() -> bytes:
    page = mp.text_block(72, 700, LEFT) + mp.text_block(72, 640, ["Second paragraph, left."])
    page += mp.text_block(320, 700, RIGHT)
    return mp.build([page, mp.text_block(72, 700, ["Page two."])], title="Two  columns")


def table_page() -> bytes:
    page = mp.text_block(72, 720, ["Intro above the table."]) + mp.grid(72, 700, [100, 100], 3, 20)
    for row, (name, qty) in enumerate([("Name", "Qty"), ("apple | red", "3"), ("pear", "10")]):
        baseline = 700 - 20 * row - 14
        page += mp.text_block(76, baseline, [name]) + mp.text_block(176, baseline, [qty])
    return mp.build([page + mp.text_block(72, 600, ["Closing words below."])])


def test_pdfium_keeps_two_columns_in_reading_order_and_joins_hyphenation() -> None:
    result = run(two_columns())
    assert chunks(result) == [
        (
            "Left column starts here and\nruns on for three lines of\ntext about an example.",
            {"page": 1},
        ),
        ("Second paragraph, left.", {"page": 1}),
        ("Right column text comes\nafter the left column.", {"page": 1}),
        ("Page two.", {"page": 2}),
    ]
    assert result.metadata == {"pages": 2, "title": "Two columns"}
    assert result.status == "ok"
    assert result.text == "\n\n".join(c.text for c in result.chunks)


def test_pdfplumber_reads_two_columns_line_by_line_across_both() -> None:
    result = run(two_columns(), "pdfplumber")
    assert chunks(result) == [
        (
            "Left column starts here and Right column text comes\n"
            "runs on for three lines of after the left column.\n"
            "text about an exam-\nple.",
            {"page": 1},
        ),
        ("Second paragraph, left.", {"page": 1}),
        ("Page two.", {"page": 2}),
    ]
    assert result.metadata == {"pages": 2, "title": "Two columns"}


def test_pdfplumber_renders_a_ruled_table_as_markdown_between_paragraphs() -> None:
    assert chunks(run(table_page(), "pdfplumber")) == [
        ("Intro above the table.", {"page": 1}),
        ("| Name | Qty |\n| --- | --- |\n| apple \\| red | 3 |\n| pear | 10 |", {"page": 1}),
        ("Closing words below.", {"page": 1}),
    ]


def test_pdfium_reads_a_table_as_plain_lines() -> None:
    assert chunks(run(table_page())) == [
        ("Intro above the table.\nName Qty\napple | red 3\npear 10", {"page": 1}),
        ("Closing words below.", {"page": 1}),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_paragraphs_split_per_page_and_never_span_pages(engine: str) -> None:
    page1 = mp.text_block(72, 700, ["One a", "one b"]) + mp.text_block(72, 650, ["Two"])
    page2 = mp.text_block(72, 700, ["three"])
    assert chunks(run(mp.build([page1, page2]), engine)) == [
        ("One a\none b", {"page": 1}),
        ("Two", {"page": 1}),
        ("three", {"page": 2}),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_blank_pages_are_skipped_and_counted(engine: str) -> None:
    blank = b"72 700 m 300 700 l S\n"
    result = run(mp.build([blank, mp.text_block(72, 700, ["Only text."]), blank]), engine)
    assert chunks(result) == [("Only text.", {"page": 2})]
    assert result.metadata == {"pages": 3}
    assert (result.degraded, result.error) == (False, None)


@pytest.mark.parametrize("engine", ENGINES)
def test_no_text_layer_is_empty_with_one_marker_chunk(engine: str) -> None:
    result = run(mp.build([b"72 700 m 300 700 l S\n"], title="Scan"), engine)
    assert result.chunks == failure("no text layer")
    assert (result.degraded, result.error, result.status) == (True, "no text layer", "empty")
    assert result.metadata == {"pages": 1, "title": "Scan"}


@pytest.mark.parametrize("engine", ENGINES)
def test_encrypted_with_a_password_is_one_failure_chunk(engine: str) -> None:
    data = mp.build([mp.text_block(72, 700, ["Secret."])], title="Hidden", password="pw")
    result = run(data, engine)
    assert result.chunks == failure("encrypted (password required)")
    assert (result.degraded, result.error) == (True, "encrypted (password required)")
    assert result.metadata == {}


def test_the_encrypted_fixture_opens_with_its_password() -> None:
    import pypdfium2 as pdfium

    data = mp.build([mp.text_block(72, 700, ["Secret."])], title="Hidden", password="pw")
    with pdfium.PdfDocument(data, password="pw") as doc:
        assert doc.get_metadata_value("Title") == "Hidden"
        page = doc[0]
        assert page.get_textpage().get_text_range() == "Secret."


@pytest.mark.parametrize(
    ("engine", "reason"),
    [("pdfium", "corrupt: empty or unreadable page tree"), ("pdfplumber", "no pages")],
)
def test_zero_pages_is_one_failure_chunk(engine: str, reason: str) -> None:
    result = run(mp.build([]), engine)
    assert (result.chunks, result.error) == (failure(reason), reason)


@pytest.mark.parametrize(
    ("engine", "reason"),
    [
        ("pdfium", "corrupt: not a readable PDF structure"),
        ("pdfplumber", "corrupt: PDFSyntaxError: No /Root object! - Is this really a PDF?"),
    ],
)
def test_garbage_after_the_header_is_corrupt(engine: str, reason: str) -> None:
    result = run(b"%PDF-1.4\n" + b"garbage " * 50, engine)
    assert (result.chunks, result.error, result.degraded) == (failure(reason), reason, True)


@pytest.mark.parametrize("engine", ENGINES)
def test_pages_that_read_are_kept_when_another_page_is_broken(engine: str) -> None:
    good = mp.build([mp.text_block(72, 700, ["Page one."]), mp.text_block(72, 700, ["Two."])])
    broken = good.replace(b"/Kids [4 0 R 6 0 R]", b"/Kids [4 0 R 60 0 R]")
    result = run(broken, engine)
    assert chunks(result) == [("Page one.", {"page": 1})]
    if engine == "pdfium":  # pdfium counts the dangling kid and fails to load it
        assert (result.metadata, result.degraded) == ({"pages": 2, "failed_pages": [2]}, True)
    else:  # pdfminer skips it while walking the page tree
        assert (result.metadata, result.degraded) == ({"pages": 1}, False)
    assert result.error is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_late_header_is_not_a_pdf_but_one_within_1024_bytes_is(engine: str) -> None:
    doc = mp.build([mp.text_block(72, 700, ["Hi."])])
    assert chunks(run(b"x" * 1019 + doc, engine)) == [("Hi.", {"page": 1})]
    late = run(b"x" * 1020 + doc, engine)
    assert late.chunks == failure("response is not a PDF (missing %PDF header)")


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_and_blank_input_give_no_chunks(engine: str) -> None:
    for data in (b"", b" \n\t "):
        result = run(data, engine)
        assert (result.kind, result.chunks, result.error) == ("pdf", (), None)


def test_identical_input_gives_identical_output() -> None:
    assert run(two_columns()) == run(two_columns())
    assert run(table_page(), "pdfplumber") == run(table_page(), "pdfplumber")


# -- the reference's golden cases ------------------------------------------------------


@pytest.mark.parametrize(
    "case", or_skip(golden_cases("pdf"), NO_GOLDEN), ids=lambda case: case["name"]
)
@pytest.mark.parametrize("engine", ENGINES)
def test_golden_pdf_cases(case: dict[str, Any], engine: str) -> None:
    result = extract(case["path"], case["input"].encode("utf-8"), Options(pdf_engine=engine))  # type: ignore[arg-type]
    assert (result.kind, result.text) == ("pdf", case["text"])
    if case["input"] == "":
        # Divergence (docs/compat.md (`pdf`)): empty input gives no chunks, as for every kind.
        assert result.chunks == ()
        assert case["chunks"] == [
            "[pdf extraction failed: response is not a PDF (missing %PDF header)]"
        ]
    else:
        assert [c.text for c in result.chunks] == case["chunks"]


def test_golden_late_header_case_puts_the_header_across_byte_1024() -> None:
    (late,) = [
        case for case in golden_cases("pdf") if case["name"] == "dispatch_pdf_header_late"
    ] or [pytest.skip(NO_GOLDEN)]
    assert late["input"].index("%PDF") == 1020


# -- cleanup and layout helpers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("an exam\ufffe\nple", "an example"),
        ("an exam\ufffe\r\nple", "an example"),
        ("an exam\ufffe  \n  ple", "an example"),
        ("adip\ufffeiscing", "adipiscing"),
        ("lone \ufffe mark", "lone  mark"),
        ("exam\x02\nple and a\x02b", "example and ab"),
        ("co\u00adop\u00ad\neration", "cooperation"),
        ("a\x00b\x07c\x1bd\x7fe\x9ff", "abcdef"),
        ("keep\ttabs\nand newlines", "keep\ttabs\nand newlines"),
        ("one\rtwo\r\nthree", "one\ntwo\nthree"),
        ("feed\x0cpage\x0bvt", "feed\npage\nvt"),
        ("trailing  \nspaces\t\u00a0\nend ", "trailing\nspaces\nend"),
        ("lone \ud800 surrogate", "lone  surrogate"),
    ],
)
def test_clean_text_removes_pdf_artefacts(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def lines(*rows: tuple[float, float, str]) -> list[Line]:
    return [Line(text=text, x=x, y=y) for x, y, text in rows]


def test_paragraphs_break_at_a_wide_vertical_gap() -> None:
    rows = lines(
        (72, 100, "a1"), (72, 112, "a2"), (72, 124, "a3"), (72, 160, "b1"), (72, 172, "b2")
    )
    assert paragraphs(rows) == ["a1\na2\na3", "b1\nb2"]


def test_paragraphs_break_before_a_first_line_indent_only() -> None:
    rows = lines(
        (72, 100, "a1"), (72, 112, "a2"), (82, 124, "b1"), (72, 136, "b2"), (72, 148, "b3")
    )
    assert paragraphs(rows) == ["a1\na2", "b1\nb2\nb3"]


def test_paragraphs_break_at_a_jump_back_up_the_page() -> None:
    rows = lines((72, 100, "l1"), (72, 112, "l2"), (320, 100, "r1"), (320, 112, "r2"))
    assert paragraphs(rows) == ["l1\nl2", "r1\nr2"]


def test_paragraphs_measure_gaps_from_the_last_line_pdfium_folded_in() -> None:
    rows = [
        Line(text="a1 hy\ufffephen", x=72, y=100, end_y=112),
        Line(text="a2", x=72, y=124),
        Line(text="a3", x=72, y=136),
        Line(text="b1", x=72, y=172),
    ]
    assert paragraphs(rows) == ["a1 hyphen\na2\na3", "b1"]


def test_paragraphs_expect_lines_in_a_larger_type_further_apart() -> None:
    title = [Line(text="Big", x=72, y=100, size=20), Line(text="title", x=72, y=124, size=20)]
    body = [Line(text=t, x=72, y=148 + 12 * i, size=10) for i, t in enumerate("abcde")]
    assert paragraphs(title + body) == ["Big\ntitle", "a\nb\nc\nd\ne"]


def test_paragraphs_never_break_after_a_hyphen_mark() -> None:
    rows = lines((72, 100, "a1"), (72, 112, "exam\u00ad"), (72, 150, "ple"))
    assert paragraphs(rows) == ["a1\nexample"]


def test_paragraphs_without_positions_split_on_blank_lines_only() -> None:
    rows = lines((0, 0, "a"), (0, 0, ""), (0, 0, "b"), (0, 0, "c"))
    assert paragraphs(rows) == ["a", "b\nc"]


def test_markdown_table_escapes_pipes_and_drops_empty_rows_and_columns() -> None:
    rows = [["Name", None, "Note"], [None, None, None], ["a|b", "", "two\nlines"], ["c"]]
    assert markdown_table(rows, 4000) == [
        "| Name | Note |\n| --- | --- |\n| a\\|b | two lines |\n| c |  |"
    ]


def test_markdown_table_repeats_the_header_on_each_piece_of_a_long_table() -> None:
    rows = [["k", "v"], ["a", "1"], ["b", "2"], ["c", "3"], ["d" * 40, "4"]]
    head = "| k | v |\n| --- | --- |"
    assert markdown_table(rows, len(head) + 20) == [
        head + "\n| a | 1 |\n| b | 2 |",
        head + "\n| c | 3 |",
        head + "\n| " + "d" * 40 + " | 4 |",
    ]


@pytest.mark.parametrize(
    "rows", [[["only one column"], ["second row"]], [["a", "b"]], [[None, None], ["", ""]], []]
)
def test_markdown_table_refuses_boxes_that_are_not_tables(rows: list[list[str | None]]) -> None:
    assert markdown_table(rows, 4000) == []


def test_pdfplumber_splits_a_long_table_under_repeated_headers() -> None:
    page = mp.grid(72, 700, [100, 100], 12, 20)
    for row in range(12):
        cells = ("Item", "Count") if row == 0 else (f"thing {row}", str(row))
        baseline = 700 - 20 * row - 14
        page += mp.text_block(76, baseline, [cells[0]]) + mp.text_block(176, baseline, [cells[1]])
    result = extract(
        "t.pdf", mp.build([page]), Options(pdf_engine="pdfplumber", max_chunk_chars=100)
    )
    head = "| Item | Count |\n| --- | --- |"
    assert [c.text for c in result.chunks] == [
        head + "\n| thing 1 | 1 |\n| thing 2 | 2 |\n| thing 3 | 3 |\n| thing 4 | 4 |",
        head + "\n| thing 5 | 5 |\n| thing 6 | 6 |\n| thing 7 | 7 |\n| thing 8 | 8 |",
        head + "\n| thing 9 | 9 |\n| thing 10 | 10 |\n| thing 11 | 11 |",
    ]
    assert {tuple(c.meta.items()) for c in result.chunks} == {(("page", 1),)}


def test_sanitize_message_drops_addresses_paths_and_line_breaks() -> None:
    message = "bad object <Foo at 0x7f3a2b4c5d60>\nin /tmp/pytest-7/x.pdf"
    assert sanitize_message(message) == "bad object <Foo at …> in …"
    assert sanitize_message("   ") == "unknown error"


# -- the shared corpus, each file in a child process --------------------------------------

needs_corpus = pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(), reason=NO_CORPUS)
# pdfplumber needs minutes for the whole corpus (one 76-page file alone takes a
# minute), so its run covers every malformed file and the other files up to this
# size; `scripts/bench pdf` reads them all.
PDFPLUMBER_MAX_BYTES = 16 * 1024
# Files that crash or hang an engine, with what they do; none so far (docs/compat.md (`pdf`)).
KNOWN_TROUBLE: dict[str, dict[str, str]] = {"pdfium": {}, "pdfplumber": {}}
# Where an engine disagrees with the manifest's "encrypted, needs a password" (pypdf's view).
PASSWORD_SURPRISES = {
    "pdfium": {
        # pypdf opens it with an empty user password; pdfium asks for one.
        "pdf-pypdf/encryption/r6-user-password.pdf",
        # Only its attachment is encrypted (/StmF /Identity): pdfium reads the page.
        "pdf-pdfjs/encrypted-attachment.pdf",
    },
    "pdfplumber": set(),
}


def manifest_pdfs() -> dict[str, tuple[str, int, str]]:
    """Return the manifest's PDFs: relative path to (expectation, bytes, note)."""
    rows = [line.split("\t") for line in (CORPUS / "MANIFEST.tsv").read_text().splitlines()[1:]]
    return {row[0]: (row[4], int(row[1]), row[5]) for row in rows if row[3] == "pdf"}


def corpus_selection(engine: str) -> list[str]:
    """Return the corpus PDFs (relative paths) that `engine` is run on."""
    pdfs = manifest_pdfs()
    if engine == "pdfium":
        return sorted(pdfs)
    return sorted(
        rel
        for rel, (expect, size, _) in pdfs.items()
        if expect == "malformed" or size <= PDFPLUMBER_MAX_BYTES
    )


@pytest.fixture(scope="module")
def corpus_runs() -> dict[str, dict[str, dict[str, Any]]]:
    def run_engine(engine: str) -> dict[str, dict[str, Any]]:
        rels = corpus_selection(engine)
        results = run_isolated(engine, [str(CORPUS / rel) for rel in rels], timeout=60)
        return {rel: results[str(CORPUS / rel)] for rel in rels}

    with ThreadPoolExecutor(max_workers=len(ENGINES)) as pool:
        return dict(zip(ENGINES, pool.map(run_engine, ENGINES), strict=True))


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("engine", ENGINES)
def test_corpus_pdfs_return_in_a_child_and_keep_the_invariants(
    corpus_runs: dict[str, dict[str, dict[str, Any]]], engine: str
) -> None:
    runs = corpus_runs[engine]
    assert len(runs) == len(corpus_selection(engine)) >= (200 if engine == "pdfium" else 120)
    troubles = {rel: r["trouble"] for rel, r in runs.items() if "trouble" in r}
    assert troubles == KNOWN_TROUBLE[engine]
    assert {rel: r["problems"] for rel, r in runs.items() if r.get("problems")} == {}


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("engine", ENGINES)
def test_corpus_encrypted_pdfs_fail_exactly_when_they_need_a_password(
    corpus_runs: dict[str, dict[str, dict[str, Any]]], engine: str
) -> None:
    notes = manifest_pdfs()
    runs = corpus_runs[engine]
    wants = {rel for rel, r in runs.items() if r.get("error") == "encrypted (password required)"}
    expected = {rel for rel in runs if "encrypted, needs a password" in notes[rel][2]}
    assert wants ^ expected == PASSWORD_SURPRISES[engine]
    assert len(wants) >= 6


@pytest.mark.slow
@needs_corpus
def test_corpus_page_counts_agree_with_the_manifest(
    corpus_runs: dict[str, dict[str, dict[str, Any]]],
) -> None:
    counted = {}
    for rel, (_, _, note) in manifest_pdfs().items():
        match = re.search(r"\b(\d+) pages\b", note)
        pages = corpus_runs["pdfium"][rel].get("pages")
        if match and pages is not None:
            counted[rel] = (int(match.group(1)), pages)
    assert len(counted) >= 180
    assert {rel: pair for rel, pair in counted.items() if pair[0] != pair[1]} == {}


def mutants(seed: int, count: int) -> list[bytes]:
    """Return `count` damaged copies of the generated PDFs: bytes flipped, cut or dropped."""
    rng = random.Random(seed)
    sources = [two_columns(), table_page(), mp.build([mp.text_block(72, 700, ["x"])], password="p")]
    out = []
    for i in range(count):
        data = bytearray(sources[i % len(sources)])
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(data))
            if rng.random() < 0.7:
                data[at] = rng.randrange(256)
            else:
                del data[at : at + rng.randint(1, 64)]
        out.append(
            bytes(data[: rng.randint(len(data) // 2, len(data))]) if i % 5 == 0 else bytes(data)
        )
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_damaged_pdfs_never_crash_hang_or_break_the_invariants(tmp_path: Path, engine: str) -> None:
    paths = []
    for i, data in enumerate(mutants(seed=20240611, count=60)):
        path = tmp_path / f"mutant-{i:03d}.pdf"
        path.write_bytes(data)
        paths.append(str(path))
    results = run_isolated(engine, paths, timeout=60)
    assert {Path(p).name: r["trouble"] for p, r in results.items() if "trouble" in r} == {}
    assert {Path(p).name: r["problems"] for p, r in results.items() if r["problems"]} == {}
    statuses = {r["status"] for r in results.values()}
    assert {"ok", "failed"} <= statuses
