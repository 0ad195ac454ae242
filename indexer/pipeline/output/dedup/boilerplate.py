"""Repeated paragraphs (disclaimers, footers, navigation), indexed in at most N documents.

A chunk's paragraphs are its text's parts between blank lines (how packing joins
blocks). A paragraph of `MIN_WORDS` normalised words or more (`texthash.words`) that
`limit` earlier documents in walk order already index is left out of a document's
chunks; a chunk left with no paragraph is left out, and the document's chunks are
numbered again from 0. A chunk the mail reader marks quoted (`meta.quoted`, the text a
reply quotes) loses each such paragraph once one earlier document indexes it: quoted
text is left out only where its original is indexed.

The counts live in a private temporary SQLite table, as the seen hashes do (`seen`).
With near duplicates on too, a document's chunk lines are parsed and split into words
once for both (`read`): its near-duplicate words are its paragraphs' words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import chain
from typing import Any

import orjson

from indexer.pipeline.output.dedup.seen import rows_in, scratch
from indexer.pipeline.output.dedup.texthash import encoded_words, own_text

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

    def strip(self, lines: list[bytes], parsed: Read | None = None) -> list[bytes] | None:
        """A document's chunk lines without the paragraphs indexed often enough before,
        numbered again; None when none is left out. Notes the paragraphs it keeps.
        `parsed` is `read(lines)` when the caller read them already (its chunks are
        changed here)."""
        found = parsed if parsed is not None else read(lines, words=False)
        chunks, parts = found.chunks, found.parts
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """A document's chunk lines, parsed and split into paragraphs and words once."""

    chunks: list[dict[str, Any]]
    """Each line's record."""
    parts: list[list[tuple[str, bytes | None]]]
    """Each chunk's paragraphs, each with its key (None under `MIN_WORDS` words)."""
    words: list[bytes]
    """The chunks' normalised words, context prefixes left out (`files.words_of`);
    empty unless asked for."""


def read(lines: list[bytes], words: bool = True) -> Read:
    """`lines` (a document's chunk lines) parsed, with their paragraphs' keys and, when
    `words`, their words as `files.words_of` gives them: a chunk's text's words are
    its paragraphs' words in order (a blank line is never inside a word, and NFKC and
    case folding change nothing across a line break), so a prefix that is the first
    paragraph leaves the words of the paragraphs after it."""
    chunks = [orjson.loads(line) for line in lines]
    parts: list[list[tuple[str, bytes | None]]] = []
    found: list[bytes] = []
    for chunk in chunks:
        text = str(chunk["text"])
        pieces = text.split(_JOIN)
        split = [encoded_words(p) for p in pieces]
        parts.append([(p, _hashed(w)) for p, w in zip(pieces, split, strict=True)])
        if words:
            found.extend(_own_words(text, chunk["meta"].get("context"), pieces, split))
    return Read(chunks=chunks, parts=parts, words=found)


def _own_words(
    text: str, context: object, pieces: list[str], split: list[list[bytes]]
) -> list[bytes]:
    """The words of `text` without its context prefix (`own_text`), from its
    paragraphs' `split` where the prefix ends at a paragraph's end."""
    own = own_text(text, context)
    if len(own) == len(text):
        return list(chain.from_iterable(split))
    if len(pieces[0]) == len(text) - len(own):  # the prefix is the first paragraph
        return list(chain.from_iterable(split[1:]))
    return encoded_words(own)


def _hashed(words: list[bytes]) -> bytes | None:
    if len(words) < MIN_WORDS:
        return None
    return hashlib.sha256(b" ".join(words)).digest()[:16]


def renumbered(chunk: dict[str, Any], i: int) -> bytes:
    """The line of `chunk` as its document's chunk number `i`."""
    did = chunk["doc_id"]
    chunk["id"], chunk["chunk"] = f"{did}:{i}", i
    return orjson.dumps(chunk, option=orjson.OPT_APPEND_NEWLINE)
