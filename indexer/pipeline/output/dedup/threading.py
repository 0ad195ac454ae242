"""Mail threads over the whole corpus: each message's `metadata.thread.parent` (the
parent's `doc_id`) and its thread's id, as `threads.group` defines them (docs/mail.md).

A message's extraction reads the message alone, so its staged record carries the id
`thread_of` gives and parent `""`. The pass finishes them from every message of the run:
it first notes each message (`add`, every document shard in walk order), then links them
(`finish`: the ids they name, then the subject buckets), then gives each record its
thread (`assign`). Wherever the pass needs an order (which message of a subject is
before another, which is a thread's first and names it, which of two copies of a
Message-ID a reply's parent is) it is `ORDER`, by content: the date, the Message-ID,
the text and content hashes. Neither walk position nor path (a `doc_id` is a path's)
decides but between byte-identical copies, where the first in walk order, the one
exact duplicates keep, is the parent. So a reply before its original, in another file
or folder, gets the same parent as after it; an incremental run equals a fresh one; an
IMAP folder and its Maildir copy, listed in other orders, agree.

Everything lives in a private temporary SQLite database (as `seen` does): the messages,
their Message-IDs and the union-find links, so memory stays bounded whatever the count.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, MutableMapping
from itertools import groupby
from typing import Any

from indexer.formats.eml.threads import (
    Union,
    named_ids,
    normalize_subject,
    participants,
    subject_links,
    thread_of,
    when,
)
from indexer.pipeline.output.dedup.seen import rows_in, scratch

WINDOW_DAYS = 30.0
"""How far apart two messages of one subject without threading headers may be."""
ORDER = "COALESCE(at, 0), own, text, sha, seq"
"""Messages in order by content (`threads.group`'s): date (an undated one first),
Message-ID, text hash, content hash; walk order only among byte-identical copies."""
_PAGE = 1000
"""Messages read at a time from the table while it is written."""
_SCHEMA = (
    "CREATE TABLE mail (seq INTEGER PRIMARY KEY, doc_id TEXT UNIQUE, subject TEXT,"
    " people TEXT, at REAL, own TEXT, tid TEXT, named TEXT, parent_mid TEXT,"
    " text TEXT, sha TEXT, parent TEXT DEFAULT '', root TEXT DEFAULT '')",
    "CREATE TABLE ids (mid TEXT PRIMARY KEY, doc_id TEXT) WITHOUT ROWID",
    "CREATE TABLE up (key TEXT PRIMARY KEY, up TEXT) WITHOUT ROWID",
    "CREATE TABLE first (root TEXT PRIMARY KEY, tid TEXT) WITHOUT ROWID",
    "CREATE TABLE pairs (parent INTEGER, later TEXT UNIQUE, earlier TEXT)",
)


def is_message(record: dict[str, Any]) -> bool:
    """Whether a document record is a mail message (its extractor gave it a thread)."""
    return bool(record["metadata"]["thread"]["id"])


class Threads:
    """Every message of a run, linked into threads on disk."""

    def __init__(self) -> None:
        self._db = scratch(*_SCHEMA)
        self.count = 0

    def add(self, record: dict[str, Any]) -> None:
        """Note a message's document record (in walk order: of byte-identical copies of
        a message, the first is the one a reply's parent names)."""
        meta = record["metadata"]
        refs = str(meta["references"]).split()
        irt, own = str(meta["in_reply_to"]), str(meta["message_id"])
        found = thread_of(message_id=own, in_reply_to=irt, references=refs)
        people = participants([str(meta["from"]), str(meta["to"])])
        mid = (named_ids((own,), "") or [""])[0]
        row = (
            record["doc_id"], normalize_subject(str(meta["subject"])), " ".join(people),
            when(str(meta["date"])), mid, meta["thread"]["id"], " ".join(named_ids(refs, irt)),
            found.parent, str(record["text_sha256"]), str(record["sha256"]),
        )  # fmt: skip
        self.count += self._db.execute(
            "INSERT OR IGNORE INTO mail (doc_id, subject, people, at, own, tid, named,"
            " parent_mid, text, sha) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        ).rowcount

    def finish(self) -> None:
        """Link the messages noted: parents by the ids they name, threads by those ids
        and by subject (`threads.group`'s rules), each thread's id its first's (`ORDER`)."""
        db = self._db
        db.execute(  # a Message-ID names the first message carrying it
            "INSERT INTO ids SELECT own, doc_id FROM (SELECT own, doc_id, ROW_NUMBER() OVER"
            f" (PARTITION BY own ORDER BY {ORDER}) AS n FROM mail WHERE own != '') WHERE n = 1"
        )
        db.execute(
            "UPDATE mail SET parent = (SELECT doc_id FROM ids WHERE mid = parent_mid)"
            " WHERE parent_mid != '' AND parent_mid IN (SELECT mid FROM ids)"
        )
        links = Union(_Links(db))
        for doc_id, named in self._rows("doc_id, named"):
            for mid in str(named).split():
                row = db.execute("SELECT doc_id FROM ids WHERE mid = ?", (mid,)).fetchone()
                links.join(doc_id, row[0] if row else f"id:{mid}")
        self._by_subject(links)
        for (doc_id,) in self._rows("doc_id"):
            db.execute("UPDATE mail SET root = ? WHERE doc_id = ?", (links.find(doc_id), doc_id))
        db.execute(  # the first message of each thread names it
            "INSERT INTO first SELECT root, tid FROM (SELECT root, tid, ROW_NUMBER() OVER"
            f" (PARTITION BY root ORDER BY {ORDER}) AS n FROM mail) WHERE n = 1"
        )

    def _by_subject(self, links: Union) -> None:
        """Join each message to the one before it of the same subject it is linked to
        (`threads.subject_links`), its parent when it names none."""
        db = self._db
        rows = db.execute(
            "SELECT subject, at, doc_id, people, own FROM mail WHERE subject != ''"
            f" ORDER BY subject, {ORDER}"
        )
        for _, members in groupby(rows, key=lambda row: row[0]):
            found = ((at, did, set(str(ps).split()), own) for _, at, did, ps, own in members)
            pairs = subject_links(found, WINDOW_DAYS)
            db.executemany("INSERT INTO pairs VALUES (?, ?, ?)", (p[::-1] for p in pairs))
        seq = 0
        while page := db.execute(
            f"SELECT rowid, earlier, later FROM pairs WHERE rowid > ? ORDER BY rowid LIMIT {_PAGE}",
            (seq,),
        ).fetchall():
            seq = page[-1][0]
            for _, earlier, later in page:
                links.join(earlier, later)
        db.execute(
            "UPDATE mail SET parent = (SELECT earlier FROM pairs WHERE later = doc_id)"
            " WHERE parent_mid = '' AND doc_id IN (SELECT later FROM pairs WHERE parent)"
        )

    def _rows(self, columns: str) -> Iterator[tuple[Any, ...]]:
        """The messages' `columns` in walk order, a page at a time (the table is written
        between pages)."""
        seq = 0
        while rows := self._db.execute(
            f"SELECT seq, {columns} FROM mail WHERE seq > ? ORDER BY seq LIMIT {_PAGE}", (seq,)
        ).fetchall():
            seq = rows[-1][0]
            yield from (row[1:] for row in rows)

    def assign(self, records: list[dict[str, Any]]) -> list[bool]:
        """Give each message among `records` (one shard's) its thread id and parent; return,
        for each record, whether its `metadata.thread` changed."""
        wanted = [r["doc_id"] for r in records if is_message(r)]
        rows = rows_in(
            self._db,
            "SELECT m.doc_id, f.tid, m.parent FROM mail m JOIN first f ON f.root = m.root"
            " WHERE m.doc_id IN ({})",
            wanted,
        )
        found = {did: (tid, parent) for did, tid, parent in rows}
        out = []
        for record in records:
            thread = record["metadata"]["thread"]
            tid, parent = found.get(record["doc_id"], (thread["id"], thread["parent"]))
            changed = (tid, parent) != (thread["id"], thread["parent"])
            if changed:
                thread["id"], thread["parent"] = tid, parent
            out.append(changed)
        return out

    def close(self) -> None:
        """Drop the tables (and their temporary file)."""
        self._db.close()


class _Links(MutableMapping[str, str]):
    """The union-find's links, a SQLite table (`threads.Union` reads and writes them)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __getitem__(self, key: str) -> str:
        row = self._db.execute("SELECT up FROM up WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return str(row[0])

    def __setitem__(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO up VALUES (?, ?)", (key, value))

    def __delitem__(self, key: str) -> None:
        self._db.execute("DELETE FROM up WHERE key = ?", (key,))

    def __iter__(self) -> Iterator[str]:
        return (str(k) for (k,) in self._db.execute("SELECT key FROM up").fetchall())

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM up").fetchone()[0])
