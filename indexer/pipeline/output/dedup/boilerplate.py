"""Repeated paragraphs (disclaimers, footers, navigation), indexed in at most N documents.

A chunk's paragraphs are its text's parts between blank lines (how packing joins
blocks). A paragraph of `MIN_WORDS` normalised words or more (`texthash.words`) that
`limit` earlier documents in walk order already index is left out of a document's
chunks; a chunk left with no paragraph is left out, and the document's chunks are
numbered again from 0. A chunk the mail reader marks quoted (`meta.quoted`, the text a
reply quotes) loses each such paragraph once one earlier document indexes it: quoted
text is left out only where its original is indexed.

The counts live in a private temporary SQLite table, as the seen hashes do (`seen`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from indexer.pipeline.output.dedup.seen import rows_in, scratch
from indexer.pipeline.output.dedup.texthash import encoded_words

MIN_WORDS = 8
"""Shorter paragraphs ("Thanks, Anna") are never left out."""
_JOIN = "\n\n"


class Paragraphs:
    """How many documents so far index each paragraph (by the hash of its words)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._db = scratch(
            "CREATE TABLE paragraphs (key BLOB PRIMARY KEY, docs INTEGER) WITHOUT ROWID"
        )

    def strip(self, lines: list[bytes]) -> list[bytes] | None:
        """A document's chunk lines without the paragraphs indexed often enough before,
        numbered again; None when none is left out. Notes the paragraphs it keeps."""
        chunks = [orjson.loads(line) for line in lines]
        parts = [[(p, _key(p)) for p in str(c["text"]).split(_JOIN)] for c in chunks]
        counts = self._counts({k for part in parts for _, k in part if k is not None})
        kept_keys: set[bytes] = set()
        out: list[dict[str, Any]] = []
        changed = False
        for chunk, part in zip(chunks, parts, strict=True):
            limit = 1 if chunk["meta"].get("quoted") is True else self.limit
            kept = [p for p, k in part if k is None or counts.get(k, 0) < limit]
            kept_keys.update(k for p, k in part if k is not None and counts.get(k, 0) < limit)
            if len(kept) != len(part):
                changed = True
                if not kept:
                    continue
                chunk["text"] = _JOIN.join(kept)
            out.append(chunk)
        self._note(kept_keys)
        if not changed:
            return None
        return [renumbered(chunk, i) for i, chunk in enumerate(out)]

    def _counts(self, keys: set[bytes]) -> dict[bytes, int]:
        rows = rows_in(self._db, "SELECT key, docs FROM paragraphs WHERE key IN ({})", keys)
        return {bytes(k): int(n) for k, n in rows}

    def _note(self, keys: set[bytes]) -> None:
        self._db.executemany(
            "INSERT INTO paragraphs VALUES (?, 1) ON CONFLICT(key) DO UPDATE SET docs = docs + 1",
            [(k,) for k in sorted(keys)],
        )

    def close(self) -> None:
        """Drop the table (and its temporary file)."""
        self._db.close()


def _key(paragraph: str) -> bytes | None:
    found = encoded_words(paragraph)
    if len(found) < MIN_WORDS:
        return None
    return hashlib.sha256(b" ".join(found)).digest()[:16]


def renumbered(chunk: dict[str, Any], i: int) -> bytes:
    """The line of `chunk` as its document's chunk number `i`."""
    did = chunk["doc_id"]
    chunk["id"], chunk["chunk"] = f"{did}:{i}", i
    return orjson.dumps(chunk, option=orjson.OPT_APPEND_NEWLINE)
