"""What the walk has seen so far: each content and text hash, with the path of the
first document that had it.

A SQLite table in a private temporary database (`sqlite3.connect("")`): its pages
live in a small cache and spill to a temporary file, so memory stays bounded (1 MiB
a table) however many documents a run holds, where a Python dict of a million paths
would take hundreds of MiB. Keys are 17 bytes: a tag (`c` content, `t` text) and the
first 16 bytes of the sha256.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

_CACHE_KIB = 1024
"""Each table's page cache. A night holds four (seen hashes, mail threads, mail
paragraphs, previous documents) that fill as the tree grows: at 8 MiB each they were
most of a 1,000,000-file night's extra parent peak over a 100,000-file one."""
_BATCH = 500
"""Keys asked for in one query (SQLite allows 32,766 parameters)."""


def scratch(*schema: str, threads: bool = False) -> sqlite3.Connection:
    """A private temporary SQLite database with the tables of `schema`, in one open
    transaction: its pages in a cache of 1 MiB, the rest in a temporary file, never
    synced (nothing in it outlives the connection). `threads`: usable from any thread
    (one at a time)."""
    db = sqlite3.connect("", isolation_level=None, check_same_thread=not threads)
    for pragma in (f"cache_size = -{_CACHE_KIB}", "journal_mode = OFF", "synchronous = OFF"):
        db.execute(f"PRAGMA {pragma}")
    for statement in schema:
        db.execute(statement)
    db.execute("BEGIN")
    return db


def rows_in(db: sqlite3.Connection, select: str, keys: Iterable[Any]) -> Iterator[Any]:
    """The rows of `select` (whose `{}` is the place of an `IN` list) for all of `keys`,
    sorted and asked for `_BATCH` at a time: one query per batch, not one per key."""
    listed = sorted(set(keys))
    for at in range(0, len(listed), _BATCH):
        part = listed[at : at + _BATCH]
        yield from db.execute(select.format(",".join("?" * len(part))), part)


class Seen:
    """The hashes seen so far in walk order, each with its first document's path."""

    def __init__(self) -> None:
        self._db = scratch("CREATE TABLE seen (key BLOB PRIMARY KEY, path TEXT) WITHOUT ROWID")
        self._found: dict[bytes, str] = {}
        """The shard's keys seen in earlier shards (`shard`)."""
        self._new: dict[bytes, str] = {}
        """Keys first seen in this shard, written by `end_shard`."""

    def shard(self, keys: list[bytes]) -> None:
        """Begin a shard whose documents have `keys`: look them all up at once (one
        query per 500 keys, not one per document)."""
        self._found, self._new = {}, {}
        rows = rows_in(self._db, "SELECT key, path FROM seen WHERE key IN ({})", set(keys))
        self._found.update((bytes(k), str(p)) for k, p in rows)

    def first(self, keys: list[bytes]) -> str | None:
        """The path of the first document that had one of `keys`, tried in order; None
        when none was seen. The keys are among those given to `shard`."""
        for key in keys:
            found = self._found.get(key) or self._new.get(key)
            if found is not None:
                return found
        return None

    def add(self, keys: list[bytes], path: str) -> None:
        """Note `path` as the first document of each of `keys` not noted yet."""
        for key in keys:
            if key not in self._found:
                self._new.setdefault(key, path)

    def end_shard(self) -> None:
        """Write the shard's new keys to the table."""
        self._db.executemany("INSERT OR IGNORE INTO seen VALUES (?, ?)", self._new.items())
        self._found, self._new = {}, {}

    def close(self) -> None:
        """Drop the table (and its temporary file)."""
        self._db.close()


def keys(sha256: str, text_sha256: str) -> list[bytes]:
    """A document's keys: its content hash, then its text hash (either may be `""`)."""
    out = []
    if sha256:
        out.append(b"c" + bytes.fromhex(sha256[:32]))
    if text_sha256:
        out.append(b"t" + bytes.fromhex(text_sha256[:32]))
    return out
