"""`run.json`'s `ocr` block: the pages a run gives the engine, by where they come from,
the images kept from it and why, the pages answered by an earlier reading, and the
engine's CPU seconds. Real Tesseract, real worker processes, a small real tree."""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import scanmaker
from engines import real_engine
from outputs import committed, document_lines
from PIL import Image

import indexer
from indexer import Config
from indexer.formats.office.samples import odf_file, zip_package
from indexer.pipeline.output.records import Rendered
from indexer.pipeline.output.stored import decode, encode

CONFIG = Config(workers=1, pdf_workers=1)
_SCAN = "scans/RECEIPT-2024-TXN-98765_retail_purchase.scan.pdf"


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _odt_showing_twice(scan: bytes, icon: bytes) -> bytes:
    """An OpenDocument text showing one scanned picture twice and an icon once."""
    frame = '<draw:frame><draw:image xlink:href="{}"/></draw:frame>'
    body = (
        f"<text:p>Before.{frame.format('Pictures/scan.png')}</text:p>"
        f"<text:p>Again.{frame.format('Pictures/scan.png')}{frame.format('Pictures/i.png')}"
        "</text:p>"
    )
    with zipfile.ZipFile(io.BytesIO(odf_file("text", body))) as archive:
        parts: dict[str, bytes | str] = {n: archive.read(n) for n in archive.namelist()}
    return zip_package({**parts, "Pictures/scan.png": scan, "Pictures/i.png": icon})


def _tree(root: Path, formats: Path) -> Path:
    """Two copies of a one-page scanned PDF, a made scan as PNG, a 16 px icon, a blank
    page image, tika's testOCR.docx (one picture) and an .odt showing a picture twice."""
    real_engine()
    src = root / "src"
    for folder in ("a", "b"):
        (src / folder).mkdir(parents=True)
        shutil.copyfile(formats / _SCAN, src / folder / "receipt.pdf")
    icon = _png(Image.new("RGB", (16, 16), (200, 20, 20)))
    (src / "icon.png").write_bytes(icon)
    (src / "blank.png").write_bytes(_png(Image.new("L", (400, 300), 255)))
    (src / "letter.png").write_bytes(scanmaker.png(scanmaker.page(2, dpi=200, angle=0, seed=1)))
    shutil.copyfile(formats / "tika/testOCR.docx", src / "testOCR.docx")
    scan = scanmaker.png(scanmaker.page(1, dpi=100, angle=0.3, seed=3))
    (src / "notes.odt").write_bytes(_odt_showing_twice(scan, icon))
    return src


def _ocr(out: Path) -> dict[str, Any]:
    block: dict[str, Any] = json.loads((out / "run.json").read_bytes())["ocr"]
    return block


def _counts(out: Path) -> dict[str, Any]:
    """The `ocr` block without its timings."""
    return {k: v for k, v in _ocr(out).items() if k not in ("engine_cpu_s", "cpu_s_per_page")}


_FRESH = {
    "pages": 4,
    "sent": {"pdf": 1, "image": 1, "picture": 2},
    "kept": {
        "too_small": 2, "blank": 1, "max_pages": 0,
        "ocr_off": 0, "not_installed": 0, "language_missing": 0,
    },
    # The second receipt is an exact copy, extracted once; the .odt's second showing.
    "cached": 2,
}  # fmt: skip


@pytest.mark.slow  # OCR engine reads in worker processes
def test_run_json_counts_the_pages_sent_to_ocr_by_source_and_the_images_kept_from_it(
    tmp_path: Path, formats: Path
) -> None:
    src = _tree(tmp_path, formats)
    indexer.run(src, tmp_path / "out", CONFIG)
    assert _counts(tmp_path / "out") == _FRESH
    block = _ocr(tmp_path / "out")
    assert block["engine_cpu_s"] > 0
    # Both figures are rounded to 3 places, so they agree to the two roundings.
    assert abs(block["cpu_s_per_page"] - block["engine_cpu_s"] / 4) <= 0.0005 + 0.0005 / 4
    records = {r["path"]: r for r in map(json.loads, document_lines(tmp_path / "out"))}
    assert records["icon.png"]["reason"] == "image_too_small"
    assert records["blank.png"]["metadata"]["ocr"]["blank"] == "1"
    assert all("\x00" not in key for r in records.values() for key in r["metadata"])


@pytest.mark.slow  # OCR engine reads in worker processes, and a local dask cluster
def test_the_counts_are_the_same_with_one_or_two_workers_and_on_the_dask_engine(
    tmp_path: Path, formats: Path
) -> None:
    src = _tree(tmp_path, formats)
    runs = {
        "one": CONFIG,
        "two": replace(CONFIG, workers=2, pdf_workers=2),
        "dask": replace(CONFIG, workers=2, pdf_workers=2, engine="dask"),
    }
    for name, config in runs.items():
        indexer.run(src, tmp_path / name, config)
    assert {name: _counts(tmp_path / name) for name in runs} == dict.fromkeys(runs, _FRESH)
    assert committed(tmp_path / "two") == committed(tmp_path / "one")
    assert committed(tmp_path / "dask") == committed(tmp_path / "one")


@pytest.mark.slow  # OCR engine reads in worker processes
def test_a_rerun_answers_every_page_from_the_stored_outputs_repacked_or_not(
    tmp_path: Path, formats: Path
) -> None:
    src = _tree(tmp_path, formats)
    out = tmp_path / "out"
    indexer.run(src, out, CONFIG)
    later = os.stat(src / "letter.png").st_mtime_ns + 10**9
    for path in src.rglob("*.*"):  # every file looks changed: each is looked at again
        os.utime(path, ns=(later, later))
    nothing = {"pdf": 0, "image": 0, "picture": 0}
    for config in (CONFIG, replace(CONFIG, chunking="blocks")):  # as stored, then re-packed
        summary = indexer.run(src, out, config)
        assert summary.extracted == 0
        block = _counts(out)
        assert (block["pages"], block["sent"], block["cached"]) == (0, nothing, 4 + 2)
        assert set(block["kept"].values()) == {0}
        assert _ocr(out)["engine_cpu_s"] == 0


@pytest.mark.slow  # whole runs in worker processes
@pytest.mark.parametrize(
    ("options", "kept"),
    [
        # Off: the image documents are kept out undecoded; PDFs and office files are
        # not looked at for scans.
        ({"ocr_mode": "off"}, {"ocr_off": 3}),
        # A language pack missing: each image and picture, and the PDFs' scanned pages.
        ({"ocr_language": "zzz"}, {"language_missing": 3 + 3 + 1}),
    ],
)
def test_images_kept_from_the_engine_are_counted_by_why(
    tmp_path: Path, formats: Path, options: dict[str, str], kept: dict[str, int]
) -> None:
    src = _tree(tmp_path, formats)
    shutil.rmtree(src / "b")  # no copy: each PDF's pages count where it is extracted
    indexer.run(src, tmp_path / "out", replace(CONFIG, **options))  # type: ignore[arg-type]
    block = _counts(tmp_path / "out")
    assert block["pages"] == 0
    assert {k: n for k, n in block["kept"].items() if n} == kept
    assert block["cached"] == 0


def test_a_documents_ocr_counts_are_stored_with_its_output_and_read_back() -> None:
    doc = Rendered(
        path="a.pdf", doc_id="d", block=b"", count=0, digest="x", line=b"{}\n", status="ok",
        kind="pdf", pages=3, ocr=(2, 0, 0, 0, 1, 0, 0, 0, 0, 0), ocr_seconds=1.5,
    )  # fmt: skip
    plain = replace(doc, ocr=(), ocr_seconds=0.0)
    [back] = decode(b"".join(encode((doc,), "tag", b""))).docs
    assert back == replace(doc, ocr_seconds=0.0)  # a measurement is never stored
    assert decode(b"".join(encode((plain,), "tag", b""))).docs == (plain,)
