"""Reading a committed generation the way a sink does: by the files its manifest lists.

A document record is in `documents-NNNNN.ndjson`, and its chunks in `chunks-NNNNN.ndjson`
of the same number or, for a document split past `shard_bytes`, also in the chunk shards
just before it (docs/architecture.md, "Output and the commit").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

__all__ = ["Doc", "changes", "chunks_of", "documents"]

_NUMBER = re.compile(r"-(\d+)\.ndjson$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Doc:
    """What a sink keeps of a document record."""

    doc_id: str
    path: str
    kind: str | None
    digest: str
    """The record's digest: it changes whenever the document's record or chunks do."""
    chunks: int
    shard: int
    """The number of the documents shard that holds it."""


def _listed(generation: Path, key: str) -> list[tuple[int, Path]]:
    manifest = orjson.loads((generation / "manifest.json").read_bytes())
    found = []
    for entry in manifest[key]:
        number = _NUMBER.search(entry["name"])
        found.append((int(number[1]) if number else 0, generation / entry["name"]))
    return sorted(found)


def documents(generation: Path) -> Iterator[Doc]:
    """Every document of `generation`, in walk order; raises OSError, ValueError."""
    for number, path in _listed(generation, "documents"):
        with open(path, "rb") as handle:
            for line in handle:
                record = orjson.loads(line)
                yield Doc(
                    doc_id=record["doc_id"], path=record["path"], kind=record["kind"],
                    digest=record["digest"], chunks=record["chunks"], shard=number,
                )  # fmt: skip


def changes(generation: Path) -> Iterator[dict[str, Any]]:
    """The records of the generation's `changes.ndjson` (change, path, doc_id)."""
    with open(generation / "changes.ndjson", "rb") as handle:
        for line in handle:
            yield orjson.loads(line)


def chunks_of(generation: Path, docs: Collection[Doc]) -> Iterator[dict[str, Any]]:
    """The chunk records of `docs`: each chunk shard that may hold one is read once,
    from its documents shard's number back while the document still lacks chunks."""
    wanted = {d.doc_id: d.chunks for d in docs if d.chunks}
    shards = dict(_listed(generation, "shards"))
    cursor = {d.doc_id: d.shard for d in docs if d.chunks}
    """The next shard to look in for each document still short of chunks."""
    found: dict[str, int] = {}
    while cursor:
        number = max(cursor.values())
        if number in shards:
            yield from _matching(shards[number], wanted, found)
        for doc_id in [d for d, at in cursor.items() if at == number]:
            if found.get(doc_id, 0) >= wanted[doc_id] or number == 0:
                del cursor[doc_id]
            else:
                cursor[doc_id] = number - 1


def _matching(
    path: Path, wanted: dict[str, int], found: dict[str, int]
) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as handle:
        for line in handle:
            record = orjson.loads(line)
            doc_id = record["doc_id"]
            if doc_id in wanted:
                found[doc_id] = found.get(doc_id, 0) + 1
                yield record
