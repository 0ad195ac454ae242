"""Reading a committed generation the way a sink does: by the files its manifest lists.

A document record is in `documents-NNNNN.ndjson`, and its chunks in `chunks-NNNNN.ndjson`
of the same number or, for a document split past `shard_bytes`, also in the chunk shards
just before it (docs/architecture.md, "Output and the commit").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_tz
from pathlib import Path
from typing import Any

import orjson

__all__ = ["Doc", "changes", "chunks_of", "document_date", "document_lines", "documents"]

_NUMBER = re.compile(r"-(\d+)\.ndjson$")
_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?![\d])")


@dataclass(frozen=True, slots=True, kw_only=True)
class Doc:
    """What a sink keeps of a document record."""

    doc_id: str
    path: str
    kind: str | None
    status: str
    digest: str
    """The record's digest: it changes whenever the document's record or chunks do."""
    chunks: int
    shard: int
    """The number of the documents shard that holds it."""
    date: str
    """The document's day, YYYY-MM-DD (`document_date`); "" when it states none."""


def document_date(metadata: Mapping[str, Any]) -> str:
    """The day a document is of, as YYYY-MM-DD: its `date` (a mail's Date header, a web
    page's date), else its `modified`, else its `created` time, the first of them that
    reads as a date; "" when none does. The day is the one the value itself states, in
    its own time zone (a mail sent at 23:30 -0400 is of that day, not of UTC's next)."""
    for key in ("date", "modified", "created"):
        value = metadata.get(key)
        if isinstance(value, str) and (day := _day(value.strip())):
            return day
    return ""


def _day(value: str) -> str:
    """YYYY-MM-DD of an ISO 8601 value or an RFC 5322 date; "" for anything else."""
    if iso := _ISO_DAY.match(value):
        year, month, day = (int(g) for g in iso.groups())
    elif parsed := parsedate_tz(value):
        year, month, day = parsed[:3]
    else:
        return ""
    return f"{year:04d}-{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else ""


def _listed(generation: Path, key: str) -> list[tuple[int, Path]]:
    manifest = orjson.loads((generation / "manifest.json").read_bytes())
    found = []
    for entry in manifest[key]:
        number = _NUMBER.search(entry["name"])
        found.append((int(number[1]) if number else 0, generation / entry["name"]))
    return sorted(found)


def document_lines(generation: Path) -> Iterator[tuple[Doc, bytes]]:
    """Every document of `generation` with its record's line (JSON, no newline), in
    walk order; raises OSError, ValueError."""
    for number, path in _listed(generation, "documents"):
        with open(path, "rb") as handle:
            for line in handle:
                record = orjson.loads(line)
                doc = Doc(
                    doc_id=record["doc_id"], path=record["path"], kind=record["kind"],
                    status=record["status"], digest=record["digest"], chunks=record["chunks"],
                    shard=number,
                    date=document_date(record["metadata"]),
                )  # fmt: skip
                yield doc, line.rstrip(b"\n")


def documents(generation: Path) -> Iterator[Doc]:
    """Every document of `generation`, in walk order; raises OSError, ValueError."""
    for doc, _ in document_lines(generation):
        yield doc


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
