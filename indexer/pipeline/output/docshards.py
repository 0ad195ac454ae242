"""Document shards: `documents-NNNNN.ndjson` beside each `chunks-NNNNN.ndjson`.

A shard's document records are those of the walk entries whose chunks its chunk shard
holds (a document split over several chunk shards is in the last one's), so both grow
and change together. The records are held until the shard closes (up to `_HOLD`
bytes) and hashed: an old document shard with that sha256 whose bytes are these
(`verify.same_bytes`) is hard-linked, so an unchanged shard is not written again; any
other shard is written. A shard holding more than `_HOLD` goes to disk as it comes.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import anyio

from indexer.pipeline.output.previous import PreviousShards
from indexer.pipeline.output.staging import FileInfo, NdjsonFile
from indexer.pipeline.output.verify import same_bytes

log = logging.getLogger(__name__)

DOCUMENTS_PATTERN = "documents-{:05d}.ndjson"
DOCUMENTS_GLOB = "documents-*.ndjson"
"""Every document record of an output, in walk order when read in name order."""
_HOLD = 16 << 20


class DocumentShard:
    """One document shard being written (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.file = NdjsonFile(path)
        self._held: bytearray | None = bytearray()
        """The records so far, while the shard may still be linked; then None."""
        self._records = 0

    async def write(self, line: bytes) -> None:
        """Add one record line."""
        held = self._held
        if held is None:
            await self.file.write(line)
            return
        held += line
        self._records += 1
        if len(held) > _HOLD:  # too large to hold: written as it comes from now on
            self._release(held)
            await self.file.flush_if_full()

    def _release(self, held: bytearray) -> None:
        self.file.append(held, self._records)
        self._held = None

    async def close(self, previous: PreviousShards | None) -> FileInfo:
        """Link the old shard holding these very bytes, or write them; return the
        shard's manifest entry. A written shard's fsync runs on (`NdjsonFile.synced`)."""
        held = self._held
        if held is not None:
            linked = await self._linked(held, previous)
            if linked is not None:
                return linked
            self._release(held)
        return await self.file.close(sync_later=True)

    async def _linked(self, held: bytearray, previous: PreviousShards | None) -> FileInfo | None:
        if previous is None:
            return None
        sha256 = await anyio.to_thread.run_sync(_sha256, held)
        old = previous.documents(sha256, len(held), self.file.path.name)
        if old is None:
            return None
        if not await anyio.to_thread.run_sync(same_bytes, old, held):
            # Damaged: `changes.load_previous` reads every old document shard not taken
            # whole, and names this one in a warning.
            log.debug("%s is not what its manifest says; writing it", old)
            return None
        try:
            await anyio.to_thread.run_sync(os.link, old, self.file.path)
        except OSError as exc:  # another filesystem, no hard links: written instead
            log.debug("cannot link %s (%s); writing it", old, exc)
            return None
        self._held = bytearray()
        return FileInfo(
            name=self.file.path.name, records=self._records, bytes=len(held), sha256=sha256
        )


def _sha256(data: bytearray) -> str:
    return hashlib.sha256(data).hexdigest()
