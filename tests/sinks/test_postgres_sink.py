"""The `postgres` sink against a real PostgreSQL server (tests/pgserver.py): a first night
loads exactly the committed records, a night of adds, edits and deletes leaves the tables
equal to a fresh load, a re-run changes nothing, a sink killed inside its transaction is
completed by the next run, and a database that is down fails the sink, not the run."""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pgserver
import psycopg
import pytest
from outputs import committed, document_records, write_notes
from test_fts_sink import applied, night

import indexer
from indexer.cli import main
from indexer.config import Config
from indexer.errors import ConfigError
from indexer.sinks.postgres import _json

ENV = "INDEXER_TEST_PG_DSN"
MAIL = (
    "From: Ann <ann@example.com>\nTo: bob@example.com\nSubject: Quarterly figures\n"
    "Date: Fri, 04 May 2001 23:05:44 -0400\nMessage-ID: <q1@example.com>\n\n"
    "The quarterly figures for the wombat division are attached.\n"
)


def config(schema: str = "indexer", language: str = "english") -> Config:
    return Config(
        workers=1, pdf_workers=1, sinks=("postgres",), postgres_dsn_env=ENV,
        postgres_schema=schema, postgres_language=language,
    )  # fmt: skip


def source_tree(root: Path) -> Path:
    write_notes(root)
    (root / "m").mkdir()
    (root / "m" / "figures.eml").write_text(MAIL)
    return root


def first_night(tmp_path: Path, dsn: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """SOURCE and OUT after a first run into the database `dsn` (now the sink's)."""
    monkeypatch.setenv(ENV, dsn)
    source, out = source_tree(tmp_path / "src"), tmp_path / "out"
    indexer.run(source, out, config())
    return source, out


def fresh_load(source: Path, out: Path, dsn: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The tables a fresh output of `source` loads into the empty database `dsn`."""
    with monkeypatch.context() as patch:
        patch.setenv(ENV, dsn)
        indexer.run(source, out, config())
    return dump(dsn)


def dump(dsn: str, schema: str = "indexer") -> dict[str, Any]:
    """What the sink's tables hold, in key order, the tsvector as text."""
    with psycopg.connect(dsn) as db:
        docs = db.execute(
            f"SELECT doc_id, path, kind, status, date::text, digest, chunks, record"
            f" FROM {schema}.documents ORDER BY doc_id"
        ).fetchall()
        chunks = db.execute(
            f"SELECT doc_id, chunk, text, record, tsv::text FROM {schema}.chunks"
            " ORDER BY doc_id, chunk"
        ).fetchall()
        meta = dict(db.execute(f"SELECT name, value FROM {schema}.meta").fetchall())
    return {"documents": docs, "chunks": chunks, "meta": meta}


def chunk_records(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(out.glob("chunks-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]


def test_a_first_night_loads_exactly_the_committed_records(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = new_database()
    monkeypatch.setenv(ENV, dsn)
    source, out = source_tree(tmp_path / "src"), tmp_path / "out"
    summary = indexer.run(source, out, config(schema="nightly"))
    assert applied(summary.sinks["postgres"]) == ("rebuild", 121 * 2, 0)  # a doc and a chunk each
    tables = dump(dsn, "nightly")
    records = sorted(document_records(out), key=lambda r: r["doc_id"])
    assert [row[7] for row in tables["documents"]] == records, "the whole record, as jsonb"
    assert [row[:4] + row[5:7] for row in tables["documents"]] == [
        (r["doc_id"], r["path"], r["kind"], r["status"], r["digest"], r["chunks"]) for r in records
    ]
    dates = {row[1]: row[4] for row in tables["documents"]}
    assert dates["m/figures.eml"] == "2001-05-04", "the day the Date header states"
    assert dates["a/n00.txt"] is None, "a note states no day"
    chunks = sorted(chunk_records(out), key=lambda r: (r["doc_id"], r["chunk"]))
    assert [(row[0], row[1], row[2]) for row in tables["chunks"]] == [
        (r["doc_id"], r["chunk"], r["text"]) for r in chunks
    ]
    assert [row[3] for row in tables["chunks"]] == [
        {k: v for k, v in r.items() if k != "text"} for r in chunks
    ], "the rest of the chunk record, as jsonb"
    assert tables["meta"]["manifest"] == _sha256(out / "manifest.json")
    with psycopg.connect(dsn) as db:
        [(index,)] = db.execute(
            "SELECT indexdef FROM pg_indexes"
            " WHERE schemaname = 'nightly' AND indexname = 'chunks_tsv'"
        ).fetchall()
        hits = db.execute(
            "SELECT d.path FROM nightly.chunks c JOIN nightly.documents d USING (doc_id)"
            " WHERE c.tsv @@ websearch_to_tsquery('english', 'wombats divisions')"
        ).fetchall()
    assert "USING gin (tsv)" in index
    assert hits == [("m/figures.eml",)], "english stemming: wombats finds wombat"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_night_of_adds_edits_and_deletes_equals_a_fresh_load_and_a_rerun_is_idempotent(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = new_database()
    source, out = first_night(tmp_path, dsn, monkeypatch)
    night(source)
    second = indexer.run(source, out, config())
    # upserted: a1, moved.txt, new.md (a document and a chunk each); deleted: the chunks
    # of a1, b2 and c3 and the documents b2 and c3
    assert applied(second.sinks["postgres"]) == ("changes", 6, 5)
    fresh = fresh_load(source, tmp_path / "fresh", new_database(), monkeypatch)
    assert dump(dsn) == fresh
    third = indexer.run(source, out, config())
    assert third.sinks["postgres"] == "ok: current, 0 written, 0 deleted"
    with psycopg.connect(dsn) as db:  # as if the note of the night were lost
        db.execute("UPDATE indexer.meta SET value = 'lost' WHERE name = 'manifest'")
    fourth = indexer.run(source, out, config())
    assert fourth.sinks["postgres"] == "ok: rebuild, 0 written, 0 deleted", "by digest"
    assert dump(dsn) == fresh


def test_another_text_search_language_reloads_the_tables(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = new_database()
    source, out = first_night(tmp_path, dsn, monkeypatch)
    again = indexer.run(source, out, config(language="simple"))
    assert applied(again.sinks["postgres"]) == ("rebuild", 242, 0)
    tsv = {row[0]: row[4] for row in dump(dsn)["chunks"]}
    assert "'words'" in tsv[document_records(out)[0]["doc_id"]], "simple: no stemming"


KILLED = """
import os, signal, sys
import indexer.sinks.postgres as postgres
from indexer.cli import main
real = postgres._chunk_row
def killed(record):
    row = real(record)
    os.kill(os.getpid(), signal.SIGKILL)  # inside COPY, after the upserts and deletes
    return row
postgres._chunk_row = killed
sys.exit(main(sys.argv[1:]))
"""


def test_a_sink_killed_mid_night_leaves_the_tables_whole_and_the_next_run_completes_them(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = new_database()
    source, out = first_night(tmp_path, dsn, monkeypatch)
    before = dump(dsn)
    night(source)
    toml = tmp_path / "pg.toml"
    toml.write_text(f'[output]\nsinks = ["postgres"]\n[postgres]\npostgres_dsn_env = "{ENV}"\n')
    args = ["run", str(source), "--out", str(out), "--workers", "1", "--config", str(toml)]
    done = subprocess.run([sys.executable, "-c", KILLED, *args, "--quiet"], check=False)
    assert done.returncode == -9
    assert "g/new.md" in {r["path"] for r in document_records(out)}, "the run committed"
    assert dump(dsn) == before, "the killed night's transaction was rolled back whole"
    again = indexer.run(source, out, config())
    assert applied(again.sinks["postgres"]) == ("rebuild", 6, 5)
    assert dump(dsn) == fresh_load(source, tmp_path / "fresh", new_database(), monkeypatch)


def test_a_database_that_is_down_fails_the_sink_with_a_warning_and_exit_1_committed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = source_tree(tmp_path / "src")
    down = f"host=127.0.0.1 port={pgserver.free_port()} user=postgres dbname=x connect_timeout=5"
    monkeypatch.setenv("INDEXER_POSTGRES_DSN", down)
    caplog.set_level(logging.WARNING, logger="indexer")
    out = tmp_path / "out"
    assert main(["run", str(source), "--out", str(out), "--sink", "postgres", "--quiet"]) == 1
    assert "committed, but sinks failed: postgres" in capsys.readouterr().err
    [warning] = [r.getMessage() for r in caplog.records if "sink postgres failed" in r.getMessage()]
    assert warning.startswith(f"{out} is committed, but sink postgres failed: OperationalError:")
    indexer.run(source, tmp_path / "plain", Config(workers=1, pdf_workers=1))
    assert committed(out) == committed(tmp_path / "plain"), "the NDJSON is committed whole"
    monkeypatch.delenv("INDEXER_POSTGRES_DSN")
    unset = indexer.run(source, tmp_path / "unset", Config(workers=1, sinks=("postgres",)))
    assert unset.sinks["postgres"].startswith("failed: NoDsn: $INDEXER_POSTGRES_DSN is not set")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("postgres_dsn_env", "NOT-A-NAME"),
        ("postgres_schema", "Bad; DROP"),
        ("postgres_language", "english'"),
        ("postgres_schema", 7),
    ],
)
def test_postgres_settings_are_names_or_the_run_stops_before_any_work(
    key: str, value: object
) -> None:
    with pytest.raises(ConfigError, match=key):
        Config(**{key: value})  # type: ignore[arg-type]


def test_a_nul_the_database_refuses_is_stored_as_a_replacement_character() -> None:
    for text in ["a\x00b", "a\\u0000b", "a\\\x00"]:
        stored = json.loads(_json(orjson.dumps({"t": text})))
        assert stored == {"t": text.replace("\x00", "\ufffd")}


def test_two_outs_in_one_schema_wait_for_each_other_and_each_night_rebuilds_by_digest(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = new_database()
    source, out = first_night(tmp_path, dsn, monkeypatch)
    other = tmp_path / "other"
    write_notes(other)
    (other / "a" / "n00.txt").write_text("Another archive's note.\n")
    with psycopg.connect(dsn, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(hashtext('indexer'))")  # as a night would
        waiting: list[Any] = []
        thread = threading.Thread(
            target=lambda: waiting.append(indexer.run(other, tmp_path / "o", config()))
        )
        thread.start()
        _wait_for_advisory_waiter(holder)
        holder.execute("SELECT pg_advisory_unlock(hashtext('indexer'))")
        thread.join(timeout=120)
    # the tables held the first OUT's manifest: the other's night compares by digest
    # written: a/n00 and its chunk; deleted: the chunks of a/n00 and m/figures.eml, and
    # the document m/figures.eml, which the other OUT does not hold
    assert applied(waiting[0].sinks["postgres"]) == ("rebuild", 2, 3)
    assert dump(dsn) == fresh_load(other, tmp_path / "o2", new_database(), monkeypatch)
    back = indexer.run(source, out, config())
    assert applied(back.sinks["postgres"]) == ("rebuild", 4, 1)


def _wait_for_advisory_waiter(db: psycopg.Connection[Any]) -> None:
    """Return once another session waits for an advisory lock; fails after 60 s."""
    query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    for _ in range(600):
        if db.execute(query).fetchone() != (0,):
            return
        time.sleep(0.1)
    pytest.fail("no sink waited for the schema's lock")


def test_a_killed_test_process_leaves_no_server_behind(tmp_path: Path) -> None:
    """The test server is stopped by its parent's death (`setpriv --pdeathsig`): a SIGKILLed
    pytest does not leave PostgreSQL running, holding its port and folder."""
    script = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); import pgserver\n"
        "with pgserver.running() as server:\n"
        "    print(server.process.pid, flush=True); time.sleep(600)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(Path(pgserver.__file__).parent)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None
    with holder.stdout:
        pid = int(holder.stdout.readline())
    holder.kill()
    holder.wait()
    for _ in range(300):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1]
        except FileNotFoundError:
            return
        if state.startswith("Z"):
            return  # exited, its zombie awaiting the init process
        time.sleep(0.1)
    pytest.fail(f"postgres (pid {pid}) still runs 30 s after its parent was killed")
