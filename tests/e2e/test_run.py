"""End-to-end runs of the local engine: accounting, determinism, isolation, hostile trees."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import hostile
import pytest
from outputs import document_records

import indexer
from indexer._corpusgen import write_corpus
from indexer.cli import main
from indexer.config import Config
from indexer.registry import default_registry

OUTPUT_FILES = ("manifest.json", "documents-00000.ndjson")


def _committed(out: Path) -> dict[str, str]:
    """Every committed file but run.json, by name, with its hash."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name != "run.json" and not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    write_corpus(root, 600_000, seed=7)
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.json").write_bytes(b"  \n ")
    (root / "bad.json").write_bytes(b'{"a": [1, 2')
    (root / ".hidden.txt").write_bytes(b"secret")
    (root / "tune.mp3").write_bytes(b"ID3\x03\x00\x00")
    return root


@pytest.fixture(scope="module")
def first_run(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out") / "w4"
    indexer.run(
        tree, out, Config(workers=4, pdf_workers=2, max_failures=10**6, shard_bytes=200_000)
    )
    return out


def test_every_walked_path_has_exactly_one_document_in_walk_order(
    tree: Path, first_run: Path
) -> None:
    docs = document_records(first_run)
    paths = [d["path"] for d in docs]
    on_disk = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    assert sorted(paths, key=lambda p: str(p).encode()) == paths
    assert set(paths) == set(on_disk)
    assert len(paths) == len(set(paths))
    by_path = {d["path"]: d for d in docs}
    assert (by_path[".hidden.txt"]["status"], by_path[".hidden.txt"]["reason"]) == (
        "skipped",
        "hidden",
    )
    assert (by_path["tune.mp3"]["status"], by_path["tune.mp3"]["reason"]) == (
        "skipped",
        "binary",
    )
    assert by_path["empty.txt"]["status"] == "empty" and by_path["empty.txt"]["chunks"] == 0
    assert by_path["blank.json"]["status"] == "empty"
    assert by_path["bad.json"]["status"] == "degraded"


def test_chunk_records_match_documents_and_keep_invariants(first_run: Path) -> None:
    manifest = json.loads((first_run / "manifest.json").read_bytes())
    docs = {d["path"]: d for d in document_records(first_run)}
    seen: dict[str, int] = {}
    for shard in manifest["shards"]:
        data = (first_run / shard["name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == shard["sha256"]
        lines = data.splitlines()
        assert len(lines) == shard["records"] and data.endswith(b"\n")
        for line in lines:
            record = json.loads(line)
            assert record["id"] == f"{record['doc_id']}:{record['chunk']}"
            assert record["text"].strip() and len(record["text"]) <= 4000
            assert record["chunk"] == seen.get(record["path"], 0)
            seen[record["path"]] = record["chunk"] + 1
            assert record["sha256"] == docs[record["path"]]["sha256"]
    assert seen == {p: d["chunks"] for p, d in docs.items() if d["chunks"]}
    assert len(manifest["shards"]) > 1, "shard_bytes=200000 should roll over"
    assert sum(s["records"] for s in manifest["shards"]) == manifest["counts"]["chunks"]


def test_output_is_byte_identical_with_one_worker(
    tree: Path, first_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "w1"
    indexer.run(
        tree, out, Config(workers=1, pdf_workers=1, max_failures=10**6, shard_bytes=200_000)
    )
    assert _committed(out) == _committed(first_run)
    assert not (out / ".staging").exists()
    report = json.loads((out / "run.json").read_bytes())
    assert report["files"] == len(document_records(out)) and report["seconds"] > 0


def test_shards_load_in_duckdb_with_the_manifest_counts(first_run: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    manifest = json.loads((first_run / "manifest.json").read_bytes())
    pattern = str(first_run / "chunks-*.ndjson")
    con = duckdb.connect()
    total = con.execute(f"select count(*) from read_json_auto('{pattern}')").fetchone()
    docs = con.execute(
        f"select count(*) from read_json_auto('{first_run / 'documents-*.ndjson'}')"
    ).fetchone()
    by_kind = dict(
        con.execute(
            f"select kind, count(*) from read_json_auto('{first_run / 'documents-*.ndjson'}') "
            "where kind != '' group by kind"
        ).fetchall()
    )
    assert total == (manifest["counts"]["chunks"],)
    assert docs == (manifest["counts"]["documents"],)
    assert by_kind == {k: v for k, v in manifest["counts"]["by_kind"].items() if k != "none"}


def test_hostile_isolated_extractors_fail_only_their_own_documents(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("a.segv", "b.hang", "c.oom"):
        (source / name).write_bytes(b"payload")
    for i in range(6):
        (source / f"note-{i}.txt").write_bytes(f"note {i}\n\nsecond".encode())
    registry = default_registry().copy()
    for spec in (hostile.SEGFAULT, hostile.HANG, hostile.BALLOON):
        registry.register(spec)
    out = tmp_path / "out"
    config = Config(workers=2, pdf_workers=2, timeout=6, max_memory_mb=400, max_failures=10)
    summary = indexer.run(source, out, config, registry=registry)
    docs = {d["path"]: d for d in document_records(out)}
    assert {p: (docs[p]["status"], docs[p]["reason"]) for p in ("a.segv", "b.hang", "c.oom")} == {
        "a.segv": ("failed", "crashed"),
        "b.hang": ("failed", "timeout"),
        "c.oom": ("failed", "out_of_memory"),
    }
    assert all(docs[f"note-{i}.txt"]["status"] == "ok" for i in range(6))
    assert summary.failed == 3
    texts = [
        json.loads(line)["text"]
        for line in (out / "chunks-00000.ndjson").read_bytes().splitlines()
        if json.loads(line)["path"] == "b.hang"
    ]
    assert texts == []  # no marker chunk in the shards: the record says why
    assert docs["b.hang"]["reason_text"].endswith("killed: timeout after 6 s.")
    # run.json reports the time a failed call had its worker, not 0.0 s
    slowest = {
        e["path"]: e["seconds"] for e in json.loads((out / "run.json").read_text())["slowest"]
    }
    assert slowest["b.hang"] >= 6 and slowest["a.segv"] > 0


def test_too_many_failures_exit_1_but_output_is_committed(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "broken.pdf").write_bytes(b"%PDF-1.4\n garbage that is no pdf at all")
    (source / "fine.txt").write_bytes(b"fine")
    out = tmp_path / "out"
    assert main(["run", str(source), "--out", str(out), "--quiet"]) == 1
    assert (out / "manifest.json").exists()
    assert main(["run", str(source), "--out", str(out), "--quiet", "--max-failures", "1"]) == 0


def test_json_summary_for_cron(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_bytes(b"alpha\n\nbeta")
    assert main(["run", str(source), "--out", str(tmp_path / "out"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    # two short paragraphs: two blocks, packed into one retrieval chunk
    assert (summary["files"], summary["chunks"], summary["by_status"]) == (1, 1, {"ok": 1})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "workers"),
        (["--timeout", "-1"], "timeout"),
        (["--pdf-engine", "magic"], "--pdf-engine"),
    ],
)
def test_bad_options_exit_2_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    assert main(["run", str(tmp_path), "--out", str(out), *args]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_out_inside_source_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "inside the source folder" in capsys.readouterr().err


def test_an_emptied_source_is_not_committed_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive whose disk did not mount is an empty folder: committing it would
    empty the index and list every document as removed."""
    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    assert main(["run", str(source), "--out", str(out), "--quiet"]) == 0  # nothing to lose
    assert "0 files into 0 documents (none)," in capsys.readouterr().out
    (source / "a.txt").write_bytes(b"alpha")
    (source / "b.txt").write_bytes(b"beta")
    assert main(["run", str(source), "--out", str(out), "--quiet"]) == 0

    def visible() -> dict[str, bytes]:  # `.lock` names its holder and the time
        return {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")}

    before = visible()
    for path in source.iterdir():
        path.unlink()
    capsys.readouterr()
    assert main(["run", str(source), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds no files" in err and "2 documents" in err and "--allow-empty" in err
    assert visible() == before
    assert main(["run", str(source), "--out", str(out), "--quiet", "--allow-empty"]) == 0
    lines = (out / "changes.ndjson").read_bytes().splitlines()
    changes = [(json.loads(line)["change"], json.loads(line)["path"]) for line in lines]
    assert changes == [("removed", "a.txt"), ("removed", "b.txt")]
    assert not list(out.glob("documents-*.ndjson"))  # no entries, no shards


def _slow_run(source: Path, out: Path) -> subprocess.Popen[bytes]:
    script = (
        "import sys; sys.path.insert(0, sys.argv[3]);"
        "import hostile, indexer;"
        "from indexer.config import Config;"
        "from indexer.registry import default_registry;"
        "r = default_registry().copy(); r.register(hostile.SLOW);"
        "indexer.run(sys.argv[1], sys.argv[2], Config(workers=1, pdf_workers=1, shard_files=5),"
        " registry=r)"
    )
    tests_dir = str(Path(__file__).parents[1])  # where hostile.py is
    return subprocess.Popen([sys.executable, "-c", script, str(source), str(out), tests_dir])


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_run_leaves_the_previous_output_intact(
    tmp_path: Path, sig: signal.Signals
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(40):
        (source / f"doc-{i:02d}.txt").write_bytes(f"version one {i}".encode())
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=1, pdf_workers=1))
    before = _committed(out)
    for i in range(40):
        (source / f"doc-{i:02d}.slow").write_bytes(f"slow {i}".encode())
    proc = _slow_run(source, out)
    deadline = time.monotonic() + 30
    while not list(out.glob(".staging/chunks-*.ndjson")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(out.glob(".staging/chunks-*.ndjson")), "the run never staged a shard"
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert _committed(out) == before
    assert not (out / ".commit.json").exists()
    indexer.run(source, out, Config(workers=2, pdf_workers=2))
    assert len(document_records(out)) == 80


def test_fifo_symlinks_and_odd_names_each_get_a_record(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"outside")
    (source / "real.txt").write_bytes(b"real text")
    os.mkfifo(source / "pipe.txt")
    os.symlink(source / "missing.txt", source / "dangling.txt")
    os.symlink(source / "loop-b.txt", source / "loop-a.txt")
    os.symlink(source / "loop-a.txt", source / "loop-b.txt")
    os.symlink(outside, source / "escape.txt")
    os.symlink(source / "real.txt", source / "alias.txt")
    os.symlink(source, source / "dirlink")
    fd = os.open(os.path.join(os.fsencode(source), b"caf\xe9.txt"), os.O_WRONLY | os.O_CREAT)
    os.write(fd, b"latin-1 name")
    os.close(fd)
    (source / "huge.txt").write_bytes(b"x" * 5000)
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=2, pdf_workers=1, max_file_bytes=4096))
    docs = {d["path"]: (d["status"], d["reason"]) for d in document_records(out)}
    assert docs.pop("real.txt") == ("ok", "")
    assert docs.pop("alias.txt") == ("ok", "")
    assert docs.pop("pipe.txt") == ("skipped", "not_regular_file")
    assert docs.pop("dangling.txt") == ("skipped", "dangling_symlink")
    assert docs.pop("loop-a.txt") == ("skipped", "symlink_loop")
    assert docs.pop("loop-b.txt") == ("skipped", "symlink_loop")
    assert docs.pop("escape.txt") == ("skipped", "symlink_outside_source")
    assert docs.pop("dirlink") == ("skipped", "directory_symlink")
    assert docs.pop("huge.txt") == ("skipped", "too_large")
    [(odd_name, odd)] = docs.items()
    assert odd == ("ok", "") and odd_name.startswith("caf") and odd_name.endswith(".txt")
