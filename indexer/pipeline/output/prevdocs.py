"""The previous commit's documents, as `changes.ndjson` compares a run's with them.

Each committed document's path, with the fingerprint of its record line and its place
in the old walk, lives in a private temporary SQLite table (`seen.scratch`): its pages
in a cache of 1 MiB, the rest in a temporary file. A Python dict of a million paths
held hundreds of MiB, twice on a night (the writer's comparison, then the duplicate
pass's), and the parent's peak grew with the tree; the table's does not.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

import orjson

from indexer.pipeline.output.dedup.seen import rows_in, scratch
from indexer.pipeline.output.staging import MANIFEST, FileInfo
from indexer.pipeline.output.verify import listed_documents, report_damage

log = logging.getLogger(__name__)

_READ_HINT = 1 << 20
_PATH = re.compile(rb'\{"path":("(?:[^"\\]|\\.)*")')
_ADD = "INSERT INTO prev VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET fp = excluded.fp"
_SCHEMA = "CREATE TABLE prev (path TEXT PRIMARY KEY, seq INTEGER, fp INTEGER) WITHOUT ROWID"


def fingerprint(line: bytes) -> int:
    """A 64-bit hash of one document record line, to compare within this process.

    Python's own hash (SipHash), cheaper than blake2b per line. Only this process
    compares them, so its per-process seed does not matter; a collision would need
    2**64 luck.
    """
    return hash(line)


class PreviousDocs:
    """The committed documents not matched yet: path, old walk position, fingerprint.
    Used from one thread at a time (any thread); `close` drops the table."""

    def __init__(self) -> None:
        self._db = scratch(_SCHEMA, threads=True)
        self.count = 0
        """Documents added (`add`); those taken stay counted."""

    def add(self, rows: Iterable[tuple[str, int]]) -> None:
        """Note documents (path, fingerprint), after those noted before, in old walk
        order. A path noted again keeps its first place, with its last fingerprint."""
        batch = []
        for path, fp in rows:
            batch.append((path, self.count, fp))
            self.count += 1
        self._db.executemany(_ADD, batch)

    def take(self, paths: Collection[str]) -> dict[str, int]:
        """The fingerprints of those of `paths` still noted, by path; they are noted no
        more (a later `take` or `left` does not find them)."""
        select = "SELECT path, fp FROM prev WHERE path IN ({})"
        found = {str(p): int(fp) for p, fp in rows_in(self._db, select, paths)}
        self.forget(found)
        return found

    def forget(self, paths: Collection[str]) -> None:
        """Note `paths` no more (those not noted are passed over)."""
        list(rows_in(self._db, "DELETE FROM prev WHERE path IN ({})", paths))

    def left(self) -> Iterator[str]:
        """The paths still noted, in old walk order, read a thousand at a time (no `take`
        or `forget` meanwhile)."""
        cursor = self._db.execute("SELECT path FROM prev ORDER BY seq")
        while rows := cursor.fetchmany(1000):
            yield from (str(path) for (path,) in rows)

    def close(self) -> None:
        """Drop the table (and its temporary file)."""
        self._db.close()


def load_previous(out: Path, skip: Collection[str] = ()) -> PreviousDocs:
    """The committed documents of `out` (none when it has no usable manifest) but those
    of the files named in `skip`: one pass over the document files its manifest lists,
    hashed on the way. A file that does not match its manifest entry is named in a
    warning, and its lines are read as they are, the ones that do not parse left out: a
    damaged record then counts as changed (or added), never as unchanged."""
    previous = PreviousDocs()
    try:
        listed = listed_documents(orjson.loads((out / MANIFEST).read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        return previous
    try:
        for info in listed:
            if info.name not in skip:
                _load_file(previous, out / info.name, info)
    except BaseException:
        previous.close()
        raise
    return previous


def _load_file(previous: PreviousDocs, path: Path, info: FileInfo) -> None:
    digest, size = hashlib.sha256(), 0
    try:
        with open(path, "rb") as handle:
            while lines := handle.readlines(_READ_HINT):
                rows = []
                for line in lines:
                    digest.update(line)
                    size += len(line)
                    try:
                        rows.append((_path_of(line), fingerprint(line)))
                    except (ValueError, KeyError, TypeError, AttributeError):
                        log.debug("unreadable line in %s: %r", path, line[:200])
                previous.add(rows)
    except OSError as exc:
        log.debug("cannot read %s: %s", path, exc)
    if size != info.bytes or digest.hexdigest() != info.sha256:
        report_damage(path)


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
