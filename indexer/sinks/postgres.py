"""The PostgreSQL sink: the committed documents and chunks as tables of a database.

In the schema `[postgres] postgres_schema` (default `indexer`; created if missing):
`documents` (one row per document record, the whole record as `jsonb`), `chunks` (one
row per chunk: its text, the rest of its record as `jsonb`, and `tsv`, a generated
`tsvector` of the text with a GIN index) and `meta` (the schema stamp and the sha256
of the manifest the tables hold). docs/sinks.md gives the columns.

A night is one transaction, under a transaction-scoped advisory lock on the schema's
name (two OUTs pointed at one schema wait for each other rather than interleave). When
`meta` holds the manifest `changes.ndjson` compares with, the changed and added
documents are upserted and their chunks replaced, the removed ones deleted; otherwise
(a first night, a missed, failed or killed one, another OUT's tables) the tables are
compared with the committed records by digest and the differing documents rewritten.
A kill, or a server that goes away, rolls the transaction back: the tables stay those
of the previous night, which the next night completes. The connection string comes from
the environment variable `[postgres] postgres_dsn_env` names, never from the config.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import TupleRow

from indexer.sinks.base import Applied, Night, SinkOptions
from indexer.sinks.committed import Doc, changes, chunks_of, document_lines

__all__ = ["STAMP", "NoDsn", "PostgresSink", "connect"]

Db = psycopg.Connection[TupleRow]

STAMP = "1"
"""The tables' layout; tables of another (or of another text search configuration)
are dropped and loaded afresh."""
_BATCH = 500
"""Document rows upserted per round trip."""
_DDL = """
CREATE TABLE IF NOT EXISTS {s}.meta (name text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS {s}.documents (
    doc_id text PRIMARY KEY, path text NOT NULL, kind text, status text NOT NULL,
    date date, digest text NOT NULL, chunks integer NOT NULL, record jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS documents_path ON {s}.documents (path);
CREATE TABLE IF NOT EXISTS {s}.chunks (
    doc_id text NOT NULL REFERENCES {s}.documents ON DELETE CASCADE,
    chunk integer NOT NULL, text text NOT NULL, record jsonb NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector({language}::regconfig, text)) STORED,
    PRIMARY KEY (doc_id, chunk));
CREATE INDEX IF NOT EXISTS chunks_tsv ON {s}.chunks USING gin (tsv);
"""
_UPSERT = """
INSERT INTO {s}.documents AS d VALUES (%s, %s, %s, %s, %s::date, %s, %s, %s::jsonb)
ON CONFLICT (doc_id) DO UPDATE SET path = excluded.path, kind = excluded.kind,
    status = excluded.status, date = excluded.date, digest = excluded.digest,
    chunks = excluded.chunks, record = excluded.record
"""


class NoDsn(RuntimeError):
    """The environment variable that should hold the connection string is unset."""


def connect(options: SinkOptions) -> Db:
    """A connection to the database the environment names (10 s to connect unless the
    string says otherwise); raises NoDsn, psycopg.OperationalError (a server down)."""
    dsn = os.environ.get(options.postgres_dsn_env, "").strip()
    if not dsn:
        raise NoDsn(
            f"${options.postgres_dsn_env} is not set: export it as a libpq connection "
            "string (postgresql://user@host/dbname; the password in ~/.pgpass or PGPASSWORD)"
        )
    extra = {} if "connect_timeout" in conninfo_to_dict(dsn) else {"connect_timeout": 10}
    return psycopg.connect(make_conninfo(dsn, application_name="indexer", **extra))


class PostgresSink:
    """The built-in `postgres` sink (see the module doc)."""

    name = "postgres"

    def __init__(self, options: SinkOptions) -> None:
        self.options = options

    def apply(self, night: Night) -> Applied:
        """Bring the schema's tables up to `night`'s output in one transaction; return
        what it did. Raises NoDsn, psycopg.Error, OSError and ValueError (an unreadable
        generation); the tables are then those of the previous night."""
        schema = sql.Identifier(self.options.postgres_schema)
        with connect(self.options) as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [self.options.postgres_schema])
            _prepare(db, schema, self.options.postgres_language)
            held = _held(db, schema, "manifest")
            if held == night.manifest_sha256:
                return Applied(how="current")
            by_changes = held is not None and held == night.previous_sha256
            written, deleted = _load(db, schema, night.generation, by_changes)
            _note(db, schema, "manifest", night.manifest_sha256)
        return Applied(how="changes" if by_changes else "rebuild", written=written, deleted=deleted)


def _q(text: str, schema: sql.Identifier) -> sql.Composed:
    """`text` with `{s}` as the schema's quoted name."""
    return sql.SQL(text).format(s=schema)


def _held(db: Db, schema: sql.Identifier, name: str) -> str | None:
    """The value `meta` holds under `name`; None without one."""
    row = db.execute(_q("SELECT value FROM {s}.meta WHERE name = %s", schema), [name]).fetchone()
    return None if row is None else str(row[0])


def _note(db: Db, schema: sql.Identifier, name: str, value: str) -> None:
    """Set `meta`'s `name` to `value`."""
    upsert = "INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT (name) DO UPDATE SET value = %s"
    db.execute(_q(upsert, schema), [name, value, value])


def _prepare(db: Db, schema: sql.Identifier, language: str) -> None:
    """Create the schema and its tables where missing; drop tables of another stamp."""
    db.execute(_q("CREATE SCHEMA IF NOT EXISTS {s}", schema))
    stamp = f"{STAMP} {language}"
    [meta] = db.execute("SELECT to_regclass(%s)", [f"{schema.as_string(db)}.meta"]).fetchall()
    if meta[0] is not None and _held(db, schema, "stamp") != stamp:
        db.execute(_q("DROP TABLE IF EXISTS {s}.chunks, {s}.documents, {s}.meta", schema))
    db.execute(sql.SQL(_DDL).format(s=schema, language=sql.Literal(language)))
    _note(db, schema, "stamp", stamp)


def _load(db: Db, schema: sql.Identifier, generation: Path, by_changes: bool) -> tuple[int, int]:
    """Write the documents that differ from the tables, delete those gone; return the
    rows written and deleted. `by_changes`: the tables hold the manifest the
    generation's changes.ndjson compares with, so only the documents it names differ."""
    if by_changes:
        named = {c["doc_id"] for c in changes(generation)}
        candidates, differs = named, lambda d: d.doc_id in named
    else:
        held: dict[str, str] = dict(
            db.execute(_q("SELECT doc_id, digest FROM {s}.documents", schema)).fetchall()
        )
        candidates, differs = set(held), lambda d: held.get(d.doc_id) != d.digest
    new: list[Doc] = []
    present: set[str] = set()
    if candidates or not by_changes:  # a night that changed nothing reads no shard
        new, present = _upsert(db, schema, generation, differs)
    gone = sorted(candidates - present)
    doomed = sorted({d.doc_id for d in new} | set(gone))
    delete = "DELETE FROM {s}.chunks WHERE doc_id = ANY(%s)"
    deleted = db.execute(_q(delete, schema), [doomed]).rowcount
    delete = "DELETE FROM {s}.documents WHERE doc_id = ANY(%s)"
    deleted += db.execute(_q(delete, schema), [gone]).rowcount
    return len(new) + _copy_chunks(db, schema, generation, new), deleted


def _upsert(
    db: Db, schema: sql.Identifier, generation: Path, differs: Callable[[Doc], bool]
) -> tuple[list[Doc], set[str]]:
    """Upsert every document of `generation` that `differs`; return those, and the ids
    of all the generation's documents."""
    new: list[Doc] = []
    present: set[str] = set()
    batch: list[tuple[Any, ...]] = []
    with db.cursor() as cursor:
        for doc, line in document_lines(generation):
            present.add(doc.doc_id)
            if differs(doc):
                new.append(doc)
                batch.append(_document_row(doc, line))
            if len(batch) >= _BATCH:
                cursor.executemany(_q(_UPSERT, schema), batch)
                batch = []
        if batch:
            cursor.executemany(_q(_UPSERT, schema), batch)
    return new, present


def _document_row(doc: Doc, line: bytes) -> tuple[Any, ...]:
    """A document's row: its columns, then the whole record as JSON."""
    day = doc.date or None
    return doc.doc_id, doc.path, doc.kind, doc.status, day, doc.digest, doc.chunks, _json(line)


def _copy_chunks(db: Db, schema: sql.Identifier, generation: Path, docs: list[Doc]) -> int:
    """COPY the chunks of `docs` into the table; return how many."""
    count = 0
    query = sql.SQL("COPY {}.chunks (doc_id, chunk, text, record) FROM STDIN").format(schema)
    with db.cursor() as cursor, cursor.copy(query) as copy:
        for record in chunks_of(generation, docs):
            copy.write_row(_chunk_row(record))
            count += 1
    return count


def _chunk_row(record: dict[str, Any]) -> tuple[str, int, str, str]:
    """A chunk's row: its text apart, the rest of its record as JSON."""
    rest = {k: v for k, v in record.items() if k != "text"}
    text: str = record["text"]
    return (
        record["doc_id"],
        record["chunk"],
        text.replace("\x00", "\ufffd"),
        _json(orjson.dumps(rest)),
    )


_NUL = re.compile(rb"(?<!\\)((?:\\\\)*)\\u0000")
"""A NUL's escape in JSON text (not an escaped backslash before "u0000")."""


def _json(raw: bytes) -> str:
    """JSON text PostgreSQL takes: `jsonb` and `text` refuse U+0000, so each is U+FFFD."""
    return _NUL.sub(rb"\1\\ufffd", raw).decode()
