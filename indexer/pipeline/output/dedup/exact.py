"""Exact duplicates, decided over the staged output in walk order (docs/dedup.md).

Both engines stage the same bytes for the same walk (every document with its chunks and
`duplicate_of` `""`), so the decisions are made after staging, as one pass over them in
walk order: the pass is a function of the staged bytes, and gives the same output for
any worker count, either engine, and a fresh or an incremental run.

A document with chunks is a duplicate when its content sha256, or else its normalised
text hash (`texthash`), is an earlier document's: its record names that document's
path in `duplicate_of`, and with `exact = "drop"` keeps no chunks (`chunks` 0, the
digest of none). The pass reads the document shards (not the chunk shards) and
rewrites only the shards that hold a duplicate. Those shards lose their segment's
summary, and the dropped documents leave their layout lines, so the next run neither
takes them whole nor links them: it writes them from the stored outputs (no
extraction) and decides again, as a fresh run would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.output.changes import CHANGES, Previous, load_previous
from indexer.pipeline.output.dedup import files
from indexer.pipeline.output.dedup.seen import Seen, keys
from indexer.pipeline.output.previous import LAYOUT
from indexer.pipeline.output.segments import SEG
from indexer.pipeline.output.staged import Staged

NO_CHUNKS = hashlib.sha256(b"").hexdigest()[:32]
"""The `digest` of a document with no chunk lines."""
MODES = ("drop", "mark", "off")


@dataclass(slots=True)
class _Shard:
    """One staged shard: its layout line and what the pass changed in it."""

    layout: dict[str, Any]
    lines: list[bytes] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)
    """Doc ids whose chunk lines go."""
    gone: set[str] = field(default_factory=set)
    """Their digests as staged: the layout's tags."""
    altered: bool = False

    @property
    def documents(self) -> str:
        return str(self.layout["name"]).replace("chunks-", "documents-", 1)


def apply(staging: Path, staged: Staged, mode: str, previous: Previous | None) -> Staged:
    """`staged` with its exact duplicates marked (and, with "drop", their chunks gone):
    the shard files in `staging` rewritten where they hold one, and the manifest
    entries, layout, tallies and `changes.ndjson` (against `previous`) to match.
    Blocking. Raises OSError when a staged file cannot be read or written."""
    if mode == "off" or staged.unchanged:
        return staged
    shards = [_Shard(orjson.loads(raw)) for raw in (staging / LAYOUT).read_bytes().splitlines()]
    seen, duplicates, dropped_chunks = Seen(), 0, 0
    try:
        for shard in shards:
            found, chunks = _decide(staging, shard, seen, drop=mode == "drop")
            duplicates += found
            dropped_chunks += chunks
    finally:
        seen.close()
    if not duplicates:
        return staged
    entries = _rewrite(staging, shards, staged.manifest_files)
    tally = replace(staged.tally)
    tally.chunks -= dropped_chunks
    tally.duplicates += duplicates
    if CHANGES in staged.files:
        tally.changes = files.track_changes(staging, _documents(staged), _previous(previous))
    return replace(staged, manifest_files=entries, tally=tally)


def _decide(staging: Path, shard: _Shard, seen: Seen, *, drop: bool) -> tuple[int, int]:
    """Decide each document of `shard` (its lines kept, changed ones replaced); return
    how many are duplicates and how many chunk lines they drop."""
    whole = {tag for tag, _ in shard.layout["docs"]}
    """Documents whose chunks are all in this shard: one split over shards is never
    dropped (its chunks are in shards already decided), only seen."""
    found = dropped = 0
    for line in files.lines(staging / shard.documents):
        record = orjson.loads(line)
        if record["duplicate_of"]:
            raise RuntimeError(f"{shard.documents}: a staged record is decided already")
        count = record["chunks"]
        ks = keys(record["sha256"], record["text_sha256"]) if count else []
        first = seen.first(ks) if record["digest"] in whole else None
        if first is None:
            seen.add(ks, record["path"])
            shard.lines.append(line)
            continue
        found += 1
        record["duplicate_of"] = first
        if drop:
            shard.dropped.add(record["doc_id"])
            shard.gone.add(record["digest"])
            record["chunks"], record["digest"] = 0, NO_CHUNKS
            dropped += count
        shard.lines.append(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE))
        shard.altered = True
    return found, dropped


def _rewrite(staging: Path, shards: list[_Shard], entries: dict[str, Any]) -> dict[str, Any]:
    """Write the altered shards and the layout; return the manifest entries to match."""
    infos = {e["name"]: e for e in [*entries["documents"], *entries["shards"]]}
    for shard in shards:
        if not shard.altered:
            continue
        infos[shard.documents] = files.write(staging / shard.documents, shard.lines)
        shard.lines = []
        if shard.dropped:
            name = str(shard.layout["name"])
            infos[name] = files.write(staging / name, files.kept(staging / name, shard.dropped))
            shard.layout["docs"] = [d for d in shard.layout["docs"] if d[0] not in shard.gone]
    files.write(staging / LAYOUT, list(_layout_lines(shards)))
    return {key: [infos[e["name"]] for e in listed] for key, listed in entries.items()}


def _layout_lines(shards: list[_Shard]) -> Iterator[bytes]:
    """The layout lines, a segment's summary left out when one of its shards changed."""
    for i, shard in enumerate(shards):
        seg = shard.layout.get(SEG)
        if seg is not None:
            span = shards[max(0, i + 1 - int(seg["shards"])) : i + 1]
            if any(s.altered for s in span):
                del shard.layout[SEG]
        yield orjson.dumps(shard.layout, option=orjson.OPT_APPEND_NEWLINE)


def _documents(staged: Staged) -> list[str]:
    return [str(e["name"]) for e in staged.manifest_files["documents"]]


def _previous(previous: Previous | None) -> Previous:
    """The previous commit's documents, read now when they are still to be read."""
    if previous is None:
        return Previous()
    return previous if previous.out is None else load_previous(previous.out)
