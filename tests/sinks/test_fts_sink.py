"""The `fts` sink and `indexer search`: after any night the index equals a fresh build,
a kill mid-sink is completed by the next run, a night writes only what changed, and
20 queries with known answers in ../shared/corpus find their document in the top 5
(the same run loads the whole corpus into the `postgres` sink too)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from outputs import document_records, write_notes
from sharedfiles import CORPUS, NO_CORPUS

import indexer
from indexer.cli import main
from indexer.config import Config
from indexer.sinks.fts import index_path
from indexer.sinks.search import fts_query, search

CONFIG = Config(workers=1, pdf_workers=1, sinks=("fts",))


def dump(out: Path) -> dict[str, Any]:
    """What the index holds, without its row ids; checks the FTS index against its rows."""
    db = sqlite3.connect(index_path(out))
    try:
        db.execute("INSERT INTO fts (fts) VALUES ('integrity-check')")
        docs = sorted(db.execute("SELECT doc_id, path, kind, digest FROM docs").fetchall())
        chunks = sorted(db.execute("SELECT doc_id, chunk, text FROM chunks").fetchall())
        manifest = db.execute("SELECT value FROM meta WHERE name = 'manifest'").fetchone()
    finally:
        db.close()
    return {"docs": docs, "chunks": chunks, "manifest": manifest[0] if manifest else None}


def night(source: Path) -> None:
    """Adds, changes, a deletion and a rename."""
    (source / "a" / "n01.txt").write_text("Note a1 now speaks of a quokka.\n")
    (source / "b" / "n02.txt").unlink()
    (source / "c" / "n03.txt").rename(source / "c" / "moved.txt")
    (source / "g").mkdir()
    (source / "g" / "new.md").write_text("# Fresh\n\nA wombat arrives.\n")


def fresh(source: Path, out: Path) -> dict[str, Any]:
    indexer.run(source, out, CONFIG)
    return dump(out)


def applied(outcome: str) -> tuple[str, int, int]:
    """("changes", written, deleted) from a sink outcome "ok: changes, 3 written, 2 deleted"."""
    how, written, deleted = outcome.removeprefix("ok: ").split(", ")
    return how, int(written.split()[0]), int(deleted.split()[0])


def test_after_a_night_the_index_equals_a_fresh_build_and_costs_what_changed(
    tmp_path: Path,
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    first = indexer.run(source, out, CONFIG)
    assert applied(first.sinks["fts"]) == ("rebuild", 120 + 120, 0)  # a doc row, a chunk row
    night(source)
    second = indexer.run(source, out, CONFIG)
    # written: a1, moved.txt and new.md, each one doc and one chunk; deleted: a1, b2, c3
    assert applied(second.sinks["fts"]) == ("changes", 6, 6)
    assert dump(out) == fresh(source, tmp_path / "fresh")
    [hit] = search(out, "quokka")
    assert (hit.path, hit.snippet) == ("a/n01.txt", "Note a1 now speaks of a [quokka].")
    assert search(out, "Note b2.") == [], "a deleted document is gone from the index"
    third = indexer.run(source, out, CONFIG)
    assert third.sinks["fts"] == "ok: current, 0 written, 0 deleted"


def test_a_run_killed_mid_sink_leaves_the_index_whole_and_the_next_run_completes_it(
    tmp_path: Path,
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    indexer.run(source, out, CONFIG)
    before = dump(out)
    night(source)
    # A real SIGKILL inside the sink's transaction, after its deletes and first inserts.
    script = (
        "import os, signal, sys\n"
        "import indexer.sinks.fts as fts\n"
        "from indexer.cli import main\n"
        "def killed(db, batch):\n"
        "    db.executemany('INSERT INTO chunks (doc_id, chunk, text) VALUES (?, ?, ?)', batch)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "fts._insert_chunks = killed\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    args = ["run", str(source), "--out", str(out), "--workers", "1", "--sink", "fts", "--quiet"]
    done = subprocess.run([sys.executable, "-c", script, *args], check=False)
    assert done.returncode == -9
    assert {r["path"] for r in document_records(out)} >= {"g/new.md"}, "the run committed"
    assert dump(out) == before, "the killed night left the previous index, whole"
    again = indexer.run(source, out, CONFIG)
    assert applied(again.sinks["fts"]) == ("rebuild", 6, 6)
    assert dump(out) == fresh(source, tmp_path / "fresh")


def test_search_prints_json_hits_filters_and_builds_a_missing_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "src", tmp_path / "out"
    write_notes(source)
    (source / "f" / "table.csv").write_text("animal,legs\nquokka,4\n")
    (source / "f" / "q.txt").write_text("A quokka, and another quokka.\n")
    indexer.run(source, out, Config(workers=1, pdf_workers=1))
    assert not index_path(out).exists()
    assert main(["search", str(out), "quokka", "--json", "--limit", "5"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [h["path"] for h in hits] == ["f/q.txt", "f/table.csv"], "BM25: two mentions first"
    assert set(hits[0]) == {"doc_id", "path", "chunk", "score", "snippet"}
    assert hits[0]["score"] > hits[1]["score"] and "[quokka]" in hits[0]["snippet"]
    assert main(["search", str(out), "quokka", "--json", "--kind", "csv"]) == 0
    assert [json.loads(x)["path"] for x in capsys.readouterr().out.splitlines()] == ["f/table.csv"]
    assert main(["search", str(out), "words", "--json", "--path", "a/*", "--limit", "50"]) == 0
    paths = {json.loads(x)["path"] for x in capsys.readouterr().out.splitlines()}
    assert paths == {f"a/n{i:02d}.txt" for i in range(20)}
    assert main(["search", str(out), "  "]) == 2
    assert main(["search", str(tmp_path / "nothing"), "x"]) == 2


def test_a_query_is_words_and_phrases_never_fts5_syntax() -> None:
    assert fts_query('quokka "two words" NOT a*b') == '"quokka" "two words" "NOT" "a*b"'
    assert fts_query('say "hi') == '"say" """hi"', "a stray quote is text, escaped"
    with pytest.raises(ValueError, match="no word"):
        fts_query(' "" ')


KNOWN = [
    ("Genoa Lucca Buonapartes Antichrist", "unstructured-example-docs/book-war-and-peace-1p.txt"),
    ('"Genoa and Lucca"', "unstructured-example-docs/book-war-and-peace-1p.txt"),
    ("Obama gun safety frustration presidency", "html-readability/bbc-1.html"),
    ("Cupertino Union School District Board", "pdf-pdfplumber/cupertino_usd_4-6-16.pdf"),
    ("Daring Fireball John Gruber", "html-readability/daringfireball-1.html"),
    ("Federal Register proposed rules", "pdf-pdfplumber/federal-register-2020-17221.pdf"),
    ("Astrophysicist Erika Hamden telescope stratosphere", "html-trafilatura/resources/feed.json"),
    ("message couldn't be delivered noname", "email-flanker/bounce/office365.eml"),
    ("Viertelleitfähigkeitssensor Vorgemelk", "html-trafilatura/landwirt.com.sensortechnik.html"),
    ("Laurens van der Maaten Hinton", "html-trafilatura/en.wikipedia.org.tsne.html"),
    ("Kengetallen clusters provincies", "csv-messytables/begrotingsanalyse-2011.csv"),
    ("Combined Land Ocean Temperature Anomaly", "csv-messytables/mixedGLB.csv"),
    (
        "inventory reconciliation Sarah Martinez",
        "markitdown-test-files/SPARSE-2024-INV-1234_borderless_table.pdf",
    ),
    ("Wirtualna Polska Faktura", "pdf-pdfminer/contrib/issue-625-identity-cmap.pdf"),
    ("Clutch Gearbox MCR valve", "pdf-pdfminer/contrib/issue-598-cmap-other-fonts.pdf"),
    ("Nicoletta Bernasconi POWER7", "email-spamscope-mail-parser/mail_test_10.eml"),
    (
        "Amazon SES suppression list",
        "email-nodemailer-mailparser/delivery-status.eml#att/1/part-1.bin",
    ),
    ("Izuku archvillain", "html-readability/archive-of-our-own.html"),
    (
        "Random Expo Attendee list",
        "unstructured-example-docs/eml/email-replace-mime-encodings-error-2.eml",
    ),
    ("acquisition_cost RIFLE ALLEN", "csv-csvkit/realdata/ks_1033_data.csv"),
]
"""Twenty queries, each of words read in its file (a name, a rare word, a phrase), whose
document the shared corpus holds once: each must be in the top 5."""


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
def test_queries_with_known_answers_find_their_document_in_the_top_5(
    tmp_path: Path, new_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, dsn = tmp_path / "out", new_database()
    monkeypatch.setenv("INDEXER_POSTGRES_DSN", dsn)
    summary = indexer.run(CORPUS, out, Config(sinks=("fts", "postgres")))
    assert summary.sinks["fts"].startswith("ok: rebuild")
    assert len(KNOWN) == 20
    missed = [q for q, path in KNOWN if path not in [h.path for h in search(out, q, limit=5)]]
    assert missed == []
    # The whole corpus loads into PostgreSQL too: every record, whatever its text holds.
    records = document_records(out)
    chunks = sum(r["chunks"] for r in records)
    assert summary.sinks["postgres"] == f"ok: rebuild, {len(records) + chunks} written, 0 deleted"
    with psycopg.connect(dsn) as db:
        [(documents, chunk_rows)] = db.execute(
            "SELECT (SELECT count(*) FROM indexer.documents), (SELECT count(*) FROM indexer.chunks)"
        ).fetchall()
    assert (documents, chunk_rows) == (len(records), chunks)
