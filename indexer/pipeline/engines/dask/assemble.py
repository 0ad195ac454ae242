"""The dask driver's side of a run: partitions' staged files in, the local engine's files out.

Each partition arrives as a `PartResult`: the folder its successful attempt wrote
(`<prefix>chunks-00000.ndjson`, `<prefix>documents-00000.ndjson`, ..., `.layout.ndjson`)
and their manifest entries. Taken in partition order, the shards are renamed to the
global sequence (`chunks-00000.ndjson`, `documents-00000.ndjson`, ...; renaming keeps
their bytes, so their entries hold), their layout lines are renamed alike, and the
documents are read while `ChangeTracker` writes `changes.ndjson`: file for file what
the local engine writes, because a partition's shard boundaries are the local
engine's (`ShardWriter`). The layout lets the next run link unchanged shards
and recognise an unchanged tree, as after a local run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, BinaryIO

import anyio
import orjson

from indexer.pipeline.output.changes import CHANGES, ChangeTracker, seen_lines
from indexer.pipeline.output.docshards import DOCUMENTS_PATTERN
from indexer.pipeline.output.ocrcounts import RunOcr
from indexer.pipeline.output.prevdocs import PreviousDocs
from indexer.pipeline.output.previous import LAYOUT
from indexer.pipeline.output.shards import SHARD_PATTERN, layout_line
from indexer.pipeline.output.staged import Staged, Tally
from indexer.pipeline.output.staging import FileInfo, NdjsonFile

_READ_HINT = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class PartResult:
    """What a worker reports for one partition: small metadata, never the chunks."""

    index: int
    """The partition's number, in walk order."""
    folder: Path
    """The attempt folder holding the partition's files; other attempts are ignored."""
    documents: tuple[FileInfo, ...]
    """Its document shards, one beside each chunk shard."""
    shards: tuple[FileInfo, ...]
    tally: Tally
    redo: int = 0
    """Files it stored no output for (`BatchExtractor.redo`)."""


class Assembler:
    """Folds `PartResult`s, in partition order, into one staged output in `staging`."""

    def __init__(self, staging: Path, previous: PreviousDocs | None) -> None:
        self._staging = staging
        self._documents: list[FileInfo] = []
        self._changes = NdjsonFile(staging / CHANGES) if previous is not None else None
        self._tracker = ChangeTracker(PreviousDocs() if previous is None else previous)
        self._shards: list[FileInfo] = []
        self._layout = NdjsonFile(staging / LAYOUT)
        self._next = 0
        self.tally = Tally()
        self.redo = 0
        """Files the partitions stored no output for: the next run does them again."""

    async def add(self, part: PartResult) -> None:
        """Append the next partition. Raises RuntimeError when it is out of order or
        its files disagree with its report (a shared filesystem that lost a write)."""
        if part.index != self._next:
            raise RuntimeError(f"partition {part.index} arrived, expected {self._next}")
        layout = await anyio.to_thread.run_sync(_layout, part.folder / LAYOUT)
        names = [entry["name"] for entry in layout]
        if names != [info.name for info in part.shards] or len(part.documents) != len(names):
            raise RuntimeError(f"partition {part.index}: its layout does not list its shards")
        for info, documents, entry in zip(part.shards, part.documents, layout, strict=True):
            n = len(self._shards)
            name, documents_name = SHARD_PATTERN.format(n), DOCUMENTS_PATTERN.format(n)
            for src, dst in ((info, name), (documents, documents_name)):
                await anyio.to_thread.run_sync(
                    _move, part.folder / src.name, src, self._staging / dst
                )
            self._shards.append(replace(info, name=name))
            self._documents.append(replace(documents, name=documents_name))
            await self._layout.write(layout_line(name, entry["docs"], entry.get("seg")))
            lines = await self._track(self._staging / documents_name)
            if lines != documents.records:
                raise RuntimeError(
                    f"partition {part.index}: {lines} lines in {documents.name}, "
                    f"its worker reported {documents.records}"
                )
        merge(self.tally, part.tally)
        self.redo += part.redo
        self._next += 1

    async def _track(self, path: Path) -> int:
        """Compare a document shard's records with the previous commit; return their count.
        Without a previous commit there is nothing to compare: the lines are only counted."""
        changes = self._changes
        if changes is None:
            return await anyio.to_thread.run_sync(_lines, path)
        handle: BinaryIO = await anyio.to_thread.run_sync(open, path, "rb")
        count = 0
        try:
            while lines := await anyio.to_thread.run_sync(handle.readlines, _READ_HINT):
                for change in self._tracker.see_all(seen_lines(lines)):
                    await changes.write(change)
                count += len(lines)
        finally:
            handle.close()
        return count

    async def finish(self) -> Staged:
        """Close the output files; return what is staged, as the local engine does."""
        await self._layout.close()
        documents = [d.name for d in self._documents]
        files = [*documents, *(s.name for s in self._shards), LAYOUT]
        if self._changes is not None:
            for line in self._tracker.removed():
                await self._changes.write(line)
            files.append((await self._changes.close()).name)
            self.tally.changes = dict(self._tracker.counts)
        self._tracker.close()
        manifest_files = {
            "documents": [d.to_dict() for d in self._documents],
            "shards": [s.to_dict() for s in self._shards],
        }
        return Staged(files=files, manifest_files=manifest_files, tally=self.tally, redo=self.redo)


def merge(total: Tally, part: Tally) -> None:
    """Add a partition's counts to `total`: numbers and per-key counts add up, and the
    slowest files are the overall top ten."""
    for spec in fields(Tally):
        mine, theirs = getattr(total, spec.name), getattr(part, spec.name)
        if isinstance(mine, int):
            setattr(total, spec.name, mine + theirs)
        elif isinstance(mine, dict):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        elif isinstance(mine, RunOcr):
            mine.merge(theirs)
        else:
            setattr(total, spec.name, sorted([*mine, *theirs], reverse=True)[:10])


def _layout(path: Path) -> list[dict[str, Any]]:
    """A partition's layout lines, in shard order."""
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _lines(path: Path) -> int:
    """The number of lines in the file at `path`."""
    count = 0
    with open(path, "rb") as handle:
        while block := handle.read(_READ_HINT):
            count += block.count(b"\n")
    return count


def _move(src: Path, info: FileInfo, dst: Path) -> None:
    size = src.stat().st_size
    if size != info.bytes:
        raise RuntimeError(f"{src} has {size} bytes, its worker reported {info.bytes}")
    os.replace(src, dst)
