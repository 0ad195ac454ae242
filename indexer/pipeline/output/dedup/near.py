"""Near-duplicate clusters, decided in walk order (docs/dedup.md).

Each document with words gets its token set (the multiset of its shingles, `minhash`)
and that set's MinHash signature. The signature's LSH band keys name candidates: for
each band, the first earlier document that had that key. Taken from the earliest, the
first candidate whose token set's exact Jaccard similarity to this one's is at least
the threshold gives its cluster; a document with none starts a cluster of its own,
whose id is its `doc_id`, and is that cluster's representative. So the signature only
finds candidates (the band layout is chosen for the threshold, `minhash.layout`): what
joins two documents is their exact similarity, never an estimate.

The token sets, clusters and buckets live in a private temporary SQLite database, as
the seen hashes do (`seen`): memory stays bounded however many documents a run holds.
A document all of whose band keys were taken already is never a candidate, and is not
stored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from indexer.pipeline.output.dedup import minhash

_CACHE_KIB = 16384


class Clusters:
    """The documents seen so far in walk order: their token sets, clusters and buckets."""

    def __init__(self, threshold: float, shingle: int = minhash.SHINGLE) -> None:
        self.threshold = threshold
        self.shingle = shingle
        self._shape = minhash.layout(threshold)
        self._n = 0
        db = self._db = sqlite3.connect("", isolation_level=None)
        for pragma in (f"cache_size = -{_CACHE_KIB}", "journal_mode = OFF", "synchronous = OFF"):
            db.execute(f"PRAGMA {pragma}")
        db.execute("CREATE TABLE docs (n INTEGER PRIMARY KEY, size INT, cluster TEXT, tokens BLOB)")
        db.execute("CREATE TABLE buckets (key BLOB PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        db.execute("BEGIN")

    def assign(self, doc_id: str, words: Sequence[str] | Sequence[bytes]) -> str:
        """The cluster of the document `doc_id` whose normalised words are `words` (its own
        id when it starts one), noting it for the documents after it."""
        tokens = minhash.tokens(words, self.shingle)
        sig = minhash.signature(tokens)
        if sig is None:
            return doc_id
        keys = minhash.bands(sig, self._shape)
        cluster = self._match(tokens, keys) or doc_id
        n, self._n = self._n, self._n + 1
        added = self._db.executemany(
            "INSERT OR IGNORE INTO buckets VALUES (?, ?)", [(key, n) for key in keys]
        ).rowcount
        if added:  # a candidate of the documents after it
            row = (n, len(tokens), cluster, tokens.tobytes())
            self._db.execute("INSERT INTO docs VALUES (?, ?, ?, ?)", row)
        return cluster

    def _match(self, tokens: minhash.Tokens, keys: list[bytes]) -> str | None:
        """The cluster of the earliest candidate at least `threshold` similar. Sets whose
        sizes differ by more than the threshold allows (a Jaccard similarity is at most
        the smaller size over the larger) are not read."""
        marks = ",".join("?" * len(keys))
        size = len(tokens)
        rows = self._db.execute(
            f"SELECT cluster, tokens FROM docs WHERE n IN "
            f"(SELECT n FROM buckets WHERE key IN ({marks})) "
            f"AND size >= ? AND size <= ? ORDER BY n",
            (*keys, size * self.threshold, size / self.threshold),
        )
        for cluster, raw in rows:
            other = np.frombuffer(raw, dtype=np.uint32)
            if minhash.jaccard(tokens, other) >= self.threshold:
                found: str = cluster
                return found
        return None

    def close(self) -> None:
        """Drop the tables (and their temporary file)."""
        self._db.close()
