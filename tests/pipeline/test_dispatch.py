"""The dispatcher: isolated work is found and sent beyond the reorder window, within a budget."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import anyio
import pytest

from indexer._corpusgen import MAKERS
from indexer.config import Config
from indexer.pipeline.engines.context import RunContext
from indexer.pipeline.engines.local import stage
from indexer.pipeline.engines.window import EARLY_BYTES, Window
from indexer.pipeline.output.records import FileOutcome, Rendered
from indexer.pipeline.walk.source import LocalFolder
from indexer.registry import default_registry

_PDF = next(make for _, ext, make in MAKERS if ext == "pdf")


@pytest.fixture(scope="module")
def texts_then_pdfs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 text files, then 3 PDFs: in walk order the PDFs come far beyond a small window."""
    root = tmp_path_factory.mktemp("late-pdfs")
    for i in range(300):
        (root / f"a-{i:03d}.txt").write_text(f"paragraph {i}\n\nand another one\n")
    rng = random.Random(5)
    for i in range(3):
        (root / f"z-{i}.pdf").write_bytes(_PDF(rng, i))
    return root


def _run(src: Path, staging: Path, window: int) -> tuple[list[tuple[str, Any]], dict[str, str]]:
    """Stage a run of `src`; return its progress events and its staged files' hashes."""
    events: list[tuple[str, Any]] = []
    staging.mkdir()
    config = Config(workers=1, pdf_workers=1, window=window, batch_files=4)
    ctx = RunContext(
        source=LocalFolder(src), staging=staging, config=config, registry=default_registry(),
        on_progress=_note(events),
    )  # fmt: skip
    anyio.run(stage, ctx)
    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(staging.iterdir())}
    return events, files


def _note(events: list[tuple[str, Any]]) -> Any:
    def note(event: str, value: Any) -> None:
        if event == "started":
            events.append((event, list(value)))
        elif event == "done":
            events.append((event, [doc.path for doc in value.docs]))

    return note


def test_pdfs_beyond_the_window_start_before_the_texts_are_written(
    texts_then_pdfs: Path, tmp_path: Path
) -> None:
    events, files = _run(texts_then_pdfs, tmp_path / "small", window=8)
    at = list(enumerate(events))
    first_pdf = next(i for i, (e, rels) in at if e == "started" and "z-0.pdf" in rels)
    texts_done = [i for i, (e, rels) in at if e == "done" and rels[0].endswith(".txt")]
    assert len(texts_done) == 300
    # The PDFs sit 300 entries beyond a window of 8, yet went to their pool at once.
    assert first_pdf < texts_done[0]
    # The output is what a window that holds the whole tree gives.
    _, wide = _run(texts_then_pdfs, tmp_path / "wide", window=4096)
    assert files == wide


def _outcome(seq: int, size: int) -> FileOutcome:
    doc = Rendered(
        path="p", doc_id="d", block=b"x" * size, count=1, digest="g", line=b"{}\n",
        status="ok", kind="pdf",
    )  # fmt: skip
    return FileOutcome(seq=seq, docs=(doc,))


def test_the_early_budget_counts_entries_and_waiting_bytes() -> None:
    async def main() -> None:
        window = Window(2, first_seq=0)
        assert window.early_room()
        window.sent_early(5)
        window.sent_early(6)
        assert not window.early_room()  # as many early entries as the window has slots
        for seq in range(5):
            assert window.admit_nowait()
            window.wrote(seq)
        assert window.admit_nowait()
        window.arrived(_outcome(5, 10))
        window.wrote(5)
        assert window.early_room()
        window.sent_early(7)
        window.arrived(_outcome(6, EARLY_BYTES))  # one large finished outcome waits
        assert not window.early_room()
        assert window.admit_nowait()
        window.wrote(6)
        assert window.early_room()
        assert window.written == 7

    anyio.run(main)
