"""Objects embedded in Office and OpenDocument files are child documents `<file>#<part>`,
read by their own extractors, under the nesting budget and depth of the whole file."""

from __future__ import annotations

import io
import json
import random
import shutil
import struct
import zipfile
from pathlib import Path
from typing import Any

import olefile
import pytest
import scanmaker
from cfb import Tree, compound_file
from fixtures.pdf import minipdf as mp
from outputs import documents
from sharedfiles import NO_FORMATS, SHARED, or_skip
from zips import zip_of

import indexer
from indexer.config import Config
from indexer.formats.office.embedded import unwrap
from indexer.formats.office.ole_samples import (
    DOC,
    doc_file,
    ole_file,
    picture,
    ppt_file,
    ppt_object,
)
from indexer.formats.office.samples import docx_file, odf_file, pptx_file, zip_package

CONFIG = Config(workers=1, pdf_workers=1, max_failures=100)
TIKA = SHARED / "formats" / "tika"


def native(label: str, data: bytes, declared: int | None = None) -> bytes:
    """An `Ole10Native` stream packaging `data` as the file `label` (its size `declared`)."""
    name = label.encode()
    temp = b"C:\\Temp\\" + name + b"\0"
    body = (
        b"\x02\x00" + name + b"\0" + b"C:\\src\\" + name + b"\0" + b"\x00\x00\x03\x00"
        + struct.pack("<I", len(temp)) + temp
        + struct.pack("<I", len(data) if declared is None else declared) + data
    )  # fmt: skip
    return struct.pack("<I", len(body)) + body


def package(label: str, data: bytes, declared: int | None = None) -> bytes:
    """An OLE object as Office embeds a dropped file: an `Ole10Native` package."""
    return ole_file({"\x01Ole10Native": native(label, data, declared)})


def pdf(*lines: str) -> bytes:
    return mp.build([mp.text_block(72, 720, list(lines))])


def _para(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def run(tmp_path: Path, files: dict[str, bytes], config: Config = CONFIG) -> dict[str, Any]:
    source = tmp_path / "src"
    source.mkdir(exist_ok=True)
    for name, data in files.items():
        (source / name).write_bytes(data)
    out = tmp_path / "out"
    indexer.run(source, out, config)
    return documents(out)


def chunk_texts(tmp_path: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    for path in sorted((tmp_path / "out").glob("chunks-*.ndjson")):
        for line in path.read_bytes().splitlines():
            record = json.loads(line)
            texts[record["path"]] = texts.get(record["path"], "") + record["text"]
    return texts


def states(docs: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {p: (d["kind"], d["status"], d["reason"]) for p, d in docs.items()}


# -- real files -----------------------------------------------------------------------------

REAL = {
    "EmbeddedPDF.docx": {"#word/embeddings/oleObject1.bin": ("pdf", "ok", "")},
    "testEXCEL_embeddedPDF_windows.xlsx": {"#xl/embeddings/oleObject1.bin": ("pdf", "ok", "")},
    "test_embedded_zip.pptx": {
        "#ppt/embeddings/oleObject1.bin/SendSignal64.zip": ("archive", "ok", ""),
        "#ppt/embeddings/oleObject1.bin/SendSignal64.zip#SendSignal64.exe": (
            "",
            "skipped",
            "binary",
        ),
    },
    "testWORD_embedded_pdf.doc": {"#ObjectPool/_1402837031": ("pdf", "ok", "")},
    "testWORD_embedded_rtf.doc": {"#ObjectPool/_1404039792": ("rtf", "ok", "")},
    "testException2.doc": {},  # two equations: OLE 1 objects' own data, no files
    "testExcel_embeddedPDF.xls": {"#MBD0063FA15": ("pdf", "ok", "")},
    "testWPSAttachment.xls": {
        "#MBD80000002/TXT.txt": ("text", "ok", ""),
        "#MBD80000003/PDF.pdf": ("pdf", "ok", ""),
        "#MBD80000004/XML.xml": ("text", "ok", ""),
        "#MBD80000006": ("docx", "ok", ""),
        "#MBD80000008": ("spreadsheet", "ok", ""),
        "#MBD8000000A": ("pptx", "ok", ""),
    },
    "testPPT_embeded.ppt": {
        "#embeddings/oleObject1.bin": ("spreadsheet", "ok", ""),
        "#embeddings/oleObject2.bin": ("doc", "ok", ""),
    },
    # its workbook's deflate stream ends early, its bytes all there
    "testPPT_oleWorkbook.ppt": {"#embeddings/oleObject1.bin": ("spreadsheet", "ok", "")},
    "testWPSAttachment.docx": {
        "#word/embeddings/oleObject1.bin/TXT.txt": ("text", "ok", ""),
        "#word/embeddings/oleObject2.bin/PDF.pdf": ("pdf", "ok", ""),
        "#word/embeddings/oleObject3.bin/XML.xml": ("text", "ok", ""),
        "#word/embeddings/oleObject4.bin": ("doc", "ok", ""),
        "#word/embeddings/oleObject5.bin": ("docx", "ok", ""),
        "#word/embeddings/oleObject6.bin": ("spreadsheet", "ok", ""),
        "#word/embeddings/oleObject7.bin": ("spreadsheet", "ok", ""),
        "#word/embeddings/oleObject8.bin": ("ppt", "ok", ""),
        "#word/embeddings/oleObject9.bin": ("pptx", "ok", ""),
    },
}


@pytest.mark.parametrize("name", or_skip(sorted(REAL), NO_FORMATS) if TIKA.is_dir() else [])
def test_the_objects_of_real_office_files_are_documents(tmp_path: Path, name: str) -> None:
    """PDFs wrapped by Acrobat's OLE object or dropped in as packages, workbooks, decks and
    Word files (OLE or OOXML), a zip holding an `.exe`: each a record of its own."""
    source = tmp_path / "src"
    source.mkdir()
    shutil.copyfile(TIKA / name, source / name)  # a copy in the test's own folder
    docs = run(tmp_path, {})
    found = {p[len(name) :]: s for p, s in states(docs).items() if p != name}
    assert found == REAL[name]
    assert docs[name]["status"] == "ok"
    texts = chunk_texts(tmp_path)
    for suffix, (kind, _, _) in REAL[name].items():
        if kind in ("pdf", "text", "docx", "rtf"):
            assert texts[name + suffix].strip(), suffix


@pytest.mark.skipif(not TIKA.is_dir(), reason=NO_FORMATS)
def test_the_objects_of_a_powerpoint_97_deck_are_read_as_their_own_files(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    shutil.copyfile(TIKA / "testPPT_embeded.ppt", source / "deck.ppt")
    run(tmp_path, {})
    texts = chunk_texts(tmp_path)
    fox = "The quick brown fox jumps over the lazy dog"
    assert texts["deck.ppt"].startswith("# " + fox)
    assert "## Sheet1" in texts["deck.ppt#embeddings/oleObject1.bin"]
    assert "The Alfresco logo is above this" in texts["deck.ppt#embeddings/oleObject2.bin"]


# -- generated files ------------------------------------------------------------------------


def test_a_powerpoint_97_object_is_charged_to_the_budget_before_it_is_inflated(
    tmp_path: Path,
) -> None:
    """A deflated object declaring more than the budget's room is not inflated; one that
    inflates short of its declared size is a damaged child; a packaged file, stored as
    it is, is read; each a record of its own beside the deck's."""
    notes = package("notes.txt", b"Minutes of the packaged meeting.")
    zeros = ole_file({"CONTENTS": bytes(3 << 20)})
    deck = ppt_file("Old deck", "Still readable", objects=(
        ppt_object(notes, compressed=False),
        ppt_object(zeros),
        ppt_object(notes, declared=len(notes) + 100),
    ))  # fmt: skip
    config = Config(workers=1, pdf_workers=1, max_failures=100, max_unpacked_bytes=1 << 20)
    found = states(run(tmp_path, {"deck.ppt": deck}, config))
    assert found == {
        "deck.ppt": ("ppt", "ok", ""),
        "deck.ppt#embeddings/oleObject1.bin/notes.txt": ("text", "ok", ""),
        "deck.ppt#embeddings/oleObject2.bin": ("", "skipped", "unpacked_limit"),
        "deck.ppt#embeddings/oleObject3.bin": ("", "failed", "corrupt"),
    }
    text = chunk_texts(tmp_path)["deck.ppt#embeddings/oleObject1.bin/notes.txt"]
    assert text == "Minutes of the packaged meeting."


def test_a_deck_whose_only_text_is_an_embedded_pdf_is_no_longer_empty(tmp_path: Path) -> None:
    acrobat = ole_file({"CONTENTS": pdf("Quarterly figures from the board.")})
    deck = pptx_file([""], extra={"ppt/embeddings/oleObject1.bin": acrobat})
    docs = run(tmp_path, {"deck.pptx": deck})
    assert states(docs) == {
        "deck.pptx": ("pptx", "ok", ""),
        "deck.pptx#ppt/embeddings/oleObject1.bin": ("pdf", "ok", ""),
    }
    texts = chunk_texts(tmp_path)
    assert texts["deck.pptx"] == "[embedded: oleObject1.pdf]"
    assert "Quarterly figures from the board." in texts["deck.pptx#ppt/embeddings/oleObject1.bin"]


def test_an_embedded_executable_is_a_skipped_binary_record(tmp_path: Path) -> None:
    exe = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + bytes(200)
    doc = docx_file(
        _para("Install the tools below."),
        extra={
            "word/embeddings/oleObject1.bin": package("setup.exe", exe),
            "word/embeddings/oleObject2.bin": package("tool.exe", exe),
        },
    )
    docs = run(tmp_path, {"2exe.docx": doc})
    assert states(docs) == {
        "2exe.docx": ("docx", "ok", ""),
        "2exe.docx#word/embeddings/oleObject1.bin/setup.exe": ("", "skipped", "binary"),
        "2exe.docx#word/embeddings/oleObject2.bin/tool.exe": ("", "skipped", "binary"),
    }


def test_a_corrupt_embedding_and_a_lying_package_fail_alone(tmp_path: Path) -> None:
    garbage = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x13" * 600
    lying = package("notes.txt", b"Short notes.", declared=10_000_000)
    doc = docx_file(
        _para("The document itself reads."),
        extra={
            "word/embeddings/oleObject1.bin": garbage,
            "word/embeddings/oleObject2.bin": lying,
            "word/embeddings/oleObject3.bin": package("kept.txt", b"Kept text."),
        },
    )
    docs = run(tmp_path, {"d.docx": doc})
    found = states(docs)
    assert found["d.docx"] == ("docx", "ok", "")
    # No kind is claimed: what a damaged object is, is not known (not the text fallback).
    assert found["d.docx#word/embeddings/oleObject1.bin"] == ("", "failed", "corrupt")
    assert found["d.docx#word/embeddings/oleObject2.bin"] == ("", "failed", "corrupt")
    assert "declares 10000000 bytes" in docs["d.docx#word/embeddings/oleObject2.bin"]["reason_text"]
    assert found["d.docx#word/embeddings/oleObject3.bin/kept.txt"] == ("text", "ok", "")
    assert chunk_texts(tmp_path)["d.docx#word/embeddings/oleObject3.bin/kept.txt"] == "Kept text."


def test_an_embedding_nested_past_max_depth_is_skipped(tmp_path: Path) -> None:
    innermost = docx_file(_para("Three deep."))
    middle = docx_file(_para("Two deep."), extra={"word/embeddings/inner.docx": innermost})
    outer = docx_file(_para("One deep."), extra={"word/embeddings/middle.docx": middle})
    config = Config(workers=1, pdf_workers=1, max_failures=100, max_depth=1)
    docs = run(tmp_path, {"outer.docx": outer}, config)
    assert states(docs) == {
        "outer.docx": ("docx", "ok", ""),
        "outer.docx#word/embeddings/middle.docx": ("docx", "ok", ""),
        "outer.docx#word/embeddings/middle.docx#word/embeddings/inner.docx": (
            "docx", "skipped", "depth_limit",
        ),
    }  # fmt: skip


def test_the_unpacking_budget_refuses_a_bomb_embedded_in_a_document(tmp_path: Path) -> None:
    """An embedded part past the whole file's budget is not unpacked; nor is the member of
    a zip bomb embedded as a package, which the zip's reader charges to the same budget;
    a workbook that is a bomb itself is refused by its own reader's limits."""
    bomb = zip_of({"zeros.bin": bytes(3 << 20)})
    large = random.Random(7).randbytes(2 << 20)  # incompressible: 2 MiB in the package too
    dense = zip_package({"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "x" * (8 << 20)})
    doc = docx_file(
        _para("A document with a bomb in it."),
        extra={
            "word/embeddings/oleObject1.bin": package("bomb.zip", bomb),
            "word/embeddings/Large.xlsx": large,
            "word/embeddings/Dense.xlsx": dense,
        },
    )
    config = Config(workers=1, pdf_workers=1, max_failures=100, max_unpacked_bytes=1 << 20)
    docs = run(tmp_path, {"d.docx": doc}, config)
    found = states(docs)
    assert found["d.docx"] == ("docx", "ok", "")
    assert found["d.docx#word/embeddings/Large.xlsx"] == ("", "skipped", "unpacked_limit")
    assert found["d.docx#word/embeddings/Dense.xlsx"] == ("spreadsheet", "failed", "refused")
    zipped = {p: s for p, s in found.items() if "bomb.zip" in p}
    assert zipped["d.docx#word/embeddings/oleObject1.bin/bomb.zip"][0] == "archive"
    # the zip's reader refuses its member by its ratio before the budget's bytes run out
    assert zipped["d.docx#word/embeddings/oleObject1.bin/bomb.zip#zeros.bin"] == (
        "", "skipped", "compression_ratio",
    )  # fmt: skip


def test_one_budget_spans_every_object_of_a_document(tmp_path: Path) -> None:
    """Each object fits the budget alone; the third does not fit what the first two left."""
    parts = {
        f"word/embeddings/part{i}.txt": random.Random(i).randbytes(300_000).hex().encode()[:400_000]
        for i in range(3)
    }
    doc = docx_file(_para("Three large notes."), extra=parts)
    config = Config(workers=1, pdf_workers=1, max_failures=100, max_unpacked_bytes=1_000_000)
    found = states(run(tmp_path, {"d.docx": doc}, config))
    assert [found[f"d.docx#word/embeddings/part{i}.txt"][1:] for i in range(3)] == [
        ("ok", ""), ("ok", ""), ("skipped", "unpacked_limit"),
    ]  # fmt: skip


def test_open_document_objects_are_documents(tmp_path: Path) -> None:
    """An OLE object (`Object 1`) and an embedded text (`Object 2/`, repacked); a chart
    (`Object 3/`) is drawn by the document, not a document."""
    inner = "<office:document-content><office:body><office:text>"
    parts = {
        "Object 1": package("minutes.txt", b"Minutes of the meeting."),
        "Object 2/content.xml": (
            '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:'
            'office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">'
            "<office:body><office:text><text:p>Embedded text body.</text:p></office:text>"
            "</office:body></office:document-content>"
        ),
        "Object 3/content.xml": inner,
    }
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="Object 2/" manifest:media-type='
        '"application/vnd.oasis.opendocument.text"/>'
        '<manifest:file-entry manifest:full-path="Object 3/" manifest:media-type='
        '"application/vnd.oasis.opendocument.chart"/></manifest:manifest>'
    )
    odt = _with_parts(odf_file("text", "<text:p>Host text.</text:p>"), parts, manifest)
    docs = run(tmp_path, {"host.odt": odt})
    assert states(docs) == {
        "host.odt": ("odt", "ok", ""),
        "host.odt#Object 1/minutes.txt": ("text", "ok", ""),
        "host.odt#Object 2": ("odt", "ok", ""),
    }
    assert "Embedded text body." in chunk_texts(tmp_path)["host.odt#Object 2"]


def _with_parts(data: bytes, parts: dict[str, str | bytes], manifest: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        old: dict[str, bytes | str] = {n: archive.read(n) for n in archive.namelist()}
    old["META-INF/manifest.xml"] = manifest
    return zip_package({**old, **parts})


def test_an_ole_1_objects_own_data_is_no_package() -> None:
    """An equation keeps its data in `Ole10Native` too: not a file, so nothing is unwrapped."""
    equation = ole_file({"\x01Ole10FmtProgID": b"\t\x00\x00\x00Equation\x00", **_native_of()})
    assert unwrap("word/embeddings/oleObject1.bin", equation) == ("oleObject1.bin", equation)


def _native_of() -> dict[str, bytes]:
    return {"\x01Ole10Native": b"$\x00\x00\x00\x02\x00\x01\x01\x00\n\x01\x12\x83F"}


def test_unwrap_names_what_an_ole_object_holds() -> None:
    assert unwrap("word/embeddings/oleObject1.bin", package("a\\b\\report.pdf", b"%PDF-1.4")) == (
        "report.pdf",
        b"%PDF-1.4",
    )
    name, data = unwrap("x/embeddings/oleObject2.bin", DOC)
    assert (name, data) == ("oleObject2.doc", DOC)
    assert unwrap("x/embeddings/Sheet.xlsx", b"PK\x03\x04rest") == ("Sheet.xlsx", b"PK\x03\x04rest")


def test_a_word_97_file_skipped_for_its_pictures_still_gives_its_objects(tmp_path: Path) -> None:
    """OCR off passes over a `.doc` of pictures; the file in its `ObjectPool` is read."""
    scan = picture(scanmaker.png(scanmaker.page(2, dpi=100, angle=0, seed=1)))
    ole = olefile.OleFileIO(doc_file("\x01\r", data=scan))
    streams: Tree = {n: ole.openstream(n).read() for n in ("WordDocument", "1Table", "Data")}
    streams["ObjectPool"] = {"_1": {"\x01Ole10Native": native("notes.txt", b"Pooled notes.")}}
    config = Config(workers=1, pdf_workers=1, max_failures=100, ocr_mode="off")
    docs = run(tmp_path, {"letter.doc": compound_file(streams)}, config)
    assert states(docs) == {
        "letter.doc": ("doc", "skipped", "ocr_off"),
        "letter.doc#ObjectPool/_1/notes.txt": ("text", "ok", ""),
    }
