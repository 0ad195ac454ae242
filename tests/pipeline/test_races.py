"""Files that change or vanish while a run reads them: that run's records hold together,
and the next quiet run equals a fresh one."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import anyio
import hostile
import pytest
from outputs import committed, document_records

import indexer
from indexer.config import Config
from indexer.pipeline.extract.batch import BatchExtractor
from indexer.pipeline.extract.resolving import WorkItem
from indexer.pipeline.incremental.keys import spec_for
from indexer.pipeline.incremental.state import FileRow, State
from indexer.pipeline.output.records import FileOutcome
from indexer.pipeline.walk.walker import Entry, policy_for, walk
from indexer.procpool.pool import WorkerPool
from indexer.registry import default_registry

CONFIG = Config(workers=2, pdf_workers=1, shard_files=50)

VERSIONS = [b"", b"short note\n", b"a longer note, with two paragraphs\n\nand this one\n"]
SIZES = {hashlib.sha256(v).hexdigest(): len(v) for v in [*VERSIONS, b"first version\n"]}
WRITER = f"""
import os, random, sys
root, files = sys.argv[1], int(sys.argv[2])
versions = {VERSIONS!r}
rng = random.Random(1)
while not os.path.exists(os.path.join(root, "..", "stop")):
    path = os.path.join(root, "notes", "%04d.txt" % rng.randrange(files))
    with open(path, "wb") as handle:  # in place: a reader may meet it half-written
        handle.write(rng.choice(versions))
"""


@pytest.mark.slow  # whole runs beside a rewriting process
def test_files_rewritten_during_a_run_leave_no_trace_once_the_tree_is_quiet(
    tmp_path: Path,
) -> None:
    """A background process rewrites files in place, among three contents of different
    sizes (one empty), while runs go on; each record's `bytes` is its content's size,
    and the first run after the writer stops equals a fresh run byte for byte."""
    source = tmp_path / "src"
    (source / "notes").mkdir(parents=True)
    files = 400
    for i in range(files):
        (source / "notes" / f"{i:04d}.txt").write_bytes(b"first version\n")
    out = tmp_path / "out"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(source), str(files)])
    try:
        for _ in range(3):  # the first run's workers read; the later ones read in the run
            indexer.run(source, out, CONFIG)
            for doc in document_records(out):  # the size of what was read, whenever it was read
                assert doc["bytes"] == SIZES[str(doc["sha256"])], doc
    finally:
        (tmp_path / "stop").touch()
        writer.wait(timeout=30)
    indexer.run(source, out, CONFIG)
    again = tmp_path / "fresh"
    indexer.run(source, again, CONFIG)
    assert committed(out) == committed(again)
    for doc in document_records(out):
        assert doc["bytes"] == (source / str(doc["path"])).stat().st_size


def test_a_file_deleted_between_the_walk_and_the_read_is_skipped_as_vanished(
    tmp_path: Path,
) -> None:
    """A Maildir client moves messages from new/ to cur/ at any time: the walk lists
    a message, and it is gone when its turn to be read comes. Here the file before it
    in the same batch deletes it, from the worker that reads both."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "b.txt").write_bytes(b"read too late\n")
    (source / "a.remove").write_bytes(bytes(source / "b.txt"))
    registry = default_registry().copy()
    registry.register(hostile.REMOVER)
    out = tmp_path / "out"
    summary = indexer.run(source, out, CONFIG, registry=registry)
    assert summary.failed == 0
    assert [(d["path"], d["status"], d["reason"]) for d in document_records(out)] == [
        ("a.remove", "ok", ""),
        ("b.txt", "skipped", "vanished"),
    ]


def indexed_note(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A source of one 15-byte note, its path and the OUT a run indexed it into."""
    source = tmp_path / "src"
    source.mkdir()
    note = source / "note.txt"
    note.write_bytes(b"the same words\n")
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    return source, note, out


def test_a_stored_output_whose_size_disagrees_with_the_bytes_read_is_not_reused(
    tmp_path: Path,
) -> None:
    """A state written before sizes came from the read holds outputs with the walk's
    size; a file read again (its stat changed) must not take such an output."""
    source, note, out = indexed_note(tmp_path)
    state = State(out / ".state" / "state.sqlite")
    [entry] = walk(source, policy_for(CONFIG, default_registry()))
    [known] = state.known([entry])
    assert known is not None and known.output is not None and known.key is not None
    wrong = known.output.replace(b'"bytes":15,', b'"bytes":99,')
    state.record([FileRow(entry, known.sha256, known.key, [wrong], ())])
    state.close()
    os.utime(note, ns=(1, 1))  # read again, found by its content's key
    indexer.run(source, out, CONFIG)
    assert [d["bytes"] for d in document_records(out)] == [15]


def test_a_file_that_cannot_be_read_leaves_nothing_another_path_with_its_content_could_take(
    tmp_path: Path,
) -> None:
    """A file whose stat is unchanged but whose stored output is not current (another
    option) is read again; when that read fails (gone since the walk), the failure
    says nothing of the content: a copy of the content elsewhere is extracted."""
    source, victim, out = indexed_note(tmp_path)
    changed = replace(CONFIG, max_chunk_chars=3000)  # another key for text files
    [entry] = walk(source, policy_for(changed, default_registry()))
    victim.unlink()
    outcome = anyio.run(_process, changed, entry, out / ".state" / "state.sqlite")
    assert [json.loads(d.line)["reason"] for d in outcome.docs] == ["vanished"]
    (source / "copy.txt").write_bytes(b"the same words\n")
    indexer.run(source, out, changed)
    assert [(d["path"], d["status"]) for d in document_records(out)] == [("copy.txt", "ok")]


async def _process(config: Config, entry: Entry, state_file: Path) -> FileOutcome:
    """`entry`'s outcome from the batch extractor of a run over the state in `state_file`."""
    registry = default_registry()
    state = State(state_file)
    try:
        async with WorkerPool(size=1) as general, WorkerPool(size=1) as isolated:
            batch = BatchExtractor(config, registry, (general, isolated), state)
            prepared = batch.prepare([WorkItem(0, entry, spec_for(registry, entry))])
            [outcome] = await batch.process(prepared.work)
            await batch.flush()
    finally:
        state.close()
    return outcome
