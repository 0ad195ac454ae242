"""`changes.ndjson`: which documents a run added, changed or removed against the last commit.

A document is `changed` when its record (`documents-NNNNN.ndjson`) differs in any way;
the record carries `digest`, a hash of its chunk lines, so a new chunking of the
same bytes (another `rows_per_chunk`, another PDF engine) counts as a change too.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Collection
from pathlib import Path

import orjson

from indexer.pipeline.output.staging import MANIFEST, FileInfo
from indexer.pipeline.output.verify import listed_documents, report_damage

log = logging.getLogger(__name__)

CHANGES = "changes.ndjson"


def fingerprint(line: bytes) -> int:
    """A 64-bit hash of one document record line, to compare within this process.

    Python's own hash (SipHash), cheaper than blake2b per line. Only this process
    compares them, so its per-process seed does not matter; a collision would need
    2**64 luck.
    """
    return hash(line)


class Previous(dict[str, int]):
    """The committed documents by path, with their fingerprints, and their page total;
    with `out`, still to be read from there (`pending_previous`)."""

    pages: int = 0
    out: Path | None = None


def pending_previous(out: Path) -> Previous:
    """The committed documents of `out`, read when a run first needs them (`Deferred`)."""
    previous = Previous()
    previous.out = out
    return previous


def load_previous(out: Path, skip: Collection[str] = ()) -> Previous:
    """The committed documents of `out` (empty when none) but those of the files named in
    `skip`: one pass over the document files its manifest lists, hashed on the way. A file
    that does not match its manifest entry is named in a warning, and its lines are read
    as they are, the ones that do not parse left out: a damaged record then counts as
    changed (or added), never as unchanged."""
    previous = Previous()
    try:
        listed = listed_documents(orjson.loads((out / MANIFEST).read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        return previous
    for info in listed:
        if info.name not in skip:
            _load_file(previous, out / info.name, info)
    return previous


def _load_file(previous: Previous, path: Path, info: FileInfo) -> None:
    digest, size = hashlib.sha256(), 0
    try:
        with open(path, "rb") as handle:
            while lines := handle.readlines(_READ_HINT):
                for line in lines:
                    digest.update(line)
                    size += len(line)
                    try:
                        _load_line(previous, line)
                    except (ValueError, KeyError, TypeError, AttributeError):
                        log.debug("unreadable line in %s: %r", path, line[:200])
    except OSError as exc:
        log.debug("cannot read %s: %s", path, exc)
    if size != info.bytes or digest.hexdigest() != info.sha256:
        report_damage(path)


def _load_line(previous: Previous, line: bytes) -> None:
    previous[_path_of(line)] = fingerprint(line)
    if b'"pages":' in line:  # most documents have no page count: no parse
        value = orjson.loads(line)["metadata"].get("pages", 0)
        previous.pages += max(value, 0) if isinstance(value, int) else 0  # -1: none


def _path_of(line: bytes) -> str:
    """The `path` of a document record line. Each record opens with it: when it has no escape,
    it is the bytes up to the next quote; else decode just that JSON string."""
    if line.startswith(b'{"path":"'):
        end = line.find(b'"', 9)
        raw = line[9:end]
        if end > 0 and b"\\" not in raw:
            return raw.decode()
    found = _PATH.match(line)
    if found is None:  # not path-first: read the whole record
        path: str = orjson.loads(line)["path"]
        return path
    decoded: str = orjson.loads(found.group(1))
    return decoded


_READ_HINT = 1 << 20
_PATH = re.compile(rb'\{"path":("(?:[^"\\]|\\.)*")')


class ChangeTracker:
    """Compares each new document line with the previous commit, in walk order."""

    def __init__(self, previous: dict[str, int]) -> None:
        self._unseen = dict(previous)
        self.counts = {"added": 0, "changed": 0, "removed": 0}

    def see(self, path: str, doc_id: str, line: bytes) -> bytes | None:
        """Return the `changes.ndjson` line for this document, or None when unchanged."""
        return self.see_fingerprint(path, doc_id, fingerprint(line))

    def see_fingerprint(self, path: str, doc_id: str, new: int) -> bytes | None:
        """`see`, given the line's fingerprint."""
        old = self._unseen.pop(path, None)
        if old is None:
            return self._line("added", path, doc_id)
        if old == new:
            return None
        return self._line("changed", path, doc_id)

    def unchanged(self, paths: list[str]) -> None:
        """Note documents known to be the previous commit's, as they are."""
        unseen = self._unseen
        for path in paths:
            unseen.pop(path, None)

    def removed(self) -> list[bytes]:
        """Lines for the previous documents this run never saw, in their old order."""
        from indexer.pipeline.output.records import doc_id

        return [self._line("removed", path, doc_id(path)) for path in self._unseen]

    def _line(self, change: str, path: str, did: str) -> bytes:
        self.counts[change] += 1
        record = {"change": change, "path": path, "doc_id": did}
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


_HELD = 50_000
"""Documents held before the previous records are read: memory stays bounded."""


class Deferred:
    """Changes against a `Previous` that is read only when first needed: the documents
    seen before are held (path, id, fingerprint) until then, and the old document files
    of segments taken whole are not read at all (their documents are unchanged)."""

    def __init__(self, previous: Previous) -> None:
        self._previous = previous
        self.tracker = ChangeTracker(previous) if previous.out is None else None
        """The tracker, once the previous records are read."""
        self._held: list[tuple[str, str, int]] = []
        self._skip: set[str] = set()

    def hold(self, path: str, doc_id: str, line: bytes) -> bool:
        """Hold a document seen before the previous records are read; True when it is
        time to read them (`load`)."""
        self._held.append((path, doc_id, fingerprint(line)))
        return len(self._held) >= _HELD

    def taken_whole(self, documents: Collection[str], paths: list[str]) -> None:
        """Note a segment taken whole: its old document files and its documents."""
        if self.tracker is None:
            self._skip.update(documents)
        else:
            self.tracker.unchanged(paths)

    def load(self) -> list[bytes]:
        """Read the previous records (blocking) but the skipped files'; return the change
        lines of the documents held, in order."""
        out = self._previous.out
        assert out is not None and self.tracker is None
        tracker = self.tracker = ChangeTracker(load_previous(out, self._skip))
        held, self._held = self._held, []
        lines = (tracker.see_fingerprint(*doc) for doc in held)
        return [line for line in lines if line is not None]
