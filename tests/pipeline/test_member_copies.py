"""Exact copies among archive members and attachments are extracted once in a run
(`pipeline/extract/childcopies.py`): a zip holding the same PDF five times, mails and
an mbox attaching the same docx, are each content's one extraction, and every copy's
records are the bytes its own extraction writes (its path, its mail's headers)."""

from __future__ import annotations

import mailbox
import shutil
import zipfile
from collections import Counter
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest
from counting import by_content, counting_registry
from outputs import committed, documents
from sharedfiles import CORPUS, FORMATS

import indexer
from indexer.config import Config

PDF = CORPUS / "markitdown-test-files" / "test.pdf"
DOCX = FORMATS / "markitdown" / "test.docx"
EMBEDDING = FORMATS / "tika" / "EmbeddedPDF.docx"
CONFIG = Config(workers=2, pdf_workers=2)


@pytest.fixture(autouse=True)
def _shared() -> None:
    if not (PDF.exists() and DOCX.exists() and EMBEDDING.exists()):
        pytest.skip("../shared is not available")


def message(n: int, attached: Path, name: str) -> EmailMessage:
    """Mail number `n`, headers of its own, `attached` as `name`."""
    mail = EmailMessage()
    mail["From"] = f"sender{n}@example.com"
    mail["To"] = "everyone@example.com"
    mail["Subject"] = f"The report, take {n}"
    mail["Message-ID"] = f"<take-{n}@example.com>"
    mail["Date"] = f"Mon, {n + 1:02d} Jan 2024 10:00:00 +0000"
    mail.set_content(f"Message {n}: the report is attached.\n")
    data = attached.read_bytes()
    mail.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return mail


def tree(root: Path) -> Path:
    """The PDF at the top and five times in a zip (with the docx three times); four
    mails attaching the docx, three the PDF; an mbox of three more with the docx."""
    root.mkdir()
    shutil.copyfile(PDF, root / "report.pdf")
    with zipfile.ZipFile(root / "bundle.zip", "w") as bundle:
        for n in range(5):
            bundle.write(PDF, f"copy{n}/report.pdf")
        for n in range(3):
            bundle.write(DOCX, f"docs/letter{n}.docx")
    (root / "mail").mkdir()
    for n in range(7):
        attached, name = (DOCX, "letter.docx") if n < 4 else (PDF, "report.pdf")
        (root / "mail" / f"m{n}.eml").write_bytes(message(n, attached, name).as_bytes())
    box = mailbox.mbox(str(root / "box.mbox"))
    for n in range(7, 10):
        box.add(message(n, DOCX, "letter.docx"))
    box.close()
    return root


def extractions(log: Path) -> Counter[str]:
    """Extractor calls per extractor."""
    counts: Counter[str] = Counter()
    for (name, _), n in by_content(log).items():
        counts[name] += n
    return counts


@pytest.mark.parametrize("workers", [1, 2])
def test_copies_of_members_and_attachments_are_extracted_once(tmp_path: Path, workers: int) -> None:
    source = tree(tmp_path / "src")
    log = tmp_path / "calls.log"
    config = replace(CONFIG, workers=workers, pdf_workers=workers)
    run = indexer.run(source, tmp_path / "out", config, registry=counting_registry(log))
    # The docx once for its ten copies; the PDF once among the children (eight copies)
    # and once at the top; each mail and the zip once.
    assert extractions(log) == {"docx": 1, "pdf": 2, "eml": 10, "archive": 1}
    assert (run.extracted, run.reused) == (14, 16)
    docs = documents(tmp_path / "out")
    first_pdf, first_docx = "bundle.zip#copy0/report.pdf", "box.mbox#1#att/1/letter.docx"
    assert docs[first_pdf]["chunks"] > 0 and docs[first_docx]["chunks"] > 0
    copies = [p for p, d in docs.items() if d["duplicate_of"]]
    assert len(copies) == 17  # eight of the PDF and the top one, nine of the docx
    for path in copies:
        assert docs[path]["chunks"] == 0 and docs[path]["status"] == "ok"
        original = docs[docs[path]["duplicate_of"]]
        assert original["path"] in (first_pdf, first_docx)
        assert docs[path]["sha256"] == original["sha256"]


def lines_of(out: Path, path: str) -> list[bytes]:
    """The document and chunk lines of `path` in a committed output."""
    return [
        line
        for name, data in sorted(committed(out).items())
        if name.endswith(".ndjson")
        for line in data.splitlines()
        if f'"path":"{path}"'.encode() in line
    ]


def test_a_copys_records_are_those_its_own_extraction_writes(tmp_path: Path) -> None:
    """With `exact = "off"` every copy keeps its chunks: each names its own path and
    carries its own mail's headers, as a run holding only its mail writes them."""
    source = tree(tmp_path / "src")
    config = replace(CONFIG, exact="off")
    log = tmp_path / "calls.log"
    indexer.run(source, tmp_path / "out", config, registry=counting_registry(log))
    assert extractions(log)["docx"] == 1
    for mail, attached in (("m2.eml", "letter.docx"), ("m5.eml", "report.pdf")):
        alone = tmp_path / f"alone-{mail}"
        (alone / "mail").mkdir(parents=True)
        shutil.copyfile(source / "mail" / mail, alone / "mail" / mail)
        indexer.run(alone, tmp_path / f"out-{mail}", config)
        path = f"mail/{mail}#att/1/{attached}"
        expected = lines_of(tmp_path / f"out-{mail}", path)
        assert len(expected) > 1 and lines_of(tmp_path / "out", path) == expected
        assert f"take {mail[1]}".encode() in expected[0]
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    shutil.copyfile(source / "bundle.zip", zipped / "bundle.zip")
    indexer.run(zipped, tmp_path / "out-zip", replace(config, workers=1, pdf_workers=1))
    for member in ("copy3/report.pdf", "docs/letter2.docx"):
        expected = lines_of(tmp_path / "out-zip", f"bundle.zip#{member}")
        assert len(expected) > 1 and lines_of(tmp_path / "out", f"bundle.zip#{member}") == expected


def test_a_container_that_holds_something_is_extracted_for_each_copy(tmp_path: Path) -> None:
    """A docx with an embedded PDF charges its objects to the budget of the mail it is
    attached to: each copy is extracted under its own, and the PDF inside them once."""
    source = tmp_path / "src"
    source.mkdir()
    for n in range(3):
        mail = message(n, EMBEDDING, "embedding.docx")
        (source / f"m{n}.eml").write_bytes(mail.as_bytes())
    log = tmp_path / "calls.log"
    indexer.run(source, tmp_path / "out", CONFIG, registry=counting_registry(log))
    counts = extractions(log)
    assert (counts["docx"], counts["pdf"]) == (3, 1)
    docs = documents(tmp_path / "out")
    inner = [p for p in docs if p.count("#") == 2]
    assert len(inner) == 3 and docs[inner[1]]["duplicate_of"] == inner[0]
    indexer.run(source, tmp_path / "plain", CONFIG)
    assert committed(tmp_path / "out") == committed(tmp_path / "plain")


def test_a_night_with_another_packing_repacks_the_copies_as_a_fresh_run(
    tmp_path: Path,
) -> None:
    """A copy's blocks are stored as its own (its path, its mail's headers): a night
    under other `[chunking]` settings re-packs them into a fresh run's bytes."""
    source = tree(tmp_path / "src")
    config = replace(CONFIG, exact="off")
    out = tmp_path / "out"
    indexer.run(source, out, config)
    other = replace(config, chunk_target=120, chunk_min=40, chunk_max=200, chunk_overlap=20)
    night = indexer.run(source, out, other)
    assert (night.extracted, night.repacked) == (0, night.reused) and night.reused > 20
    indexer.run(source, tmp_path / "fresh", other)
    assert committed(out) == committed(tmp_path / "fresh")


@pytest.mark.slow
def test_workers_and_engines_write_the_same_bytes(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    one = replace(CONFIG, workers=1, pdf_workers=1, exact="off")
    indexer.run(source, tmp_path / "one", one)
    indexer.run(source, tmp_path / "two", replace(one, workers=2, pdf_workers=2))
    indexer.run(source, tmp_path / "dask", replace(one, workers=2, engine="dask"))
    assert committed(tmp_path / "one") == committed(tmp_path / "two")
    assert committed(tmp_path / "one") == committed(tmp_path / "dask")


def test_a_copy_of_a_member_that_crashes_its_worker_gets_the_failure_as_its_own(
    tmp_path: Path,
) -> None:
    import hostile
    from zips import zip_of

    from indexer.registry import default_registry

    base = default_registry().copy()
    base.register(hostile.SEGFAULT)
    crashing = b"this parser crashes\n"
    source = tmp_path / "src"
    source.mkdir()
    members = {"a.segv": crashing, "b/a.segv": crashing, "note.txt": b"A note.\n"}
    (source / "box.zip").write_bytes(zip_of(members))
    log = tmp_path / "calls.log"
    config = replace(CONFIG, max_failures=10)
    run = indexer.run(source, tmp_path / "out", config, registry=counting_registry(log, base))
    assert extractions(log)["segv"] == 1
    docs = documents(tmp_path / "out")
    for path in ("box.zip#a.segv", "box.zip#b/a.segv"):
        assert (docs[path]["status"], docs[path]["reason"]) == ("failed", "crashed")
    assert docs["box.zip#note.txt"]["status"] == "ok" and run.failed == 2
    indexer.run(source, tmp_path / "plain", config, registry=base)
    assert committed(tmp_path / "out") == committed(tmp_path / "plain")
