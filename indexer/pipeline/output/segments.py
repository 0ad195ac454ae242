"""Segments: the walk entries between two shard boundaries, and taking one whole.

A segment's shards hold exactly its entries' documents, since boundaries depend only on
path hashes (`boundaries`). When a segment holds only plain files (no skip, no mailbox,
no message) and none of its documents failed, the writer notes on the layout line of its
last shard a summary (`"seg"`): a digest of its entries' walk facts (path, version token, as
`tree.batch_digest` reads them) under this run's config, cache keys and extractor
versions, its shard count and its tallies with its document paths. A later run whose
walk gives a segment with the same digest takes that segment whole (`Whole`): its shard
files are linked once they match their manifest entries, its tallies added from the
summary, and none of its files is looked up, read or rendered. The version rule is
the state's own (`Entry.version`): a file changed since has another digest.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.output.previous import LAYOUT
from indexer.pipeline.output.staging import MANIFEST, FileInfo
from indexer.pipeline.output.verify import intact
from indexer.pipeline.walk.entry import Entry

log = logging.getLogger(__name__)

SEG = "seg"
"""The key of a segment's summary on its last shard's layout line."""


def plain(entry: Entry) -> bool:
    """Whether a segment holding `entry` may be summarised: a file to extract, not a
    skip, a mailbox or a message."""
    return entry.skip is None and entry.data is None and not entry.holds


def segment_digest(entries: Sequence[Entry], salt: bytes) -> str | None:
    """The digest of a segment's walk facts under `salt` (its entries `plain`); None for
    a fact orjson cannot render (a token that is not text)."""
    facts = [(e.rel, e.version, e.mail) for e in entries]
    try:
        return hashlib.blake2b(salt + orjson.dumps(facts), digest_size=16).hexdigest()
    except TypeError:
        return None


@dataclass(frozen=True, slots=True)
class OldFile:
    """A file of the previous generation, with its manifest entry."""

    path: Path
    info: FileInfo


@dataclass(frozen=True, slots=True)
class Whole:
    """A segment of the previous generation to take whole: each shard's chunk and
    document files with its layout line, and the segment's summary."""

    shards: tuple[tuple[OldFile, OldFile, dict[str, Any]], ...]
    seg: dict[str, Any]
    entries: int


class PreviousSegments:
    """The summarised segments of the generation in `folder`, by digest; none unless
    its manifest's sha256 is `manifest_sha256` (the one the state noted)."""

    def __init__(self, folder: Path, manifest_sha256: str) -> None:
        self.folder = folder
        self._index: dict[str, tuple[int, int]] = {}
        """Where each summarised segment's shards' layout lines begin, and how many they
        are, by its digest: read again when taken (the lines of a million files' layout
        are 70 MB; their offsets a few KB)."""
        self._infos: dict[str, FileInfo] = {}
        try:
            raw = (folder / MANIFEST).read_bytes()
            if hashlib.sha256(raw).hexdigest() != manifest_sha256:
                return  # the state was not noted with this output
            manifest = orjson.loads(raw)
            for entry in [*manifest["shards"], *manifest["documents"]]:
                self._infos[entry["name"]] = FileInfo(**entry)
            self._read_layout(folder / LAYOUT)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.debug("no whole segments from %s: %s", folder, exc)
            self._index = {}

    def _read_layout(self, path: Path) -> None:
        starts: list[int] = []
        """The offsets of the lines since the last summary."""
        at = 0
        with open(path, "rb") as handle:
            for line in handle:
                starts.append(at)
                at += len(line)
                if b'"seg":' not in line:
                    continue
                seg = orjson.loads(line)[SEG]
                count = int(seg["shards"])
                if 0 < count <= len(starts):
                    self._index[str(seg["digest"])] = (starts[-count], count)
                starts = []

    def whole(self, digest: str, entries: int) -> Whole | None:
        """The segment `digest`, when its files are all there and match their manifest
        entries; else None (a damaged one is reported by the slow path that rebuilds it).
        Blocking: it hashes the files."""
        found = self._index.pop(digest, None)
        if found is None:
            return None
        try:
            lines = _lines(self.folder / LAYOUT, *found)
        except (OSError, ValueError, KeyError, TypeError):  # the file changed since
            return None
        if lines[-1].get(SEG, {}).get("digest") != digest:
            return None
        shards = []
        for entry in lines:
            name = str(entry["name"])
            files = self._file(name), self._file(name.replace("chunks-", "documents-", 1))
            if None in files:
                return None
            chunks, documents = files
            assert chunks is not None and documents is not None
            shards.append((chunks, documents, entry))
        for chunks, documents, _ in shards:
            if not (intact(chunks.path, chunks.info) and intact(documents.path, documents.info)):
                return None
        return Whole(tuple(shards), shards[-1][2][SEG], entries)

    def _file(self, name: str) -> OldFile | None:
        info = self._infos.get(name)
        return None if info is None else OldFile(self.folder / name, info)


def _lines(layout: Path, at: int, count: int) -> list[dict[str, Any]]:
    """The `count` layout lines of `layout` from offset `at`, parsed. Raises OSError,
    ValueError when they cannot be read."""
    with open(layout, "rb") as handle:
        handle.seek(at)
        lines = [handle.readline() for _ in range(count)]
    return [orjson.loads(line) for line in lines]


def link_or_copy(src: Path, dst: Path) -> None:
    """Hard-link `src` as `dst`; copy it where links fail (another filesystem)."""
    try:
        os.link(src, dst)
    except OSError as exc:
        log.debug("cannot link %s (%s); copying it", src, exc)
        shutil.copyfile(src, dst)
