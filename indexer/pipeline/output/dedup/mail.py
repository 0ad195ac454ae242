"""The corpus pass's mail decisions (docs/mail.md, docs/dedup.md): threads, and quoted
text left out of a message's chunks where the message it quotes is indexed.

`MailPass.collect` reads the staged output once before the walk-order pass: every
document shard (each message's threading headers, `threading.Threads`), and the chunk
shards that hold a message (the paragraphs of every message's own text: its chunks but
the `quoted` ones). The pass then gives each message its thread
(`assign`) and strips its quoted chunks (`strip`).

A quoted paragraph (a chunk with `meta.quoted`, split at blank lines as packing joins
blocks) whose normalised words (`texthash.words`: case, re-wrapping and spacing do not
count; the `>` markers are stripped by the mail reader) are a paragraph of some
message's own text is left out: its words are indexed there. This is by content, not by
thread, so a quote whose thread was lost still finds its original, and a reply before
its original in walk order loses it as well. A quoted paragraph no message's own text
has (its original is not indexed) is kept in the first message in walk order that
quotes it, and left out of the later ones. A chunk left with no paragraph is left out;
the rest are numbered again. `[mail] keep_quotes` marks nothing quoted: nothing goes.

The paragraphs live in private temporary SQLite tables, as the seen hashes do (`seen`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.output.dedup import files
from indexer.pipeline.output.dedup.boilerplate import renumbered
from indexer.pipeline.output.dedup.seen import rows_in, scratch
from indexer.pipeline.output.dedup.texthash import own_text, words
from indexer.pipeline.output.dedup.threading import Threads, is_message
from indexer.pipeline.output.previous import LAYOUT

_JOIN = "\n\n"
_QUOTED = b'"quoted":true'


class MailPass:
    """What the pass knows of the run's messages, collected before it decides."""

    def __init__(self) -> None:
        self.threads = Threads()
        self._db = scratch(
            "CREATE TABLE own (key BLOB PRIMARY KEY) WITHOUT ROWID",
            "CREATE TABLE orphan (key BLOB PRIMARY KEY) WITHOUT ROWID",
        )
        self.quoting: set[str] = set()
        """The chunk shards holding a message with a quoted chunk: the only ones the
        pass reads again for mail."""
        self.stripped = 0
        """Messages that left a quoted paragraph out."""

    @classmethod
    def collect(cls, staging: Path) -> MailPass | None:
        """Read the staged shards in `staging`, in walk order; None when they hold no
        message (nothing for the pass to do)."""
        found = cls()
        try:
            for raw in files.lines(staging / LAYOUT):
                found._shard(staging, str(orjson.loads(raw)["name"]))
        except BaseException:
            found.close()
            raise
        if not found.threads.count:
            found.close()
            return None
        found.threads.finish()
        return found

    def _shard(self, staging: Path, name: str) -> None:
        messages = set()
        for line in files.lines(staging / name.replace("chunks-", "documents-", 1)):
            if b'"thread":{"id":""' in line:  # not a message: not parsed
                continue
            record = orjson.loads(line)
            if is_message(record):
                self.threads.add(record)
                messages.add(record["doc_id"])
        if not messages:
            return
        keys: set[bytes] = set()
        for did, lines in files.chunks_by_doc(staging / name).items():
            if did not in messages:
                continue
            for line in lines:
                if _QUOTED in line:
                    self.quoting.add(name)
                    continue
                # the header summary too: packing may join the first paragraphs to it
                keys.update(k for _, k in _paragraphs(orjson.loads(line)) if k is not None)
        self._db.executemany("INSERT OR IGNORE INTO own VALUES (?)", [(k,) for k in sorted(keys)])

    def assign(self, records: list[dict[str, Any]]) -> list[bool]:
        """`Threads.assign`: each record's thread given, whether it changed."""
        return self.threads.assign(records)

    def strip(self, record: dict[str, Any], lines: list[bytes]) -> list[bytes] | None:
        """A message's chunk lines without the quoted paragraphs indexed elsewhere or
        kept by an earlier message, numbered again; None when none is left out (and for
        a document that is not a message). Notes the orphan quotes it keeps."""
        if not is_message(record) or not any(_QUOTED in line for line in lines):
            return None
        chunks = [orjson.loads(line) for line in lines]
        quoted = [(c, _paragraphs(c)) for c in chunks if c["meta"]["quoted"] is True]
        asked = {k for _, parts in quoted for _, k in parts if k is not None}
        own, orphans = self._known("own", asked), self._known("orphan", asked)
        kept_orphans: set[bytes] = set()
        changed = False
        for chunk, parts in quoted:
            kept = []
            for text, key in parts:
                if key is not None and (key in own or key in orphans or key in kept_orphans):
                    continue  # indexed in an original, or kept by an earlier quote
                kept.append(text)
                if key is not None:
                    kept_orphans.add(key)
            if len(kept) != len(parts):
                changed = True
                chunk["text"] = _prefix(chunk) + _JOIN.join(kept) if kept else ""
        rows = [(k,) for k in sorted(kept_orphans)]
        self._db.executemany("INSERT OR IGNORE INTO orphan VALUES (?)", rows)
        if not changed:
            return None
        self.stripped += 1
        out = [c for c in chunks if c["text"]]
        return [renumbered(chunk, i) for i, chunk in enumerate(out)]

    def _known(self, table: str, keys: set[bytes]) -> set[bytes]:
        rows = rows_in(self._db, f"SELECT key FROM {table} WHERE key IN ({{}})", keys)
        return {bytes(k) for (k,) in rows}

    def close(self) -> None:
        """Drop the tables (and their temporary files)."""
        self.threads.close()
        self._db.close()


def _prefix(chunk: dict[str, Any]) -> str:
    """The context prefix packing put before a chunk's text, `""` for none."""
    text = str(chunk["text"])
    return text[: len(text) - len(own_text(text, chunk["meta"].get("context")))]


def _paragraphs(chunk: dict[str, Any]) -> list[tuple[str, bytes | None]]:
    """A chunk's paragraphs (its text after the context prefix, between blank lines),
    each with the hash of its normalised words (None for a paragraph without words)."""
    text = str(chunk["text"])[len(_prefix(chunk)) :]
    out: list[tuple[str, bytes | None]] = []
    for paragraph in text.split(_JOIN):
        found = words(paragraph)
        key = hashlib.sha256(" ".join(found).encode()).digest()[:16] if found else None
        out.append((paragraph, key))
    return out
