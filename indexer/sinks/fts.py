"""The SQLite FTS5 sink: a full-text index of the chunks in `OUT/.sinks/fts.sqlite`.

Tables: `docs` (one row per document: id, path, kind, record digest, and its day,
YYYY-MM-DD or "", as `committed.document_date` reads it), `chunks` (one row
per chunk: its text), and `fts`, an FTS5 index over `chunks.text` (external content,
kept in step by triggers). `meta.manifest` is the sha256 of the manifest the index
holds. A night applies `changes.ndjson` when the index holds the manifest the changes
compare with; otherwise (a first night, a missed or killed one) it compares its `docs`
with the committed documents by digest and rewrites those that differ. Either way it
is one transaction: a kill leaves the previous night's index, and the next night
completes it; rows are written only for documents that changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from indexer.sinks.base import SINKS_DIR, Applied, Night
from indexer.sinks.committed import Doc, changes, chunks_of, documents

__all__ = ["FTS_FILE", "FtsSink", "index_path", "open_index"]

FTS_FILE = "fts.sqlite"
_SCHEMA = "2"
"""2: `docs.date`; an index of another schema is rebuilt."""
_DDL = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, kind TEXT, digest TEXT NOT NULL,
    date TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, chunk INTEGER NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS chunks_added AFTER INSERT ON chunks BEGIN
    INSERT INTO fts (rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER IF NOT EXISTS chunks_deleted AFTER DELETE ON chunks BEGIN
    INSERT INTO fts (fts, rowid, text) VALUES ('delete', old.id, old.text); END;
"""
_BATCH = 500
"""Chunk rows inserted per statement."""


def index_path(out: Path) -> Path:
    """Where the index of OUT lives."""
    return out / SINKS_DIR / FTS_FILE


def open_index(path: Path) -> sqlite3.Connection:
    """Open (or create) the index at `path`; one of another schema is started afresh.

    Raises sqlite3.Error when it cannot be opened."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    db.execute("PRAGMA journal_mode = WAL")
    row = _meta(db, "schema") if _has_meta(db) else None
    if row not in (None, _SCHEMA):
        db.close()
        path.unlink()
        return open_index(path)
    db.executescript(_DDL)
    db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (_SCHEMA,))
    return db


def _has_meta(db: sqlite3.Connection) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE name = 'meta'"
    return db.execute(query).fetchone() is not None


def _meta(db: sqlite3.Connection, name: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


class FtsSink:
    """The built-in `fts` sink (see the module doc)."""

    name = "fts"

    def apply(self, night: Night) -> Applied:
        """Bring `OUT/.sinks/fts.sqlite` up to `night`'s output; raises OSError,
        sqlite3.Error, ValueError (an unreadable generation)."""
        db = open_index(index_path(night.out))
        try:
            return _apply(db, night)
        finally:
            db.close()


def _apply(db: sqlite3.Connection, night: Night) -> Applied:
    held = _meta(db, "manifest")
    if held == night.manifest_sha256:
        return Applied(how="current")
    by_changes = held is not None and held == night.previous_sha256
    db.execute("BEGIN IMMEDIATE")
    try:
        if by_changes:
            gone, new = _from_changes(night.generation)
        else:
            gone, new = _differing(db, night.generation)
        deleted = _delete(db, gone)
        written = _insert(db, night.generation, new)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('manifest', ?)", (night.manifest_sha256,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return Applied(how="changes" if by_changes else "rebuild", written=written, deleted=deleted)


def _from_changes(generation: Path) -> tuple[set[str], list[Doc]]:
    """The documents to delete and to write, as `changes.ndjson` lists them."""
    gone = {c["doc_id"] for c in changes(generation)}
    if not gone:
        return set(), []
    new = [d for d in documents(generation) if d.doc_id in gone]
    return gone, new


def _differing(db: sqlite3.Connection, generation: Path) -> tuple[set[str], list[Doc]]:
    """The documents whose rows differ from the committed ones: to delete, to write."""
    held = dict(db.execute("SELECT doc_id, digest FROM docs").fetchall())
    new = [d for d in documents(generation) if held.pop(d.doc_id, None) != d.digest]
    return set(held) | {d.doc_id for d in new}, new


def _delete(db: sqlite3.Connection, doc_ids: Iterable[str]) -> int:
    """Delete the rows of `doc_ids`; return how many (the triggers' own not counted)."""
    rows = [(d,) for d in doc_ids]
    chunks = db.executemany("DELETE FROM chunks WHERE doc_id = ?", rows).rowcount
    return chunks + db.executemany("DELETE FROM docs WHERE doc_id = ?", rows).rowcount


def _insert(db: sqlite3.Connection, generation: Path, docs: list[Doc]) -> int:
    db.executemany(
        "INSERT INTO docs VALUES (?, ?, ?, ?, ?)",
        [(d.doc_id, d.path, d.kind, d.digest, d.date) for d in docs],
    )
    written = len(docs)
    batch: list[tuple[str, int, str]] = []
    for record in chunks_of(generation, docs):
        batch.append((record["doc_id"], record["chunk"], record["text"]))
        if len(batch) >= _BATCH:
            written += _insert_chunks(db, batch)
            batch = []
    return written + _insert_chunks(db, batch)


def _insert_chunks(db: sqlite3.Connection, batch: list[tuple[str, int, str]]) -> int:
    db.executemany("INSERT INTO chunks (doc_id, chunk, text) VALUES (?, ?, ?)", batch)
    return len(batch)
