"""A shard the duplicate pass rewrites, linked from the previous commit when unchanged.

A shard the pass altered loses its segment's summary (`decide`), so every later night
stages it again from the stored outputs and decides it again; where no decision in it
changed, the decided bytes are the previous commit's file of the same content. That
file is hard-linked in place of a new one, so a night writes only the shards its
changes touch, however many duplicates the tree holds elsewhere.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.output.dedup import files
from indexer.pipeline.output.staging import CURRENT, MANIFEST, FileInfo
from indexer.pipeline.output.verify import intact, listed_documents

log = logging.getLogger(__name__)


class Committed:
    """The previous commit's chunk and document shards by content (sha256, bytes);
    none when `out` has no readable commit."""

    def __init__(self, out: Path) -> None:
        self._folder = (out / CURRENT).resolve()
        self._files: dict[tuple[str, int], FileInfo] = {}
        try:
            manifest = orjson.loads((self._folder / MANIFEST).read_bytes())
            listed = [*(FileInfo(**s) for s in manifest["shards"]), *listed_documents(manifest)]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.debug("no committed shards to link from %s: %s", out, exc)
            return
        for info in listed:
            self._files.setdefault((info.sha256, info.bytes), info)

    def write(self, path: Path, records: Callable[[], Iterable[bytes]]) -> dict[str, Any]:
        """Put `records` (given anew by each call) at `path`: the committed file of
        these bytes linked there when it is intact, else the records written
        (`files.write`); return the manifest entry. Raises OSError."""
        if self._files:
            digest, size, count = hashlib.sha256(), 0, 0
            for line in records():
                digest.update(line)
                size += len(line)
                count += 1
            sha256 = digest.hexdigest()
            info = self._files.get((sha256, size))
            if info is not None and info.records == count and self._linked(info, path):
                return {"name": path.name, "records": count, "bytes": size, "sha256": sha256}
        return files.write(path, records())

    def _linked(self, info: FileInfo, path: Path) -> bool:
        """Whether the committed `info` was intact and is now linked as `path`."""
        old = self._folder / info.name
        if not intact(old, info):
            return False
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.unlink(missing_ok=True)
            os.link(old, tmp)
        except OSError as exc:  # another filesystem, no hard links: written instead
            log.debug("cannot link %s (%s); writing it", old, exc)
            return False
        os.replace(tmp, path)
        return True
