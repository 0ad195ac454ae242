"""Near-duplicate clusters, decided in walk order (docs/dedup.md).

Each document with words gets a MinHash signature (`minhash`). Its LSH band keys name
candidates: for each band, the first earlier document that had that key. Taken from
the earliest, the first candidate whose signature's estimated Jaccard similarity to
this one's is at least the threshold gives its cluster; a document with none starts a
cluster of its own, whose id is its `doc_id`, and is that cluster's representative.

The signatures and buckets live in a private temporary SQLite database, as the seen
hashes do (`seen`): memory stays bounded however many documents a run holds.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from indexer.pipeline.output.dedup import minhash

_CACHE_KIB = 16384


class Clusters:
    """The documents seen so far in walk order: their signatures, clusters and buckets."""

    def __init__(self, threshold: float, shingle: int = minhash.SHINGLE) -> None:
        self.threshold = threshold
        self.shingle = shingle
        self._n = 0
        db = self._db = sqlite3.connect("", isolation_level=None)
        for pragma in (f"cache_size = -{_CACHE_KIB}", "journal_mode = OFF", "synchronous = OFF"):
            db.execute(f"PRAGMA {pragma}")
        db.execute("CREATE TABLE docs (n INTEGER PRIMARY KEY, cluster TEXT, sig BLOB)")
        db.execute("CREATE TABLE buckets (key BLOB PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        db.execute("BEGIN")

    def assign(self, doc_id: str, words: list[str]) -> str:
        """The cluster of the document `doc_id` whose normalised words are `words` (its own
        id when it starts one), noting it for the documents after it."""
        sig = minhash.signature(words, self.shingle)
        if sig is None:
            return doc_id
        keys = minhash.bands(sig)
        cluster = self._match(sig, keys) or doc_id
        n, self._n = self._n, self._n + 1
        self._db.execute("INSERT INTO docs VALUES (?, ?, ?)", (n, cluster, sig.tobytes()))
        self._db.executemany(
            "INSERT OR IGNORE INTO buckets VALUES (?, ?)", [(key, n) for key in keys]
        )
        return cluster

    def _match(self, sig: minhash.Signature, keys: list[bytes]) -> str | None:
        marks = ",".join("?" * len(keys))
        rows = self._db.execute(
            f"SELECT d.n, d.cluster, d.sig FROM buckets b JOIN docs d ON d.n = b.n "
            f"WHERE b.key IN ({marks}) ORDER BY d.n",
            keys,
        ).fetchall()
        seen: set[int] = set()
        for n, cluster, raw in rows:
            if n in seen:
                continue
            seen.add(n)
            other = np.frombuffer(raw, dtype=np.uint32)
            if minhash.similarity(sig, other) >= self.threshold:
                found: str = cluster
                return found
        return None

    def close(self) -> None:
        """Drop the tables (and their temporary file)."""
        self._db.close()
