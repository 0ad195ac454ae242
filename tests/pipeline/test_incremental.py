"""Incremental runs: reuse by content, exact deltas, resume after a kill, one run per OUT."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import pytest
from outputs import committed, document_lines, document_records, documents

import indexer
from indexer._corpusgen import write_corpus
from indexer.config import Config
from indexer.pipeline.run.lock import hold
from indexer.pipeline.walk import walker
from indexer.pipeline.walk.entry import Entry
from indexer.pipeline.walk.policy import WalkPolicy
from indexer.pipeline.walk.source import LocalFolder

pytestmark = pytest.mark.slow  # whole runs, re-run after each change

SCRIPT = """
import sys
sys.path.insert(0, sys.argv[3])
import hostile, indexer
from indexer.config import Config
from indexer.registry import default_registry
registry = default_registry().copy()
registry.register(hostile.SLOW)
indexer.run(sys.argv[1], sys.argv[2], Config(workers=1, pdf_workers=1), registry=registry)
"""


def shard_inodes(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in out.glob("chunks-*.ndjson")}


def changes(out: Path) -> list[tuple[str, str]]:
    lines = (out / "changes.ndjson").read_bytes().splitlines()
    return [(json.loads(x)["change"], json.loads(x)["path"]) for x in lines]


def fresh(source: Path, tmp_path: Path, config: Config) -> dict[str, bytes]:
    out = tmp_path / f"fresh-{time.monotonic_ns()}"
    indexer.run(source, out, config)
    return committed(out)


CONFIG = Config(workers=2, pdf_workers=2, shard_files=7)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    write_corpus(root, 150_000, seed=3)
    return root


def _paths(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_rerun_equals_a_fresh_run_and_lists_exact_changes(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    assert first.extracted == first.documents and first.changes["added"] == first.documents
    files = _paths(source)
    changed, deleted, renamed, touched = files[0], files[1], files[2], files[3]
    changed.write_bytes(changed.read_bytes() + b"\n\nA new closing paragraph.\n")
    deleted.unlink()
    renamed.rename(renamed.with_name("renamed-" + renamed.name))
    os.utime(touched, ns=(time.time_ns(), time.time_ns()))
    added = source / "notes" / "added.txt"
    added.write_bytes(b"Brand new note.\n\nWith two paragraphs.")
    copied = source / "copy-of-touched" / touched.name
    copied.parent.mkdir()
    shutil.copy2(touched, copied)

    second = indexer.run(source, out, CONFIG)
    rel = lambda p: p.relative_to(source).as_posix()  # noqa: E731
    renamed_to = renamed.with_name("renamed-" + renamed.name)
    assert sorted(changes(out)) == sorted(
        [
            ("changed", rel(changed)),
            ("removed", rel(deleted)),
            ("removed", rel(renamed)),
            ("added", rel(renamed_to)),
            ("added", rel(added)),
            ("added", rel(copied)),
            # the copy sorts first in the walk: `touched` is now its duplicate (docs/dedup.md)
            ("changed", rel(touched)),
        ]
    )
    assert second.extracted == 2, "only the changed and the new file need extracting"
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_unchanged_rerun_extracts_nothing_and_full_extracts_everything(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    before, inodes = committed(out), shard_inodes(out)
    again = indexer.run(source, out, CONFIG)
    assert (again.extracted, changes(out)) == (0, [])
    assert committed(out) == before
    assert shard_inodes(out) == inodes, "unchanged shards are the old files, linked"
    full = indexer.run(source, out, Config(workers=2, pdf_workers=2, shard_files=7, full=True))
    assert full.extracted == first.documents and committed(out) == before
    assert not set(shard_inodes(out).values()) & set(inodes.values()), "--full rewrites"


def test_only_shards_from_the_first_change_on_are_rewritten(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    inodes = shard_inodes(out)
    last = max(_paths(source), key=lambda p: p.relative_to(source).as_posix().encode())
    last.write_bytes(last.read_bytes() + b"\n\nA late addition.\n")
    indexer.run(source, out, CONFIG)
    assert committed(out) == fresh(source, tmp_path, CONFIG)
    same = [shard_inodes(out)[name] == inodes[name] for name in sorted(inodes)]
    assert len(same) > 2 and same == [True] * (len(same) - 1) + [False]


def test_changing_rows_per_chunk_re_extracts_only_csv_files(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    config = Config(workers=2, pdf_workers=2, shard_files=7, rows_per_chunk=5)
    rerun = indexer.run(source, out, config)
    csvs = sum(1 for p in _paths(source) if p.suffix == ".csv")
    assert csvs and rerun.extracted == csvs
    assert {c for c, _ in changes(out)} == {"changed"}
    assert committed(out) == fresh(source, tmp_path, config)


@pytest.mark.slow
def test_a_killed_run_resumes_without_redoing_finished_work(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(30):
        (source / f"doc-{i:02d}.slow").write_bytes(f"slow document {i}".encode())
    out = tmp_path / "out"
    tests_dir = str(Path(__file__).parents[1])  # where hostile.py is
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(source), str(out), tests_dir])
    time.sleep(0.5)
    deadline = time.monotonic() + 30
    # The run holds its state exclusively: its stored outputs show its progress.
    while time.monotonic() < deadline and not _stored_bytes(out):
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not (out / "manifest.json").exists(), "nothing was ever committed"
    done_before = _cached_results(out)
    assert 0 < done_before < 30
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(source), str(out), tests_dir], timeout=120, check=True
    )
    report = json.loads((out / "run.json").read_bytes())
    assert report["extracted"] <= 30 - done_before + 2  # at most the in-flight ones redone
    assert report["documents"] == 30


STORED = "select count(*) from files where spool is not null"


def _stored_bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in (out / ".state").glob("outputs/*.out"))


def _cached_results(out: Path) -> int:
    import sqlite3

    path = out / ".state" / "state.sqlite"
    if not path.exists():
        return 0
    try:
        with closing(sqlite3.connect(path, timeout=1)) as db:
            return int(db.execute(STORED).fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_second_concurrent_run_exits_75_naming_the_holder(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_bytes(b"a")
    out = tmp_path / "out"
    with hold(out):
        proc = subprocess.run(
            [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 75
    assert f"pid {os.getpid()}" in proc.stderr
    rerun = subprocess.run(
        [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--quiet"],
        capture_output=True,
        timeout=60,
    )
    assert rerun.returncode == 0


def _state_without_wal(out: Path) -> Path:
    """The state file of `out`, its WAL removed (a closed run checkpointed it)."""
    state = out / ".state" / "state.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(str(state) + suffix).unlink(missing_ok=True)
    return state


def _damage_pages(state: Path, keep: set[int]) -> None:
    """Overwrite the header of every page of `state` (numbered from 1) not in `keep`."""
    with open(state, "r+b") as handle:
        handle.seek(16)
        size = int.from_bytes(handle.read(2), "big")
        size = 65536 if size == 1 else size  # how SQLite writes a 64 KiB page size
        for page in range(1, state.stat().st_size // size + 1):
            if page not in keep:
                handle.seek((page - 1) * size)
                handle.write(b"\xff" * 16)


def test_a_corrupt_state_file_means_a_full_rebuild(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    before = committed(out)
    state = _state_without_wal(out)
    state.write_bytes(b"this is not a database" * 100)
    rerun = indexer.run(source, out, CONFIG)
    assert rerun.extracted == first.documents
    assert committed(out) == before
    assert (out / ".state" / "state.sqlite.corrupt").exists()


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def test_a_write_failure_exits_3_and_keeps_the_old_output(tmp_path: Path) -> None:
    source = tmp_path / "src"
    write_corpus(source, 100_000, seed=1)
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    before = committed(out)
    write_corpus(source / "more", 600_000, seed=2)
    proc = subprocess.run(
        [sys.executable, "-m", "indexer", "run", str(source), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit_file_size,
    )
    assert proc.returncode == 3, proc.stderr
    assert re.search(r"File too large|cannot write \S+state\.sqlite", proc.stderr), proc.stderr
    assert "the previous output" in proc.stderr
    assert committed(out) == before


def test_a_rename_to_another_extension_re_extracts(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    records = b'{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n'
    (source / "records.json").write_bytes(records)
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    (source / "records.json").rename(source / "records.jsonl")
    again = indexer.run(source, out, CONFIG)
    assert again.extracted == 1, ".json and .jsonl are read differently"
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_a_crash_is_recorded_alike_whether_the_worker_or_the_run_read_the_file(
    tmp_path: Path,
) -> None:
    import hostile

    from indexer.registry import default_registry

    registry = default_registry().copy()
    registry.register(hostile.SEGFAULT)
    source = tmp_path / "src"
    source.mkdir()
    (source / "bad.segv").write_bytes(b"this parser crashes")
    (source / "note.txt").write_bytes(b"A note.")
    out = tmp_path / "out"
    config = Config(workers=1, pdf_workers=1, max_failures=10)
    first = indexer.run(source, out, config, registry=registry)  # nothing stored: workers read
    before = committed(out)
    second = indexer.run(source, out, config, registry=registry)  # the crash was not stored
    assert (first.failed, second.failed, second.extracted) == (1, 1, 1)
    assert committed(out) == before
    docs = document_records(out)
    assert [(d["path"], d["reason"], bool(d["sha256"])) for d in docs] == [
        ("bad.segv", "crashed", True),
        ("note.txt", "", True),
    ]
    # The tree did not change, but a crash is tried again: never re-committed as is.
    assert _report(out)["unchanged"] is False
    (source / "bad.segv").unlink()
    indexer.run(source, out, config, registry=registry)
    again = indexer.run(source, out, config, registry=registry)
    assert (_report(out)["unchanged"], again.extracted) == (True, 0)


def test_a_failure_of_the_isolation_limits_is_retried_once_then_kept(tmp_path: Path) -> None:
    """A crash is tried again by the next run, as a fresh run would (it may have been the
    machine's fault). The same failure twice is kept, and the tree passes for unchanged
    again, until the limits change."""
    import hostile

    from indexer.registry import default_registry

    registry = default_registry().copy()
    registry.register(hostile.SEGFAULT)
    registry.register(hostile.FLAKY)
    source = tmp_path / "src"
    source.mkdir()
    marker = tmp_path / "machine-is-loaded"
    marker.write_bytes(b"")
    (source / "bad.segv").write_bytes(b"always crashes")
    (source / "once.flaky").write_bytes(str(marker).encode())
    (source / "note.txt").write_bytes(b"A note.")
    out = tmp_path / "out"
    config = Config(workers=1, pdf_workers=1, max_failures=10)

    def statuses() -> dict[str, tuple[str, str | None]]:
        lines = document_lines(out)
        return {d["path"]: (d["status"], d["reason"]) for d in map(json.loads, lines)}

    first = indexer.run(source, out, config, registry=registry)
    assert first.failed == 2 and statuses()["once.flaky"] == ("failed", "crashed")
    marker.unlink()  # the machine is fine tonight
    second = indexer.run(source, out, config, registry=registry)
    assert (second.extracted, _report(out)["unchanged"]) == (2, False), "both tried again"
    assert statuses()["once.flaky"] == ("ok", "")
    assert statuses()["bad.segv"] == ("failed", "crashed")
    kept = committed(out)
    third = indexer.run(source, out, config, registry=registry)  # the same crash twice: kept
    assert (third.extracted, _report(out)["unchanged"]) == (0, True)
    assert committed(out) == kept
    longer = Config(workers=1, pdf_workers=1, max_failures=10, timeout=60)
    fourth = indexer.run(source, out, longer, registry=registry)  # other limits: tried again
    assert fourth.extracted == 2 and statuses()["bad.segv"] == ("failed", "crashed")


def _report(out: Path) -> dict[str, object]:
    report: dict[str, object] = json.loads((out / "run.json").read_bytes())
    return report


@pytest.mark.parametrize("change", ["none", "touch", "binary_grows", "rows_per_chunk", "ahead"])
def test_an_unchanged_tree_re_commits_the_previous_output_and_nothing_else_does(
    source: Path, tmp_path: Path, change: str
) -> None:
    import sqlite3

    (source / "tune.mp3").write_bytes(b"ID3\x03" + bytes(100))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    assert _report(out)["unchanged"] is False, "a first run"
    config = CONFIG
    text = next(p for p in _paths(source) if p.suffix == ".txt")
    if change == "touch":
        os.utime(text, ns=(time.time_ns(), time.time_ns()))
    elif change == "binary_grows":
        with open(source / "tune.mp3", "ab") as handle:
            handle.write(b"more")
    elif change == "rows_per_chunk":
        config = Config(workers=2, pdf_workers=2, shard_files=7, rows_per_chunk=5)
    elif change == "ahead":  # a killed run stored outputs the commit does not hold: the
        # walk is still the one the committed output was made of, which is all that counts
        with closing(sqlite3.connect(out / ".state" / "state.sqlite")) as db, db:
            db.execute("UPDATE files SET run = run + 5 WHERE path = ?", (text.name,))
            db.execute("UPDATE files SET run = run + 5 WHERE path LIKE ?", ("%/" + text.name,))
    before, inodes = committed(out), shard_inodes(out)
    again = indexer.run(source, out, config)
    assert _report(out)["unchanged"] is (change in ("none", "ahead"))
    assert committed(out) == fresh(source, tmp_path, config)
    if change in ("none", "touch", "ahead"):
        assert committed(out) == before and changes(out) == []
        assert (again.extracted, again.reused) == (0, again.documents - 1)  # the mp3
    if change == "none":
        assert shard_inodes(out) == inodes
        pages = _report(out)["pages"]
        with closing(sqlite3.connect(out / ".state" / "state.sqlite")) as db, db:  # full path
            db.execute("DELETE FROM meta WHERE name = 'committed'")
        normal = indexer.run(source, out, config)
        assert (_report(out)["unchanged"], _report(out)["pages"]) == (False, pages)
        assert again.to_dict() | {"seconds": 0} == normal.to_dict() | {"seconds": 0}


def test_a_walk_noted_for_an_older_commit_never_re_commits_a_newer_output(
    source: Path, tmp_path: Path
) -> None:
    """A run killed between its commit and the state's note of it leaves the note of
    the commit before. A tree put back as that older walk saw it must not then pass
    for unchanged: the output in OUT is the newer one."""
    import sqlite3

    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    state = out / ".state" / "state.sqlite"
    with closing(sqlite3.connect(state)) as db:
        (older,) = db.execute("SELECT value FROM meta WHERE name = 'committed'").fetchone()
    text = next(p for p in _paths(source) if p.suffix == ".txt")
    original, before = text.read_bytes(), text.stat()
    with open(text, "r+b") as handle:  # same size, same inode: only the content and mtime
        handle.write(original[:1].swapcase() if original[:1].isalpha() else b"#")
    indexer.run(source, out, CONFIG)
    assert changes(out) == [("changed", text.relative_to(source).as_posix())]
    with closing(sqlite3.connect(state)) as db, db:  # as if the note never happened
        db.execute("UPDATE meta SET value = ? WHERE name = 'committed'", (older,))
    with open(text, "r+b") as handle:
        handle.write(original[:1])
    os.utime(text, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = text.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino,
    )  # fmt: skip
    indexer.run(source, out, CONFIG)
    assert _report(out)["unchanged"] is False
    assert changes(out) == [("changed", text.relative_to(source).as_posix())]
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_previous_documents_are_read_by_path_whatever_the_name(tmp_path: Path) -> None:
    from indexer.pipeline.output.prevdocs import fingerprint, load_previous

    names = ["a.txt", 'quote"and\\slash.txt', "café/☃.eml", "x\\u0041", "box.mbox#3", "\x01"]
    compact = {"separators": (",", ":"), "ensure_ascii": False}  # as the run writes them
    lines = [json.dumps({"path": n, "meta": {"path": "no"}}, **compact) for n in names]
    lines.append(json.dumps({"doc_id": "d", "path": "key-order.txt"}))  # not path-first
    data = "".join(line + "\n" for line in lines).encode()
    (tmp_path / "documents-00000.ndjson").write_bytes(data)
    entry = {"name": "documents-00000.ndjson", "records": len(lines), "bytes": len(data)}
    entry["sha256"] = hashlib.sha256(data).hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps({"documents": [entry]}))
    previous = load_previous(tmp_path)
    assert list(previous.left()) == [*names, "key-order.txt"]
    assert previous.take(["café/☃.eml"]) == {"café/☃.eml": fingerprint((lines[2] + "\n").encode())}
    assert "café/☃.eml" not in list(previous.left())  # taken: no longer left


def test_the_state_forgets_deleted_files_and_keeps_the_rest(source: Path, tmp_path: Path) -> None:
    import sqlite3

    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    files = _paths(source)
    gone = files[len(files) // 2]
    gone.unlink()
    indexer.run(source, out, CONFIG)
    with closing(sqlite3.connect(out / ".state" / "state.sqlite")) as db:
        query = "SELECT path FROM files WHERE spool IS NOT NULL"
        stored = {path for (path,) in db.execute(query)}
    rels = [p.relative_to(source).as_posix() for p in files]
    assert gone.relative_to(source).as_posix() not in stored
    assert set(stored) == {rel for rel in rels if rel != gone.relative_to(source).as_posix()}


def _outputs(out: Path) -> list[str]:
    """The runs whose outputs files `out`'s state holds (`<run>-<pid>.out`, one a process)."""
    names = sorted(p.name for p in (out / ".state" / "outputs").iterdir())
    return [re.fullmatch(r"(\d+)-\d+\.out", name)[1] for name in names]  # type: ignore[index]


def test_a_damaged_stored_output_is_extracted_again_and_only_it(
    source: Path, tmp_path: Path
) -> None:
    import sqlite3

    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    with closing(sqlite3.connect(out / ".state" / "state.sqlite")) as db:
        [(damaged, spool)] = db.execute("SELECT path, spool FROM files WHERE at = 0").fetchall()
    with open(out / ".state" / "outputs" / f"{spool}.out", "r+b") as handle:  # its first output
        handle.write(b"\x00" * 8)
    for path in _paths(source):  # every file looks changed: each is found by its hash
        os.utime(path, ns=(time.time_ns(), time.time_ns()))
    rerun = indexer.run(source, out, CONFIG)
    docs = [d["path"] for d in map(json.loads, document_lines(out))]
    redone = sum(p == damaged or p.startswith(damaged + "#") for p in docs)
    assert (rerun.extracted, rerun.reused) == (redone, first.documents - redone)
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_outputs_no_row_uses_are_deleted_and_mostly_dead_ones_compacted(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from indexer.pipeline.incremental import state

    monkeypatch.setattr(state, "_COMPACT_BYTES", 0)
    out = tmp_path / "out"
    # One chunk per paragraph, so the edited two thirds hold more than half the bytes.
    config = replace(CONFIG, chunking="blocks")
    first = indexer.run(source, out, config)
    assert _outputs(out) == ["1"]
    files = _paths(source)
    for path in files[: len(files) * 2 // 3]:  # two thirds of run 1's outputs die
        path.write_bytes(path.read_bytes() + b"\n\nA new last paragraph.\n")
    indexer.run(source, out, config)
    assert _outputs(out) == ["2"]  # run 1's live third moved into run 2's file
    with closing(sqlite3.connect(out / ".state" / "state.sqlite")) as db:
        spools = db.execute("SELECT DISTINCT spool FROM files").fetchall()
    assert spools == [(f"2-{os.getpid()}",)]
    for path in files:  # read back from where compaction put them
        os.utime(path, ns=(time.time_ns(), time.time_ns()))
    third = indexer.run(source, out, config)
    assert (third.extracted, third.reused) == (0, first.documents)
    for path in files:
        path.unlink()
    indexer.run(source, out, config)
    assert _outputs(out) == []  # no row uses any output any more


def test_a_damaged_state_page_means_a_rebuild_and_one_short_warning(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    before = committed(out)
    _damage_pages(_state_without_wal(out), keep={1})  # every page but the schema's
    rerun = indexer.run(source, out, CONFIG)
    assert rerun.extracted == first.documents
    assert committed(out) == before
    [warning] = [r.getMessage() for r in caplog.records if "unusable" in r.getMessage()]
    assert "\n" not in warning and len(warning) < 600  # one line in a cron mail


@dataclass(frozen=True)
class _CountingFolder:
    """The local folder, counting the entries each walk yielded."""

    root: Path
    walks: list[int]
    local: bool = True

    def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
        self.walks.append(0)
        return self._counted(LocalFolder(self.root).walk(policy), len(self.walks) - 1)

    def _counted(self, walked: Iterator[Entry], walk: int) -> Iterator[Entry]:
        for entry in walked:
            self.walks[walk] += 1
            yield entry

    def open(self, entry: Entry) -> BinaryIO:
        return LocalFolder(self.root).open(entry)


@pytest.mark.parametrize("keep", [100_000, 3])
def test_a_change_late_in_the_walk_goes_on_from_the_check_without_walking_again(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: int
) -> None:
    """The unchanged-tree check reads the walk up to the first difference; the run
    goes on with what it read, those entries past what it keeps in memory replayed
    from a spill file: the tree is walked once either way."""
    from indexer.pipeline.run import unchanged

    monkeypatch.setattr(unchanged, "_KEEP", keep)
    from indexer.pipeline.incremental import tree

    for module in (unchanged, tree):  # batches of 2: all but the first two past `keep` spilled
        monkeypatch.setattr(module, "BATCH", 2)
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    last = _paths(source)[-1]
    last.write_bytes(last.read_bytes() + b"\n\nOne more paragraph at the end of the walk.\n")
    counting = _CountingFolder(source, [])
    second = indexer.run(counting, out, CONFIG)
    entries = max(counting.walks)
    assert entries > 3 * 2 and sorted(counting.walks)[:-1] == [1]  # and one look for any entry
    assert changes(out) == [("changed", last.relative_to(source).as_posix())]
    assert second.extracted == 1
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_a_damaged_page_met_mid_run_starts_the_run_over_on_a_new_state(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The state is not checked whole when opened (that reads every byte, every run):
    a damaged page is met by the first query that reads it, and the run starts over."""
    import sqlite3

    out = tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    before = committed(out)
    state = _state_without_wal(out)
    db = sqlite3.connect(state)  # every page but the schema's and the meta table's
    meta = {r for (r,) in db.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'meta'")}
    db.close()
    _damage_pages(state, keep={1} | meta)
    text = next(p for p in _paths(source) if p.suffix == ".txt")
    os.utime(text, ns=(time.time_ns(), time.time_ns()))  # else only `meta` is read
    rerun = indexer.run(source, out, CONFIG)
    assert rerun.extracted == first.documents
    assert committed(out) == before
    [warning] = [r.getMessage() for r in caplog.records if "unusable" in r.getMessage()]
    assert "malformed" in warning and "\n" not in warning
    assert (out / ".state" / "state.sqlite.corrupt").exists()
    again = indexer.run(source, out, CONFIG)  # the new state serves the next run
    assert again.extracted == 0


def test_an_unchanged_rerun_keeps_every_stored_output_for_the_next_run(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    assert indexer.run(source, out, CONFIG).extracted == 0
    assert _report(out)["unchanged"] is True
    note = next(p for p in _paths(source) if p.suffix == ".txt")
    note.write_bytes(note.read_bytes() + b"\n\nEdited after an unchanged re-run.\n")
    third = indexer.run(source, out, CONFIG)
    assert third.extracted == 1
    assert committed(out) == fresh(source, tmp_path, CONFIG)


def test_a_file_skipped_once_and_readable_again_is_extracted_as_a_fresh_run_would(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unreadable for a night (chmod does not change mtime), then readable again: its
    output from before the skip must not pass for current (as root every file reads,
    so the walk's readability check is made to answer no for that one file)."""
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    text = next(p for p in _paths(source) if p.suffix == ".csv")  # claimed: no sniff
    real_readable, target = walker._readable, os.fsencode(text.resolve())

    def readable(path: bytes, st: os.stat_result) -> bool:
        return path != target and real_readable(path, st)

    with monkeypatch.context() as patch:
        patch.setattr(walker, "_readable", readable)
        indexer.run(source, out, CONFIG)
    rel = text.relative_to(source).as_posix()
    docs = documents(out)
    assert (docs[rel]["status"], docs[rel]["reason"]) == ("failed", "unreadable")
    again = indexer.run(source, out, CONFIG)
    assert _report(out)["unchanged"] is False
    assert committed(out) == fresh(source, tmp_path, CONFIG)
    assert again.extracted == 1


def _mutate(rng: random.Random, source: Path, step: int) -> set[str]:
    """Apply one to three random changes to the tree; return their kinds."""
    done: set[str] = set()
    for _ in range(rng.randint(1, 3)):
        files = _paths(source)
        victim = rng.choice(files)
        kind = rng.choice(["none", "touch", "append", "delete", "add", "rename", "copy", "mkdir"])
        if kind == "touch":
            os.utime(victim, ns=(time.time_ns(), victim.stat().st_mtime_ns + 1_000_000_000))
        elif kind == "append":
            with open(victim, "ab") as handle:
                handle.write(f"\n\nAdded in step {step}.\n".encode())
        elif kind == "delete" and len(files) > 3:
            victim.unlink()
        elif kind in ("add", "copy"):
            folder = victim.parent if kind == "copy" else source
            (folder / f"new-{step}-{len(done)}{victim.suffix}").write_bytes(victim.read_bytes())
        elif kind == "rename":
            victim.rename(victim.with_name(f"renamed-{step}-{victim.name}"))
        elif kind == "mkdir":
            (source / f"empty-{step}-{len(done)}").mkdir(exist_ok=True)
        done.add(kind)
    return done


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_changes_night_after_night_equal_a_fresh_run_each_time(
    tmp_path: Path, seed: int
) -> None:
    """Seeded random edits between runs (touch, append, delete, add, copy, rename, an
    empty folder, nothing): after each run the output equals a fresh run's, and the
    run re-commits the previous output as is exactly when no file changed."""
    rng = random.Random(seed)
    source = tmp_path / "src"
    write_corpus(source, 60_000, seed=seed)
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    for step in range(8):
        kinds = _mutate(rng, source, step)
        indexer.run(source, out, CONFIG)
        same_files = kinds <= {"none", "mkdir"}
        assert _report(out)["unchanged"] is same_files, (step, kinds)
        assert committed(out) == fresh(source, tmp_path, CONFIG), (step, kinds)
