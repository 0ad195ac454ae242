"""OCR on the shared data: routing over every corpus PDF, and a handful of real scans read."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from engines import real_engine
from ocr_routes import routes
from sharedfiles import SHARED

import indexer
from indexer.config import Config

pytestmark = pytest.mark.slow  # whole runs with real OCR, and passes over the whole corpus

ROOT = Path(__file__).resolve().parents[2]
SCANS = SHARED / "formats" / "scans"
SCORER = SHARED / "quality" / "score_ocr.py"
MEDICAL = "markitdown-test-files/MEDRPT-2024-PAT-3847_medical_report_scan.pdf"

ROUTED = {
    MEDICAL: [1, 2, 3],
    "pdf-pdfminer/contrib/issue-1057-tiff-predictor.pdf": [1],
    "pdf-pdfminer/contrib/pdf-with-jbig2.pdf": [1],
    "pdf-pdfminer/encryption/encrypted_doc_no_id.pdf": [2],
    "pdf-pdfplumber/issue-203-decimalize.pdf": [1, 2, 3],
    "pdf-pdfplumber/malformed-from-issue-932.pdf": [1],
    "pdf-py-pdf-sample-files/grayscale-image.pdf": [1],
    "pdf-pypdf/box.pdf": [1],
    "pdf-pypdf/encrypted_doc_no_id.pdf": [2],
    "pdf-pypdf/git.pdf": [1],
    "pdf-pypdf/imagemagick-ASCII85Decode.pdf": [1],
    "pdf-pypdf/imagemagick-CCITTFaxDecode.pdf": [1],
    "pdf-pypdf/imagemagick-lzw.pdf": [1],
    "pdf-pypdf/issue-3850-1bit-indexed-flate.pdf": [1],
    "pdfjs-corrupt/bitmap-p32-eof.pdf": [1],
    "pdfjs-corrupt/multiple-filters-length-zero.pdf": [1],
    "pdfjs-corrupt/scan-bad.pdf": [1],
}
"""Every corpus PDF page that OCR reads: the pages without a usable text layer."""

UNMARKED = {
    "pdf-pypdf/git.pdf": "one image (a logo) and no text at all",
    "pdf-pdfplumber/malformed-from-issue-932.pdf": "a scanned page, 7 characters of text layer",
    "pdfjs-corrupt/multiple-filters-length-zero.pdf": "a scanned page, 'pdf.js' its text layer",
}
"""Image pages whose manifest note does not say so: not born-digital, whatever it says."""

_NOT_BORN_DIGITAL = ("no extractable text", "image only", "scan")


def _manifest_pdfs(corpus: Path) -> dict[str, str]:
    rows = [line.split("\t") for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:]]
    return {row[0]: row[5] for row in rows if row[3] == "pdf"}


def test_born_digital_corpus_pdfs_never_reach_the_engine(corpus: Path) -> None:
    pdfs = _manifest_pdfs(corpus)
    found = routes([corpus / rel for rel in sorted(pdfs)], timeout=600)
    routed = {str(Path(path).relative_to(corpus)): pages for path, pages in found.items()}
    assert len(routed) == len(pdfs) >= 220
    born_digital = {
        rel
        for rel, note in pdfs.items()
        if not any(words in note for words in _NOT_BORN_DIGITAL) and rel not in UNMARKED
    }
    assert len(born_digital) >= 180
    assert {rel: routed[rel] for rel in born_digital if routed[rel]} == {}
    assert {rel: pages for rel, pages in routed.items() if pages} == ROUTED


def test_the_medical_report_scan_reads_as_the_report(corpus: Path) -> None:
    engine = real_engine()
    result = indexer.extract(MEDICAL, (corpus / MEDICAL).read_bytes())
    assert result.status == "ok"
    ocr = result.metadata["ocr"]
    assert (ocr["engine"], ocr["pages"], "low_confidence" in ocr) == (
        engine.label,
        [1, 2, 3],
        False,
    )
    pages = {n: " ".join(c.text for c in result.chunks if c.meta["page"] == n) for n in (1, 2, 3)}
    for phrase in (
        "SEATTLE GENERAL HOSPITAL",
        "COMPREHENSIVE MEDICAL REPORT",
        "Report ID: MEDRPT-2024-PAT-3847",
        "Patient Name: Jonathan Michael Harrison",
        "Blood Pressure 142/88 mmHg",
        "Lisinopril 10mg",
    ):
        assert phrase in pages[1], phrase
    for phrase in ("PHYSICAL EXAMINATION", "LABORATORY RESULTS", "Glucose, Fasting 118 mg/dL"):
        assert phrase in pages[2], phrase
    for phrase in ("TREATMENT PLAN", "Start Atorvastatin 20mg", "Page 3 of 3"):
        assert phrase in pages[3], phrase


def test_the_shared_scans_score_a_mean_word_f1_of_093_and_none_under_090() -> None:
    if not SCORER.is_file():
        pytest.skip("../shared/quality is not available")
    real_engine()
    done = subprocess.run(
        [sys.executable, str(SCORER), str(SCANS)],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/local/bin:/usr/bin:/bin"},
    )
    each = [float(f) for f in re.findall(r"^  F1=([\d.]+)", done.stdout, re.MULTILINE)]
    (files, mean) = re.findall(r"^files=(\d+) F1=([\d.]+)$", done.stdout, re.MULTILINE)[0]
    assert int(files) == len(each) >= 4
    assert float(mean) >= 0.93 and min(each) >= 0.90, done.stdout


@pytest.fixture(scope="module")
def scans_and_mail(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of corpus scans and a mail with image attachments, plus a born-digital PDF."""
    source = tmp_path_factory.mktemp("scans") / "src"
    for rel in (
        "pdf-pdfminer/contrib/pdf-with-jbig2.pdf",
        "pdf-pypdf/issue-3850-1bit-indexed-flate.pdf",
        "pdf-pypdf/encrypted_doc_no_id.pdf",
        "pdf-pypdf/git.pdf",
        "pdf-pypdf/reportlab-inline-image.pdf",
        "email-spamscope-mail-parser/mail_test_6.eml",
    ):
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / rel, source / rel)
    return source


def test_scans_and_image_attachments_become_documents_the_same_with_one_or_two_workers(
    scans_and_mail: Path, tmp_path: Path
) -> None:
    real_engine()
    outs = [tmp_path / f"w{n}" for n in (1, 2)]
    for out, workers in zip(outs, (1, 2), strict=True):
        indexer.run(scans_and_mail, out, Config(workers=workers, pdf_workers=workers))
    for name in ("documents-00000.ndjson", "chunks-00000.ndjson", "manifest.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    docs = {d["path"]: d for d in _lines(outs[0] / "documents-00000.ndjson")}
    status = {path: (d["kind"], d["status"], d["reason"]) for path, d in docs.items()}
    mail = "email-spamscope-mail-parser/mail_test_6.eml#att/"
    assert status == {
        "email-spamscope-mail-parser/mail_test_6.eml": ("eml", "ok", ""),
        mail + "1/part-1.png": ("image", "ok", ""),
        mail + "2/part-2.png": ("image", "ok", ""),
        mail + "3/part-3.png": ("image", "ok", ""),
        mail + "4/part-4.png": ("image", "skipped", "image_too_small"),
        "pdf-pdfminer/contrib/pdf-with-jbig2.pdf": ("pdf", "ok", ""),
        "pdf-pypdf/encrypted_doc_no_id.pdf": ("pdf", "ok", ""),
        "pdf-pypdf/git.pdf": ("pdf", "empty", "no_text"),
        "pdf-pypdf/issue-3850-1bit-indexed-flate.pdf": ("pdf", "ok", ""),
        "pdf-pypdf/reportlab-inline-image.pdf": ("pdf", "ok", ""),
    }
    assert docs["pdf-pypdf/reportlab-inline-image.pdf"]["metadata"]["ocr"]["engine"] == ""
    chunks = _lines(outs[0] / "chunks-00000.ndjson")
    scanned = [c for c in chunks if c["path"] == "pdf-pypdf/issue-3850-1bit-indexed-flate.pdf"]
    assert [(c["text"], c["meta"]["pages"], c["meta"]["ocr"]) for c in scanned] == [
        ("pypdf L-bitindexed decode repro", [1, 1], True)  # packed chunks keep the mark
    ]


def test_a_copied_scan_is_not_read_again(scans_and_mail: Path, tmp_path: Path) -> None:
    real_engine()
    out = tmp_path / "out"
    indexer.run(scans_and_mail, out, Config(workers=2, pdf_workers=2))
    copy = scans_and_mail / "copies" / "jbig2.pdf"
    copy.parent.mkdir()
    shutil.copyfile(scans_and_mail / "pdf-pdfminer/contrib/pdf-with-jbig2.pdf", copy)
    try:
        again = indexer.run(scans_and_mail, out, Config(workers=2, pdf_workers=2))
    finally:
        shutil.rmtree(copy.parent)
    assert again.extracted == 0
    docs = {d["path"]: d for d in _lines(out / "documents-00000.ndjson")}
    assert docs["copies/jbig2.pdf"]["metadata"]["ocr"]["pages"] == "1"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]
