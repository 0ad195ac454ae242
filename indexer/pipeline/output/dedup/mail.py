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
quotes it, and left out of the later ones. A paragraph that only introduces a quote
(`On ..., X wrote:`, a reply separator: `introduces`) goes when the paragraph after it
is in its original, whose header summary says who wrote it, when.
A chunk left with no paragraph is left out; the rest are numbered again. `[mail]
keep_quotes` marks nothing quoted: nothing goes.

The paragraphs live in private temporary SQLite tables, as the seen hashes do (`seen`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from indexer.formats.eml import quotelines
from indexer.pipeline.output.dedup import files
from indexer.pipeline.output.dedup.boilerplate import renumbered
from indexer.pipeline.output.dedup.seen import rows_in, scratch
from indexer.pipeline.output.dedup.texthash import own_text, words
from indexer.pipeline.output.dedup.threading import Threads, is_message
from indexer.pipeline.output.previous import LAYOUT

_JOIN = "\n\n"
_QUOTED = b'"quoted":true'
ShardLook = Callable[[str, bytes], None]
"""What else looks at each document shard read: its name, its bytes."""


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
    def collect(cls, staging: Path, also: ShardLook | None = None) -> MailPass | None:
        """Read the staged shards in `staging`, in walk order, each document shard's
        bytes handed to `also` too (with its name) until a message is found (the
        duplicate pass's look for a repeated key: one reading serves both); None when
        they hold no message (nothing for the pass to do)."""
        found = cls()
        try:
            for raw in files.lines(staging / LAYOUT):
                name = str(orjson.loads(raw)["name"])
                documents = name.replace("chunks-", "documents-", 1)
                data = (staging / documents).read_bytes()  # at most 16 MiB (`docshards`)
                if also is not None and not found.threads.count:
                    also(documents, data)
                found._shard(staging, name, data)
        except BaseException:
            found.close()
            raise
        if not found.threads.count:
            found.close()
            return None
        found.threads.finish()
        return found

    def _shard(self, staging: Path, name: str, documents: bytes) -> None:
        messages = set()
        for line in documents.splitlines(keepends=True):
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
        flat = [part for _, parts in quoted for part in parts]
        kept = self._kept(flat)
        at, changed = 0, False
        for chunk, parts in quoted:
            texts = [text for n, (text, _) in enumerate(parts) if kept[at + n]]
            at += len(parts)
            if len(texts) != len(parts):
                changed = True
                chunk["text"] = _prefix(chunk) + _JOIN.join(texts) if texts else ""
        if not changed:
            return None
        self.stripped += 1
        out = [c for c in chunks if c["text"]]
        return [renumbered(chunk, i) for i, chunk in enumerate(out)]

    def _kept(self, quoted: list[tuple[str, bytes | None]]) -> list[bool]:
        """Whether each of a message's quoted paragraphs (in order) stays; notes the
        orphan quotes kept. A paragraph that only introduces a quote (an attribution
        line, a reply separator) goes when the paragraph after it is in its
        original (whose header summary names its sender and date)."""
        asked = {k for _, k in quoted if k is not None}
        own, orphans = self._known("own", asked), self._known("orphan", asked)
        intro = [introduces(text) for text, _ in quoted]
        kept = [True] * len(quoted)
        new: set[bytes] = set()
        for n, (_, key) in enumerate(quoted):
            if intro[n] or key is None:
                continue
            if key in own or key in orphans or key in new:
                kept[n] = False  # indexed in its original, or kept by an earlier quote
            else:
                new.add(key)
        indexed = False
        """Whether the paragraph after a run of introductions is in its original."""
        for n in range(len(quoted) - 1, -1, -1):
            key = quoted[n][1]
            if intro[n]:
                kept[n] = not indexed
            elif key is not None:
                indexed = key in own
        self._db.executemany("INSERT OR IGNORE INTO orphan VALUES (?)", [(k,) for k in sorted(new)])
        return kept

    def _known(self, table: str, keys: set[bytes]) -> set[bytes]:
        rows = rows_in(self._db, f"SELECT key FROM {table} WHERE key IN ({{}})", keys)
        return {bytes(k) for (k,) in rows}

    def close(self) -> None:
        """Drop the tables (and their temporary files)."""
        self.threads.close()
        self._db.close()


def introduces(paragraph: str) -> bool:
    """True for a paragraph that only introduces a quoted message, as the mail reader
    tells them: its attribution (`On ..., X wrote:`, on one line or wrapped), a reply
    separator or a forward banner. Not a quoted header block (`From:`, `Sent:`, `To:`
    ...): its recipients may be written nowhere else (a forward's copy of it differs)."""
    lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
    if not lines:
        return False
    if quotelines.attribution(" ".join(lines)):
        return True
    return all(quotelines.reply_separator(x) or quotelines.forward_banner(x) for x in lines)


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
