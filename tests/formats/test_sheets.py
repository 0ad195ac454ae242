"""The spreadsheet extractor on real workbooks and on hostile ones built here."""

from __future__ import annotations

import datetime
import io
import json
import shutil
import struct
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from outputs import document_lines
from sharedfiles import NO_FORMATS, SHARED, or_skip

import indexer
from indexer._extract import raised
from indexer.config import Config
from indexer.formats.office.ole_samples import ole_file
from indexer.formats.office.samples import zip_package
from indexer.formats.sheets import samples

FORMATS = SHARED / "formats"
SHEET_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods")
REASONS = ("encrypted", "corrupt: ", "unsupported: ")


def _real(name: str) -> bytes:
    path = FORMATS / name
    if not path.exists():
        pytest.skip("../shared/formats is not available")
    return path.read_bytes()


def _extract(name: str, data: bytes, **options: int) -> indexer.Extracted:
    return indexer.extract(name, data, indexer.Options(**options) if options else None)


def _real_files() -> list[Path]:
    if not FORMATS.is_dir():
        return []
    return sorted(p for p in FORMATS.rglob("*") if p.suffix.lower() in SHEET_SUFFIXES)


def test_a_workbook_gives_each_sheet_as_labelled_row_groups_with_its_row_numbers() -> None:
    result = _extract("test.xlsx", _real("markitdown/test.xlsx"))
    assert result.status == "ok" and result.kind == "spreadsheet"
    assert result.metadata["sheets"] == ["Sheet1", "09060124-b5e7-4717-9d07-3c046eb"]
    assert [c.meta for c in result.chunks] == [
        {"sheet": "Sheet1", "rows": [2, 21]},
        {"sheet": "Sheet1", "rows": [22, 24]},
        {"sheet": "09060124-b5e7-4717-9d07-3c046eb", "rows": [2, 5]},
    ]
    first = result.chunks[0].text.split("\n")
    assert first[:3] == [
        "## Sheet1",
        "Alpha | Beta | Gamma | Delta",
        "Alpha: 89 | Beta: 82 | Gamma: 100 | Delta: 12",
    ]
    assert len(first) == 2 + 20  # the header block, then rows_per_chunk rows


def test_the_same_workbook_saved_as_xls_reads_the_same() -> None:
    xlsx = _extract("test.xlsx", _real("markitdown/test.xlsx"))
    xls = _extract("test.xls", _real("markitdown/test.xls"))
    assert xls.metadata["format"] == "xls" and xlsx.metadata["format"] == "xlsx"
    assert [c.text for c in xls.chunks] == [c.text for c in xlsx.chunks]


@pytest.mark.parametrize("name", ["test-columnar.xlsx", "test-columnar.xls", "test-columnar.ods"])
def test_values_read_as_a_person_sees_them(name: str) -> None:
    result = _extract(name, _real(f"tika/{name}"))
    rows = result.chunks[0].text.split("\n")
    assert rows[2].startswith("Record Number: 0 | Square of the Record Number: 0 | ")
    assert "| date: 1960-01-01 | datetime: 1960-01-01 00:00:01 | time: 00:00:01" in rows[2]
    assert "Percent Done: 0.1 |" in rows[3]
    assert not any(".0 " in row or row.endswith(".0") for row in rows)


def test_title_lines_stay_above_the_header_in_every_chunk() -> None:
    result = _extract("stanley-cups.xlsx", _real("unstructured/stanley-cups.xlsx"))
    assert [c.meta for c in result.chunks] == [
        {"sheet": "Stanley Cups", "rows": [3, 5]},
        {"sheet": "Stanley Cups Since 67", "rows": [3, 5]},
    ]
    assert result.chunks[0].text.split("\n")[:4] == [
        "## Stanley Cups",
        "Stanley Cups",
        "Team | Location | Stanley Cups",
        "Team: Blues | Location: STL | Stanley Cups: 1",
    ]


def test_a_sparse_group_row_above_the_header_completes_its_labels() -> None:
    data = _real("unstructured/2023-half-year-analyses-by-segment.xlsx")
    first = _extract("h.xlsx", data).chunks[0].text.split("\n")
    assert first[4].startswith("In millions of CHF | Sales (a) | ")
    assert first[4].endswith("| January–June 2023 Depreciation and amortization")
    assert first[5].startswith("In millions of CHF: Zone NA | Sales (a): 12553 | ")


def test_a_header_merged_across_columns_labels_each_of_them() -> None:
    rows = [["Region", "Revenue", None], [None, "2022", "2023"], ["Nord", 10, 12]]
    data = samples.xlsx([("S", rows)], merged={"S": "B1:C1"})
    assert _extract("m.xlsx", data).chunks[0].text.split("\n")[1:] == [
        "Region | Revenue 2022 | Revenue 2023",
        "Region: Nord | Revenue 2022: 10 | Revenue 2023: 12",
    ]
    unmerged = samples.xlsx([("S", rows[:1] + rows[2:])], merged={"S": "B1:C1"})
    assert _extract("m.xlsx", unmerged).chunks[0].text.split("\n")[1:] == [
        "Region | Revenue | Revenue",
        "Region: Nord | Revenue: 10 | Revenue: 12",
    ]


def test_booleans_dates_and_error_cells_show_as_in_the_spreadsheet() -> None:
    rows = [["a", "b", "c"], [True, datetime.date(2024, 2, 29), "#DIV/0!"], [1e20, 2.5, 3.0]]
    text = _extract("v.xlsx", samples.xlsx([("V", rows)])).chunks[0].text
    assert text.split("\n")[2:] == [
        "a: TRUE | b: 2024-02-29 | c: #DIV/0!",
        "a: 1e+20 | b: 2.5 | c: 3",
    ]


def test_empty_rows_and_sheets_are_dropped() -> None:
    data = samples.xlsx([("Blank", []), ("S", [["k"], [None], ["v"], [None, None]])])
    result = _extract("e.xlsx", data)
    assert result.metadata["sheets"] == ["S"]
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("## S\nk\nk: v", {"sheet": "S", "rows": [3, 3]})
    ]


def test_a_workbook_without_cell_text_is_empty() -> None:
    result = _extract("box.xlsx", _real("tika/testEXCEL_textbox.xlsx"))
    assert (result.status, result.error) == ("empty", "no_text: no sheet has a non-empty cell")
    assert result.metadata["notes"] == ["no sheet has a non-empty cell"]
    assert len(result.chunks) == 1  # the marker extractors-v1 asks for; a run writes none


def test_document_properties_go_into_metadata() -> None:
    xlsx = _extract("p.xlsx", _real("tika/testEXCEL.xlsx")).metadata
    assert {k: xlsx[k] for k in ("title", "author", "created")} == {
        "title": "Simple Excel document",
        "author": "Keith Bennett",
        "created": "2007-10-01T16:13:56Z",
    }
    xls = _extract("p.xls", _real("tika/testEXCEL_1img.xls")).metadata
    assert xls["title"] == "The quick brown fox jumps over the lazy dog"
    assert xls["modified"] == "2010-09-08T15:56:06"
    assert _extract("p.ods", _real("tika/test-columnar.ods")).metadata["author"] == "henry feldman"


def test_a_legacy_workbooks_properties_are_read_in_their_code_page_as_a_docs_are() -> None:
    assert _extract("d.xls", _real("tika/testEXCEL_dateFormats.xls")).metadata["author"] == "Gábor"
    assert _extract("w.xls", _real("tika/testWPSAttachment.xls")).metadata["author"] == "dsx"


@pytest.mark.parametrize("path", or_skip(_real_files(), NO_FORMATS), ids=lambda p: p.name)
def test_every_real_workbook_gives_one_clear_result(path: Path) -> None:
    result = indexer.extract(path.name, path.read_bytes())
    assert not raised(result)
    if result.status == "failed":
        assert result.error is not None and result.error.startswith(REASONS)
    elif result.status == "empty":
        assert result.error == "no_text: no sheet has a non-empty cell"
    else:
        assert result.status in ("ok", "degraded")


def test_encrypted_workbooks_fail_as_encrypted() -> None:
    assert _extract("p.xlsx", _real("tika/protect.xlsx")).error == "encrypted"
    assert _extract("p.xls", _real("tika/password.xls")).error == "encrypted"
    built = ole_file({"EncryptionInfo": b"\x04\x00\x04\x00", "EncryptedPackage": bytes(64)})
    result = _extract("built.xlsx", built)
    assert (result.status, result.error) == ("failed", "encrypted")
    assert result.chunks[0].text == "[spreadsheet extraction failed: encrypted]"


def test_a_truncated_workbook_fails_as_corrupt() -> None:
    data = samples.xlsx([("S", [["a"], [1]])])
    for cut in (len(data) // 3, len(data) - 30):
        result = _extract("t.xlsx", data[:cut])
        assert result.status == "failed" and result.error.startswith("corrupt: ")


def test_an_excel_4_worksheet_is_read_through_xlrd() -> None:
    result = _extract("old.xls", _real("tika/testEXCEL_4.xls"))
    assert (result.status, len(result.chunks)) == ("ok", 7)
    assert result.metadata == {
        "format": "xls", "format_version": "Excel 4.0 (BIFF4)", "sheets": ["Sheet 1"]
    }  # fmt: skip
    first = result.chunks[0]
    assert first.text.startswith(
        "## Sheet 1\nTable 10 -- Examination Coverage:  Recommended and Average Recommended"
    )
    assert first.meta["rows"][0] == 7
    assert "A: United States, total [2] | B: 168184400 | Returns examined: 815057" in first.text


def test_a_built_excel_4_worksheet_reads_and_a_truncated_one_fails_as_corrupt() -> None:
    data = samples.biff4([["Article", "Prix"], ["Café", 3.5], ["Thé", 2]])
    result = _extract("b.xls", data)
    assert [(c.text, c.meta) for c in result.chunks] == [
        ("## Sheet 1\nArticle | Prix\nArticle: Café | Prix: 3.5\nArticle: Thé | Prix: 2",
         {"sheet": "Sheet 1", "rows": [2, 3]})
    ]  # fmt: skip
    cut = _extract("b.xls", data[:40])
    assert cut.status == "failed"
    assert (cut.error or "").startswith("corrupt: an Excel 4.0 (BIFF4) file: ")


def test_xlrd_renders_every_real_xls_with_cells_as_calamine_does() -> None:
    from indexer.formats.sheets import biff

    for name in ("markitdown/test.xls", "tika/testEXCEL_5.xls", "tika/testEXCEL_dateFormats.xls",
                 "tika/testEXCEL_phonetic.xls", "tika/test-columnar.xls"):  # fmt: skip
        data = _real(name)
        sheets = biff.read(data, 10**7)[1]
        assert "\n\n".join(s.text for s in sheets) == _extract("x.xls", data).text, name


def test_an_excel_95_workbook_reads_its_cells() -> None:
    prices: list[list[samples.Value]] = [["Article", "Prix"], ["Café", 3.5]]
    data = samples.xls5([("Prix", prices), ("Vide", [])])
    result = _extract("p.xls", data)
    assert (result.status, result.metadata["sheets"]) == ("ok", ["Prix"])
    assert [c.text for c in result.chunks] == ["## Prix\nArticle | Prix\nArticle: Café | Prix: 3.5"]
    real = _extract("p.xls", _real("tika/testEXCEL_5.xls"))
    assert "Number: 15 | Square: 225" in real.chunks[0].text


def test_an_excel_95_workbook_of_blank_cells_and_a_picture_is_empty() -> None:
    from indexer.formats.sheets import biff

    data = _real("tika/testEXCEL_95.xls")
    result = _extract("p.xls", data)
    assert result.status == "empty"  # no longer `degraded` with a `## Foglio1` chunk
    assert result.metadata["notes"] == ["no sheet has a non-empty cell"]
    assert biff.read(data, 10**7)[1:] == ([], [])  # xlrd finds no value either


def test_an_xls_that_is_html_or_tab_separated_text_is_read_as_that() -> None:
    html = b"<html><body><table><tr><td>Name</td><td>Total</td></tr>"
    html += b"<tr><td>Ann</td><td>42</td></tr></table></body></html>"
    as_html = _extract("export.xls", html)
    assert as_html.status == "ok" and as_html.metadata["format"] == "html"
    assert "Ann" in as_html.text and "42" in as_html.text
    tsv = "Name\tTotal\r\nAnn\t42\r\n".encode("utf-16")
    as_text = _extract("export.xls", tsv)
    assert as_text.metadata["format"] == "csv"
    assert [c.text for c in as_text.chunks] == ["Name\tTotal\nName: Ann | Total: 42"]


def test_a_zip_that_is_not_a_workbook_fails_clearly() -> None:
    docx_like = zip_package({"word/document.xml": b"<w:document/>"})
    assert _extract("fake.xlsx", docx_like).error == "corrupt: a ZIP without a workbook in it"
    assert _extract("fake.xlsx", b"\x00\x01binary\xff" * 40).error.startswith("corrupt: ")


def _bomb(member_bytes: int) -> bytes:
    """A workbook whose first sheet inflates to `member_bytes` of spaces."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            block = b" " * (1 << 20)
            for _ in range(member_bytes >> 20):
                sheet.write(block)
    return out.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_unpacked() -> None:
    data = _bomb(200 << 20)
    assert len(data) < 1 << 20
    result = _extract("bomb.xlsx", data)
    assert result.status == "failed"
    assert result.error.startswith("refused: xl/worksheets/sheet1.xml is compressed ")


def test_a_sheet_past_the_cell_cap_is_cut_with_a_note() -> None:
    rows = [["id", "name", "value"]] + [[i, f"n{i}", i / 2] for i in range(3000)]
    data = samples.xlsx([("Big", rows), ("Small", [["k"], ["v"]])])
    result = _extract("big.xlsx", data, max_sheet_cells=5000)
    assert result.status == "degraded"
    assert result.metadata["notes"] == [
        "sheet 'Big' cut to its first 1666 rows: about 9003 cells, over 5000"
    ]
    big = [c.meta["rows"] for c in result.chunks if c.meta["sheet"] == "Big"]
    assert big[0] == [2, 21] and big[-1][1] == 1666
    assert result.chunks[-1].meta == {"sheet": "Small", "rows": [2, 2]}


def _with_sheet(body: bytes) -> bytes:
    """The sample workbook with its first sheet's XML replaced by `body`'s rows."""
    base = zipfile.ZipFile(io.BytesIO(samples.xlsx([("S", [["a"]]), ("T", [["k"], ["v"]])])))
    sheet = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    sheet += b"<sheetData>" + body + b"</sheetData></worksheet>"
    return zip_package(
        {n: sheet if n.endswith("sheet1.xml") else base.read(n) for n in base.namelist()}
    )


def test_a_sparse_sheet_whose_box_passes_the_cap_is_cut_before_it_is_loaded() -> None:
    corners = b'<row r="1"><c r="A1"><v>1</v></c></row>'
    corners += b'<row r="1048576"><c r="XFD1048576"><v>2</v></c></row>'
    result = _extract("sparse.xlsx", _with_sheet(corners))
    assert result.status == "degraded"
    assert result.metadata["notes"][0].startswith("sheet 'S' cut to its first 122 rows")
    assert [c.text for c in result.chunks] == ["## S\nA: 1", "## T\nk\nk: v"]


def test_a_cell_placed_beyond_its_row_drops_that_sheet() -> None:
    lying = b'<row r="1"><c r="A1"><v>1</v></c><c r="XFD1048576"><v>2</v></c></row>'
    result = _extract("lying.xlsx", _with_sheet(lying))
    assert result.status == "degraded"
    assert result.metadata["notes"][0].startswith("sheet 'S' dropped: its cells lie beyond")
    assert [c.text for c in result.chunks] == ["## T\nk\nk: v"]


def _run(source: Path, out: Path) -> dict[str, dict[str, object]]:
    config = Config(workers=1, pdf_workers=2, max_failures=10**6, timeout=60)
    indexer.run(source, out, config)
    lines = document_lines(out)
    return {d["path"]: d for d in map(json.loads, lines)}


def _declaring_strings(count: int) -> bytes:
    """The sample workbook with its shared strings declaring `uniqueCount` `count`."""
    base = zipfile.ZipFile(io.BytesIO(samples.xlsx([("S", [["hello", "world"]])])))
    parts = {n: base.read(n) for n in base.namelist()}
    sst = parts["xl/sharedStrings.xml"]
    parts["xl/sharedStrings.xml"] = sst.replace(
        b'uniqueCount="2"', f'uniqueCount="{count}"'.encode()
    )
    return zip_package(parts)


def _looping_directory() -> bytes:
    """The sample xls with its directory's sector chain pointing back at itself."""
    data = bytearray(samples.xls5([("S", [["hello", 1]])]))
    directory, fat = struct.unpack_from("<I", data, 48)[0], struct.unpack_from("<I", data, 76)[0]
    struct.pack_into("<I", data, 512 + fat * 512 + 4 * directory, directory)
    return bytes(data)


def test_workbooks_that_exhaust_the_native_reader_are_refused_before_it_runs(
    tmp_path: Path,
) -> None:
    """A 2 KB xlsx declaring two billion shared strings, and an xls whose directory
    chain loops, each took their worker down (`crashed`, SIGABRT: the reader's memory
    ran out); they are refused with what is wrong, the workbook beside them unharmed."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.xlsx").write_bytes(_declaring_strings(2_000_000_000))
    (source / "b.xls").write_bytes(_looping_directory())
    (source / "c.xlsx").write_bytes(_declaring_strings(2))
    docs = _run(source, tmp_path / "out")
    assert {p: (d["status"], d["reason"]) for p, d in docs.items()} == {
        "a.xlsx": ("failed", "refused"),
        "b.xls": ("failed", "corrupt"),
        "c.xlsx": ("ok", ""),
    }
    assert (
        "xl/sharedStrings.xml declares 2000000000 strings in 234 bytes"
        in (docs["a.xlsx"]["reason_text"])
    )
    assert "the sector chain of the directory loops" in docs["b.xls"]["reason_text"]


@pytest.mark.slow  # every shared workbook through worker processes
def test_every_real_workbook_gives_one_record_through_the_isolated_pool(tmp_path: Path) -> None:
    files = _real_files()
    if not files:
        pytest.skip("../shared/formats is not available")
    source = tmp_path / "src"
    source.mkdir()
    for path in files:
        shutil.copyfile(path, source / f"{path.parent.name}-{path.name}")
    found = _run(source, tmp_path / "out")
    docs = {path: doc for path, doc in found.items() if "#" not in path}  # embedded objects
    assert sorted(docs) == sorted(f"{p.parent.name}-{p.name}" for p in files)
    assert all(path.split("#", 1)[0] in docs for path in found)  # children of those alone
    for doc in docs.values():
        assert doc["kind"] == "spreadsheet"
        assert doc["status"] != "failed" or doc["reason"] in ("encrypted", "corrupt"), doc


@pytest.mark.slow  # a whole run
def test_mailed_workbooks_and_rtf_documents_become_extracted_children(tmp_path: Path) -> None:
    book = samples.xlsx([("Q3", [["region", "total"], ["north", 10]])])
    msg = EmailMessage()
    msg["Subject"] = "Numbers"
    msg["From"] = "Ann <ann@example.com>"
    msg["Message-ID"] = "<q3@example.com>"
    msg.set_content("See attached.")
    sheet = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    msg.add_attachment(
        book, maintype="application", subtype=sheet.split("/")[1], filename="q3.xlsx"
    )
    msg.add_attachment(book, maintype="application", subtype=sheet.split("/")[1], filename="q3")
    rtf = b"{\\rtf1\\ansi Minutes of the \\b Q3\\b0  review.\\par}"
    msg.add_attachment(rtf, maintype="text", subtype="rtf", filename="minutes")
    source = tmp_path / "src"
    source.mkdir()
    (source / "mail.eml").write_bytes(msg.as_bytes())
    docs = _run(source, tmp_path / "out")
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "mail.eml": ("eml", "ok"),
        "mail.eml#att/1/q3.xlsx": ("spreadsheet", "ok"),
        "mail.eml#att/2/q3": ("spreadsheet", "ok"),
        "mail.eml#att/3/minutes": ("rtf", "ok"),
    }
    lines = (tmp_path / "out" / "chunks-00000.ndjson").read_bytes().splitlines()
    chunks = [json.loads(line) for line in lines]
    child = next(c for c in chunks if c["path"] == "mail.eml#att/1/q3.xlsx")
    assert child["text"] == "## Q3\nregion | total\nregion: north | total: 10"
    assert child["meta"]["sheet"] == "Q3" and child["meta"]["mail"]["subject"] == "Numbers"
    minutes = next(c for c in chunks if c["path"] == "mail.eml#att/3/minutes")
    assert minutes["text"] == "Minutes of the Q3 review."
