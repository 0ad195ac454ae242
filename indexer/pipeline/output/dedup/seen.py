"""What the walk has seen so far: each content and text hash, with the path of the
first document that had it.

A SQLite table in a private temporary database (`sqlite3.connect("")`): its pages
live in a small cache and spill to a temporary file, so memory stays bounded (a few
MiB) however many documents a run holds, where a Python dict of a million paths
would take hundreds of MiB. Keys are 17 bytes: a tag (`c` content, `t` text) and the
first 16 bytes of the sha256.
"""

from __future__ import annotations

import sqlite3

_CACHE_KIB = 8192


class Seen:
    """The hashes seen so far in walk order, each with its first document's path."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("", isolation_level=None)
        self._db.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("CREATE TABLE seen (key BLOB PRIMARY KEY, path TEXT) WITHOUT ROWID")
        self._db.execute("BEGIN")

    def first(self, keys: list[bytes]) -> str | None:
        """The path of the first document that had one of `keys`, tried in order; None
        when none was seen."""
        for key in keys:
            row = self._db.execute("SELECT path FROM seen WHERE key = ?", (key,)).fetchone()
            if row is not None:
                found: str = row[0]
                return found
        return None

    def add(self, keys: list[bytes], path: str) -> None:
        """Note `path` as the first document of each of `keys` not noted yet."""
        self._db.executemany(
            "INSERT OR IGNORE INTO seen (key, path) VALUES (?, ?)", [(k, path) for k in keys]
        )

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
