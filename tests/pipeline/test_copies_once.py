"""Exact copies are extracted once in a run (`pipeline/extract/copies.py`): the same PDF
30 times is one extraction and 29 copies, whose records are the bytes a run extracting
each would write; a copy of a file that crashes its worker gets its own failed record."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from outputs import committed, document_records
from sharedfiles import CORPUS

import indexer
from indexer.config import Config
from indexer.pipeline.extract import copies

PDF = CORPUS / "markitdown-test-files" / "test.pdf"


def tree(root: Path, copies_of: int) -> Path:
    root.mkdir()
    for i in range(copies_of):
        shutil.copyfile(PDF, root / f"sent-{i:02d}.pdf")
    (root / "a-note.txt").write_text("A note of its own, not a copy of anything.\n")
    shutil.copyfile(CORPUS / "markitdown-test-files" / "test_blog.html", root / "other.html")
    return root


@pytest.mark.parametrize("workers", [1, 2])
def test_thirty_copies_of_a_pdf_are_extracted_once(tmp_path: Path, workers: int) -> None:
    if not PDF.exists():
        pytest.skip("../shared/corpus is not available")
    source = tree(tmp_path / "src", 30)
    config = Config(workers=workers, pdf_workers=workers)
    first = indexer.run(source, tmp_path / "out", config)
    assert (first.extracted, first.reused) == (3, 29)  # one PDF, the note, the page
    docs = {d["path"]: d for d in document_records(tmp_path / "out")}
    assert docs["sent-00.pdf"]["duplicate_of"] == "" and docs["sent-00.pdf"]["chunks"] > 0
    for i in range(1, 30):
        copy = docs[f"sent-{i:02d}.pdf"]
        assert (copy["status"], copy["duplicate_of"], copy["chunks"]) == ("ok", "sent-00.pdf", 0)
        assert copy["sha256"] == docs["sent-00.pdf"]["sha256"]
    again = indexer.run(source, tmp_path / "again", Config(workers=1, pdf_workers=1, full=True))
    assert committed(tmp_path / "again") == committed(tmp_path / "out")
    assert again.extracted == 3


def lines_of(out: Path, path: str) -> list[bytes]:
    """The document and chunk lines of `path` in a committed output."""
    return [
        line
        for name, data in sorted(committed(out).items())
        if name.endswith(".ndjson") and not name.startswith("changes")
        for line in data.splitlines()
        if f'"path":"{path}"'.encode() in line
    ]


def test_a_copys_records_are_those_its_own_extraction_writes(tmp_path: Path) -> None:
    if not PDF.exists():
        pytest.skip("../shared/corpus is not available")
    source = tree(tmp_path / "src", 5)
    config = Config(workers=2, pdf_workers=2, exact="off")  # each copy keeps its chunks
    run = indexer.run(source, tmp_path / "out", config)
    assert run.reused == 4
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(PDF, alone / "sent-03.pdf")
    indexer.run(alone, tmp_path / "one", config)
    expected = lines_of(tmp_path / "one", "sent-03.pdf")
    assert len(expected) > 1 and lines_of(tmp_path / "out", "sent-03.pdf") == expected


def test_copies_within_one_batch_and_across_batches_agree(tmp_path: Path) -> None:
    """Copies of small text files are found by their hash once it is known (a later
    night, where the parent reads every new file): extracted once as well."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "seed.txt").write_text("seed\n")
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=2))  # the state is not empty any more
    body = "".join(f"Line {i} of a report sent to everyone.\n" for i in range(200))
    for i in range(150):  # more than one batch of 64
        (source / f"copy-{i:03d}.txt").write_text(body)
    night = indexer.run(source, out, Config(workers=2))
    assert (night.extracted, night.reused) == (1, 149 + 1)
    fresh = indexer.run(source, tmp_path / "fresh", Config(workers=1, full=True))
    assert committed(out) == committed(tmp_path / "fresh")
    assert fresh.extracted == 151  # smaller than copies.SMALLEST: read by the workers


def test_a_copy_of_a_file_that_crashes_its_worker_gets_its_own_failed_record(
    tmp_path: Path,
) -> None:
    import hostile

    from indexer.registry import default_registry

    registry = default_registry().copy()
    registry.register(hostile.SEGFAULT)
    source = tmp_path / "src"
    source.mkdir()
    crashing = b"this parser crashes " * (copies.SMALLEST // 16)
    for name in ("a.segv", "b.segv", "c.segv"):
        (source / name).write_bytes(crashing)
    (source / "note.txt").write_bytes(b"A note.")
    out = tmp_path / "out"
    config = Config(workers=1, pdf_workers=1, max_failures=10)
    first = indexer.run(source, out, config, registry=registry)
    docs = document_records(out)
    assert [(d["path"], d["status"], d["reason"]) for d in docs] == [
        ("a.segv", "failed", "crashed"),
        ("b.segv", "failed", "crashed"),
        ("c.segv", "failed", "crashed"),
        ("note.txt", "ok", ""),
    ]
    assert first.failed == 3
    assert (first.extracted, first.reused) == (2, 2)  # one crash, the note
    before = committed(out)
    second = indexer.run(source, out, config, registry=registry)  # no crash was kept
    assert (second.failed, second.extracted, second.reused) == (3, 1, 3)
    assert committed(out) == before
