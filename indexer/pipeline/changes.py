"""`changes.ndjson`: which documents a run added, changed or removed against the last commit.

A document is `changed` when its record in `documents.ndjson` differs in any way;
the record carries `digest`, a hash of its chunk lines, so a new chunking of the
same bytes (another `rows_per_chunk`, another PDF engine) counts as a change too.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import orjson

from indexer.pipeline.output import DOCUMENTS, MANIFEST

CHANGES = "changes.ndjson"


def fingerprint(line: bytes) -> bytes:
    """A short hash of one `documents.ndjson` line."""
    return hashlib.blake2b(line, digest_size=12).digest()


def load_previous(out: Path) -> dict[str, bytes]:
    """The committed documents of `out` by path, with their fingerprints; {} when none."""
    if not (out / MANIFEST).exists() or not (out / DOCUMENTS).exists():
        return {}
    previous: dict[str, bytes] = {}
    match = _PATH.match
    with open(out / DOCUMENTS, "rb") as handle:
        for line in handle:
            # Each record opens with its path: decode that string, not the whole line.
            found = match(line)
            path = orjson.loads(found.group(1) if found else line)
            previous[path if found else path["path"]] = fingerprint(line)
    return previous


_PATH = re.compile(rb'\{"path":("(?:[^"\\]|\\.)*")')


class ChangeTracker:
    """Compares each new document line with the previous commit, in walk order."""

    def __init__(self, previous: dict[str, bytes]) -> None:
        self._unseen = dict(previous)
        self.counts = {"added": 0, "changed": 0, "removed": 0}

    def see(self, path: str, doc_id: str, line: bytes) -> bytes | None:
        """Return the `changes.ndjson` line for this document, or None when unchanged."""
        old = self._unseen.pop(path, None)
        if old is None:
            return self._line("added", path, doc_id)
        if old == fingerprint(line):
            return None
        return self._line("changed", path, doc_id)

    def removed(self) -> list[bytes]:
        """Lines for the previous documents this run never saw, in their old order."""
        from indexer.pipeline.records import doc_id

        return [self._line("removed", path, doc_id(path)) for path in self._unseen]

    def _line(self, change: str, path: str, did: str) -> bytes:
        self.counts[change] += 1
        record = {"change": change, "path": path, "doc_id": did}
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
