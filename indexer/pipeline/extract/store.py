"""Storing finished outputs in the incremental state: buffered, one transaction at a time.

A failure from the isolation limits (a crash, a timeout, out of memory) is first
stored under a key no lookup asks for (`RETRY`), so that the next run tries the
file again; only the same failure twice is kept like any output.
"""

from __future__ import annotations

import time

import anyio
import orjson

from indexer.pipeline.incremental.state import FileRow, Known, State
from indexer.pipeline.output.records import Rendered
from indexer.pipeline.output.stored import encode
from indexer.pipeline.output.units import POOL_FAILURES
from indexer.pipeline.walk.walker import Entry

_FLUSH_EVERY = 0.5
"""Seconds between stores: a commit rewrites every index page it touches, so one
transaction per half second, not one per batch. A killed run loses at most this much."""
_FLUSH_BYTES = 32 << 20
"""Store sooner when the buffered outputs reach this size (memory bound)."""

RETRY = "/retry"
"""Suffix of the key under which a failure from the isolation limits (a crash, a
timeout, out of memory) is first stored. No lookup asks for such a key, so the
next run extracts the file again, as a fresh run would: a failure of a loaded
machine may not come back. When it fails the same way, with the same output,
under the same key, the failure is stored under its key and reused like any
output, until the file, the extractor or the limits change (an isolated extractor's
`--timeout` or `--max-memory` gives another key; a general one's failure depends on
its workers' limits, `incremental.limits`), or `--full`. A "/" never occurs in
a key: the extension it ends with is part of a file name."""


class Store:
    """Finished outputs waiting to be stored in `state`, and the count of files the
    next run must do again (`redo`)."""

    def __init__(self, state: State, tag: str) -> None:
        self.state = state
        self.tag = tag
        """The packing this run renders under (`CacheKeys.tag`)."""
        self._rows: list[FileRow] = []
        self._bytes = 0
        self._flushed = time.monotonic()
        self.redo = 0
        """Files extracted or read with no output stored (failures from the isolation
        limits, read errors): the next run does them again, so a tree holding one is
        never re-committed as unchanged (`unchanged.py`)."""

    def add(
        self,
        entry: Entry,
        sha256: str,
        key: str,
        docs: tuple[Rendered, ...],
        deps: tuple[str, ...],
        before: Known | None,
        blocks: bytes,
        *,
        settled: bool = False,
    ) -> None:
        """Buffer a file's output, and the `blocks` it was packed from, for the next
        flush. A failure from the isolation limits is stored under its key only when
        `settled` (found stored under it) or when `before`, what the state held for the
        file, is the same failure stored once (see `RETRY`)."""
        output = encode(docs, self.tag, blocks)
        if not (settled or _cacheable(docs) or _failed_alike(before, key, output)):
            key += RETRY
            self.redo += 1
        self._rows.append(FileRow(entry, sha256, key, output, deps))
        self._bytes += sum(map(len, output))

    async def maybe_flush(self) -> None:
        """Store the buffer when it is half a second old or large."""
        if time.monotonic() - self._flushed >= _FLUSH_EVERY or self._bytes >= _FLUSH_BYTES:
            await self.flush()

    async def flush(self) -> None:
        """Store the buffered outputs, in one thread hop and one transaction."""
        rows, self._rows, self._bytes = self._rows, [], 0
        self._flushed = time.monotonic()
        if rows:
            await anyio.to_thread.run_sync(self.state.record, rows)


def _cacheable(docs: tuple[Rendered, ...]) -> bool:
    """False for outputs with failures from the isolation limits (see `RETRY`)."""
    return not any(d.status == "failed" and pool_failed(d) for d in docs)


def _failed_alike(before: Known | None, key: str, output: list[bytes | bytearray]) -> bool:
    """True when the state held this very failure for the file, stored once (`RETRY`)."""
    return before is not None and before.key == key + RETRY and before.output == b"".join(output)


def pool_failed(doc: Rendered) -> bool:
    """True when `doc` records a failure from the isolation limits (`POOL_FAILURES`)."""
    reason = orjson.loads(doc.line)["reason"]
    return reason in POOL_FAILURES
