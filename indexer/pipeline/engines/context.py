"""The seam between a run and its engines: `stage(ctx: RunContext) -> Staged`.

An engine extracts the walk of `ctx.source` and writes the output files into
`ctx.staging`; the run commits them. Engines: `local` (this machine's process
pools) and `dask` (partitions on a dask cluster); both stage the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.config import Config
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.changes import Previous
from indexer.pipeline.walk.source import Source
from indexer.pipeline.walk.walker import Entry
from indexer.registry import Registry

if TYPE_CHECKING:  # a re-run over an unchanged tree never imports the pools
    from indexer.procpool.pool import WorkerPool

Pools = tuple["WorkerPool", "WorkerPool"]
"""The open (general, isolated) process pools an engine stages on."""
OnProgress = Callable[[str, Any], None]
"""Progress events: `walked` (a count), `started` (paths), `reading` / `read` (paths a
process has taken / given back), `arrived` (`FileOutcome`s, as they come back),
`done` (a `FileOutcome`, in walk order), `part` (a dask partition's `Tally`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunContext:
    """What an engine is given for one run, fixed before it starts."""

    source: Source
    """Where the documents come from (`walk.source`)."""
    staging: Path
    """An empty folder for the engine's files (the engine commits nothing)."""
    config: Config
    registry: Registry
    state: State | None = None
    """The incremental state: outputs to reuse and to store (None: neither)."""
    previous: Previous | None = None
    """The committed documents' fingerprints by path, to write `changes.ndjson`
    against (`changes.load_previous`; maybe still to read, `changes.Deferred`); None:
    no changes file."""
    previous_output: Path | None = None
    """The committed generation folder whose unchanged shards may be linked."""
    walked: Iterator[Entry] | None = None
    """The walk of `source`, when the run has begun it (else the engine walks)."""
    on_progress: OnProgress | None = None
    """Receives progress events (`OnProgress`)."""
    pools: Pools | None = None
    """Open pools lent by the caller (a server's, kept from run to run); None: the
    local engine opens pools of its own for the run and closes them after it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stretch:
    """A contiguous stretch of the walk to stage: all of it, or one dask partition."""

    entries: Iterator[Entry]
    first_seq: int = 0
    """The walk position of its first entry. A partition's begins a shard
    (`boundaries.partitions`), so that its shards are the whole walk's."""
    prefix: str = ""
    """Prefix of the names of the files it writes (a partition's)."""
