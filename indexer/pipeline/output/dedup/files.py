"""The staged files the duplicate pass reads and rewrites, and `changes.ndjson` again."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.output.changes import CHANGES, ChangeTracker, seen_lines
from indexer.pipeline.output.dedup.texthash import encoded_words, own_text
from indexer.pipeline.output.prevdocs import PreviousDocs

_READ_HINT = 1 << 20
_DOC_ID = slice(7, 31)
"""Where a chunk line holds its doc id: each opens `{"id":"<doc id>:<n>"` (`records`)."""


def lines(path: Path) -> Iterator[bytes]:
    """The lines of `path`, read a megabyte at a time."""
    with open(path, "rb") as handle:
        while found := handle.readlines(_READ_HINT):
            yield from found


def chunks_by_doc(path: Path) -> dict[str, list[bytes]]:
    """The chunk lines of the shard `path`, by doc id."""
    found: dict[str, list[bytes]] = {}
    for line in lines(path):
        found.setdefault(line[_DOC_ID].decode(), []).append(line)
    return found


def words_of(chunk_lines: list[bytes]) -> list[bytes]:
    """The normalised words of a document's chunks (UTF-8), each chunk's context prefix
    left out (`texthash`)."""
    found: list[bytes] = []
    for line in chunk_lines:
        record = orjson.loads(line)
        found.extend(encoded_words(own_text(record["text"], record["meta"].get("context"))))
    return found


def kept(path: Path, dropped: set[str], replaced: dict[str, list[bytes]]) -> Iterator[bytes]:
    """The chunk lines of `path` but those of the documents in `dropped` (doc ids), and
    for a document in `replaced` its lines given there, in place of its own."""
    gone = {d.encode() for d in (*dropped, *replaced)}
    new = {d.encode(): r for d, r in replaced.items()}
    for line in lines(path):
        did = line[_DOC_ID]
        if did not in gone:
            yield line
        elif did in new:  # at its first line
            yield from new.pop(did)


def write(path: Path, records: Iterable[bytes]) -> dict[str, Any]:
    """Write `records` as `path` (a new file renamed over it: the old one may be a hard
    link into the previous generation), fsynced; return its manifest entry."""
    digest, size, count = hashlib.sha256(), 0, 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as handle:
        for line in records:
            handle.write(line)
            digest.update(line)
            size += len(line)
            count += 1
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return {"name": path.name, "records": count, "bytes": size, "sha256": digest.hexdigest()}


def track_changes(staging: Path, documents: list[str], previous: PreviousDocs) -> dict[str, int]:
    """Write `changes.ndjson` again from the final document shards (names in `staging`)
    against `previous` (closed then); return its counts."""
    tracker = ChangeTracker(previous)

    def changed() -> Iterator[bytes]:
        for name in documents:
            with open(staging / name, "rb") as handle:
                while found := handle.readlines(_READ_HINT):
                    yield from tracker.see_all(seen_lines(found))
        yield from tracker.removed()

    try:
        write(staging / CHANGES, changed())
    finally:
        tracker.close()
    return dict(tracker.counts)
