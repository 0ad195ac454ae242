"""Searching the `fts` sink's index of an OUT: BM25-ranked chunks with snippets.

A query is words, each matched as a token of the chunk text (all of them, in any
order); a word in double quotes is a phrase. Filters: the document kind, and a glob
over the document path (SQLite GLOB: `*` also matches "/").
"""

from __future__ import annotations

import datetime
import hashlib
import re
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from indexer.sinks.base import Applied, Night
from indexer.sinks.fts import FtsSink, index_path

__all__ = ["Hit", "day", "fts_query", "refresh", "search", "stale"]

_TERMS = re.compile(r'"([^"]*)"|(\S+)')


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One chunk that matches a query."""

    doc_id: str
    path: str
    chunk: int
    score: float
    """BM25 relevance (SQLite's `bm25()` negated): higher is better."""
    snippet: str
    """The best-matching stretch of the chunk text, the matched terms in [brackets]."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def day(text: str) -> str:
    """`text` if it is a day, YYYY-MM-DD; raises ValueError for anything else."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        pass
    else:
        if len(text) == 10:  # fromisoformat also takes 20010504
            return text
    raise ValueError(f"{text!r} is not a day (YYYY-MM-DD)")


def _filters(**values: str | None) -> tuple[str, list[str]]:
    """The WHERE conditions over `d` (docs) for the filters given (not None), each
    starting " AND", and their values."""
    clauses = {
        "kind": " AND d.kind = ?",
        "path": " AND d.path GLOB ?",
        "since": " AND d.date != '' AND d.date >= ?",
        "until": " AND d.date != '' AND d.date <= ?",
    }
    given = [(clauses[name], value) for name, value in values.items() if value is not None]
    return "".join(c for c, _ in given), [v for _, v in given]


def fts_query(text: str) -> str:
    """The FTS5 query for user text: every word (or "quoted phrase") as a quoted string,
    so no character of it is FTS5 syntax. Raises ValueError for text with no word."""
    parts = [(m[1] if m[1] is not None else m[2]).strip() for m in _TERMS.finditer(text)]
    quoted = ['"' + p.replace('"', '""') + '"' for p in parts if p]
    if not quoted:
        raise ValueError("the query has no word to search for")
    return " ".join(quoted)


def search(
    out: Path,
    query: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    path: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> list[Hit]:
    """The best `limit` chunks of OUT's index for `query`, best first; only documents of
    `kind`, whose path matches the glob `path`, whose day is `since` or later and `until`
    or earlier (YYYY-MM-DD), for those given.

    Raises FileNotFoundError when OUT has no index, ValueError for an empty query.
    """
    where = index_path(out)
    if not where.is_file():
        raise FileNotFoundError(f"{out} has no search index ({where})")
    db = sqlite3.connect(f"file:{where}?mode=ro", uri=True)
    try:
        sql = (
            "SELECT d.doc_id, d.path, c.chunk, -bm25(fts) AS score,"
            " snippet(fts, 0, '[', ']', '…', 16) FROM fts"
            " JOIN chunks c ON c.id = fts.rowid JOIN docs d ON d.doc_id = c.doc_id"
            " WHERE fts MATCH ?"
        )
        only, values = _filters(kind=kind, path=path, since=since, until=until)
        sql += only + " ORDER BY score DESC, d.path, c.chunk LIMIT ?"
        rows = db.execute(sql, [fts_query(query), *values, limit]).fetchall()
    finally:
        db.close()
    return [
        Hit(doc_id=r[0], path=r[1], chunk=r[2], score=round(r[3], 4), snippet=r[4]) for r in rows
    ]


def _manifest_sha256(out: Path) -> str:
    return hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()


def stale(out: Path) -> bool:
    """True when OUT's index is missing or holds another output than the committed one.

    Raises FileNotFoundError when OUT holds no committed output."""
    where = index_path(out)
    if not where.is_file():
        _manifest_sha256(out)
        return True
    db = sqlite3.connect(f"file:{where}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM meta WHERE name = 'manifest'").fetchone()
    except sqlite3.Error:
        return True
    finally:
        db.close()
    return row is None or row[0] != _manifest_sha256(out)


def refresh(out: Path) -> Applied:
    """Bring OUT's index up to its committed output (hold OUT's lock meanwhile); raises
    as `FtsSink.apply` does."""
    night = Night(
        out=out, generation=(out / ".current").resolve(),
        manifest_sha256=_manifest_sha256(out), previous_sha256=None,
    )  # fmt: skip
    return FtsSink().apply(night)
