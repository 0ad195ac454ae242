"""Hostile office files, built here: encrypted, corrupt, truncated, mislabelled, zip bombs,
entity bombs and external entities. Each ends in one clear result, never an exception."""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lane import examples

import indexer
from indexer import Config
from indexer._extract import raised
from indexer._samples import SAMPLES, minimal_pdf
from indexer.formats.office.container import ContainerError, ZipLimits, open_zip
from indexer.formats.office.ole_samples import DOC, ole_file
from indexer.formats.office.samples import (
    DOCX,
    OFFICE_SAMPLES,
    docx_file,
    odf_file,
    zip_package,
)
from indexer.registry import ExtractorSpec, Registry, default_registry

ENCRYPTED_OOXML = ole_file(
    {"EncryptionInfo": b"\x04\x00\x04\x00", "EncryptedPackage": b"\x00" * 64}
)
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _texts(result: indexer.Extracted) -> list[str]:
    return [chunk.text for chunk in result.chunks]


def _document(xml: bytes) -> bytes:
    """A Word package whose main part is exactly `xml`."""
    rels = (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
    )
    return zip_package({"_rels/.rels": rels, "word/document.xml": xml})


@pytest.mark.parametrize("name", ["x.docx", "x.pptx", "x.docm"])
def test_an_encrypted_ooxml_package_fails_as_encrypted(name: str) -> None:
    result = indexer.extract(name, ENCRYPTED_OOXML)
    assert (result.status, result.error) == ("failed", "encrypted")
    assert result.degraded and len(result.chunks) == 1


@pytest.mark.parametrize(
    "rel", ["tika/protected_normal_case.docx", "tika/testPPT_protected_passtika.pptx"]
)
def test_real_password_protected_files_fail_as_encrypted(formats: Path, rel: str) -> None:
    result = indexer.extract(rel, (formats / rel).read_bytes())
    assert (result.status, result.error) == ("failed", "encrypted")


@pytest.mark.parametrize("eighths", [1, 3, 5, 7])
def test_a_truncated_package_fails_as_corrupt(eighths: int) -> None:
    for ext in ("docx", "pptx", "odt", "odp", "epub"):
        data = OFFICE_SAMPLES[ext]
        result = indexer.extract(f"x.{ext}", data[: len(data) * eighths // 8])
        assert result.status == "failed", ext
        assert result.error is not None and result.error.startswith("corrupt: "), (
            ext,
            result.error,
        )


def test_malformed_xml_in_the_main_part_fails_naming_the_part() -> None:
    result = indexer.extract("x.docx", _document(f'<w:document xmlns:w="{W_NS}"><w:body>'.encode()))
    assert result.status == "failed"
    assert result.error is not None and result.error.startswith("corrupt: word/document.xml: ")


def test_a_member_whose_bytes_were_damaged_fails_as_corrupt() -> None:
    data = bytearray(DOCX)
    with zipfile.ZipFile(__import__("io").BytesIO(DOCX)) as archive:
        info = archive.getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for at in range(start + 5, start + info.compress_size - 5, 7):
        data[at] ^= 0x5A
    result = indexer.extract("x.docx", bytes(data))
    assert result.status == "failed"
    assert result.error is not None and result.error.startswith("corrupt: word/document.xml")


def test_mislabelled_files_are_read_as_what_they_are() -> None:
    as_doc = indexer.extract("report.docx", DOC)
    assert (as_doc.kind, as_doc.status, as_doc.metadata) == ("docx", "ok", {"format": "doc"})
    assert _texts(as_doc) == ["Legacy memo", "It still opens."]
    as_docx = indexer.extract("report.doc", DOCX)
    assert (as_docx.kind, as_docx.metadata["format"]) == ("doc", "docx")
    assert _texts(as_docx)[0] == "# Quarterly report"
    html = indexer.extract("page.docx", b"<!doctype html><html><body><p>Saved as web page</p>")
    assert (html.status, html.metadata.get("format"), _texts(html)) == (
        "ok",
        "html",
        ["Saved as web page"],
    )
    pdf = indexer.extract("scan.pptx", minimal_pdf([["A PDF in disguise"]]))
    assert (pdf.kind, pdf.metadata["format"], _texts(pdf)) == ("pptx", "pdf", ["A PDF in disguise"])
    deck = indexer.extract("deck.odp", OFFICE_SAMPLES["pptx"])
    assert (deck.kind, deck.metadata["format"]) == ("odp", "pptx")


def test_unrecognised_bytes_and_foreign_zips_fail_clearly() -> None:
    junk = indexer.extract("x.pptx", bytes(range(256)) * 4)
    assert junk.error == "unrecognised: the content is not a pptx file"
    other = indexer.extract("x.docx", zip_package({"readme.txt": "just a zip"}))
    assert other.error == "corrupt: not a docx file (a ZIP of no known kind)"


def test_a_zip_bomb_is_refused_before_its_member_is_unpacked() -> None:
    size = 16 << 20
    bomb = _document(b"<w:document>" + b" " * size + b"</w:document>")
    assert len(bomb) < size // 200
    tracemalloc.start()
    try:
        result = indexer.extract("bomb.docx", bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.status == "failed"
    assert result.error is not None and result.error.startswith("refused: word/document.xml")
    assert peak < size // 4


def test_zip_directories_past_the_limits_are_refused() -> None:
    many = zip_package({f"part{i}.xml": "<a/>" for i in range(30)})
    with pytest.raises(ContainerError, match=r"^refused: 30 members"):
        open_zip(many, ZipLimits(members=20))
    with pytest.raises(ContainerError, match=r"^refused: the ZIP would unpack to 120 bytes"):
        open_zip(many, ZipLimits(total=100))
    with pytest.raises(ContainerError, match=r"^refused: part0.xml would unpack to 4 bytes"):
        open_zip(many, ZipLimits(member=3)).read("part0.xml")


def test_billion_laughs_is_never_expanded() -> None:
    entities = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' if i else '<!ENTITY lol0 "&lol;&lol;">'
        for i in range(10)
    )
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]><w:document xmlns:w="{W_NS}">'
        "<w:body><w:p><w:r><w:t>before &lol9; after</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    tracemalloc.start()
    try:
        result = indexer.extract("laughs.docx", _document(xml))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.status, raised(result)) == ("failed", False)
    assert result.error is not None and "entity amplification" in result.error
    assert not any("lollol" in c.text for c in result.chunks)
    assert peak < 8 << 20


def test_an_entity_under_the_parsers_own_limit_is_not_expanded_either() -> None:
    entities = '<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]><w:document xmlns:w="{W_NS}">'
        "<w:body><w:p><w:r><w:t>before &b;</w:t><w:t> after</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    result = indexer.extract("laughs.docx", _document(xml))
    assert _texts(result) == ["before after"]


def test_external_entities_are_never_fetched(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-MARKER")
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "{secret.as_uri()}">]>'
        f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p>'
        "<w:p><w:r><w:t>visible</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    result = indexer.extract("xxe.docx", _document(xml))
    assert _texts(result) == ["visible"]
    assert "TOP-SECRET" not in repr(result)


def test_xml_nested_past_the_parsers_depth_limit_fails_as_corrupt() -> None:
    deep = "<w:sdt><w:sdtContent>" * 300 + "</w:sdtContent></w:sdt>" * 300
    result = indexer.extract("deep.docx", docx_file(deep))
    assert result.status == "failed"
    assert result.error is not None and "Excessive depth" in result.error


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ext=st.sampled_from(sorted(OFFICE_SAMPLES)),
    cuts=st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=8),
    keep=st.floats(0.0, 1.0),
)
@example(ext="doc", cuts=[(0, 9)], keep=0.0)  # one byte left, and it is a tab: empty input
def test_damaged_office_files_keep_the_four_invariants(
    ext: str, cuts: list[tuple[int, int]], keep: float
) -> None:
    data = bytearray(SAMPLES[ext])
    for at, value in cuts:
        data[at % len(data)] = value
    damaged = bytes(data[: max(1, int(len(data) * keep))])
    options = indexer.Options(max_chunk_chars=120)
    first = indexer.extract(f"x.{ext}", damaged, options)
    assert not raised(first), first.error
    if not damaged.strip():  # invariant 2: empty input, no chunks
        assert first.chunks == ()
    elif first.skipped is not None:  # a known format not read here (Word 6/95): a reason
        assert first.chunks == () and first.skipped.strip()
    else:  # invariant 3: a non-blank chunk, none over the limit
        assert first.chunks and all(c.text.strip() and len(c.text) <= 120 for c in first.chunks)
    assert indexer.extract(f"x.{ext}", damaged, options) == first


def test_entity_references_between_elements_are_dropped_not_met_by_the_readers() -> None:
    dtd = '<!DOCTYPE office:document-content [<!ENTITY e "x">]>'
    deck = odf_file(
        "presentation",
        "<draw:page>&e;<draw:frame><draw:text-box><text:p>Shown &e;too</text:p>"
        "</draw:text-box></draw:frame></draw:page>",
        prolog=dtd,
    )
    result = indexer.extract("deck.odp", deck)
    assert (result.status, _texts(result)) == ("ok", ["Shown too"])


def test_text_in_any_encoding_and_an_html_table_named_as_office_files_are_read_as_that() -> None:
    utf16 = indexer.extract("notes.docx", "Notes for the meeting\r\n".encode("utf-16"))
    assert (utf16.metadata["format"], _texts(utf16)) == ("text", ["Notes for the meeting"])
    table = indexer.extract("export.doc", b"<table><tr><td>Ann</td><td>42</td></tr></table>")
    assert table.metadata["format"] == "html" and "Ann" in table.text


def _loud_html(data: bytes, path: str, options: indexer.Options) -> indexer.Extracted:
    """A plugin's HTML extractor: shouts the page's bytes."""
    text = data.decode().upper()
    return indexer.Extracted(kind="html", text=text, chunks=(indexer.Chunk(text=text),))


def _loud_registry() -> Registry:
    registry = default_registry().copy()
    loud = ExtractorSpec(
        name="loud_html", kind="html", extensions=("html", "htm"), version="1", extract=_loud_html
    )
    registry.register(loud, replace_existing=True)
    return registry


def test_a_mislabelled_file_goes_to_the_extractor_the_runs_registry_has_for_its_content(
    tmp_path: Path,
) -> None:
    """Not the default registry's: a plugin registered in the `Registry` given to
    `indexer.extract` or `indexer.run` reads it, in the worker processes too."""
    page = b"<!doctype html><p>saved as web page</p>"
    registry = _loud_registry()
    result = indexer.extract("page.docx", page, registry=registry)
    assert (result.kind, result.metadata, _texts(result)) == (
        "docx", {"format": "html"}, [page.decode().upper()],
    )  # fmt: skip
    assert _texts(indexer.extract("page.docx", page)) == ["saved as web page"]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "page.docx").write_bytes(page)
    config = Config(workers=1, pdf_workers=1, chunking="blocks")
    indexer.run(tmp_path / "src", tmp_path / "out", config, registry=registry)
    [shard] = (tmp_path / "out").glob("chunks-*.ndjson")
    assert [json.loads(line)["text"] for line in shard.read_bytes().splitlines()] == [
        page.decode().upper()
    ]
