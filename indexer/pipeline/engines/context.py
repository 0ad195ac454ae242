"""The seam between a run and its engines: `stage(ctx: RunContext) -> Staged`.

An engine extracts the walk of `ctx.source` and writes the output files into
`ctx.staging`; the run commits them. Engines: `local` (this machine's process
pools) and `dask` (partitions on a dask cluster); both stage the same bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.config import Config
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.walk.walker import Entry
from indexer.registry import Registry

OnProgress = Callable[[str, Any], None]
"""Progress events: `walked` (a count), `started` (paths), `done` (a `FileOutcome`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunContext:
    """What an engine is given for one run, fixed before it starts."""

    source: Path
    staging: Path
    """An empty folder for the engine's files (the engine commits nothing)."""
    config: Config
    registry: Registry
    state: State | None = None
    """The incremental state: outputs to reuse and to store (None: neither)."""
    previous: dict[str, int] | None = None
    """The committed documents' fingerprints by path, to write `changes.ndjson`
    against (`changes.load_previous`); None: no changes file."""
    previous_output: Path | None = None
    """The committed generation folder whose unchanged shards may be linked."""
    walked: Iterator[Entry] | None = None
    """The walk of `source`, when the run has begun it (else the engine walks)."""
    on_progress: OnProgress | None = None
    """Receives progress events, for engines that report them (`Engine.progress`)."""


@dataclass(frozen=True, slots=True)
class Engine:
    """An engine: its `stage` function, and whether it reports progress events."""

    stage: Callable[[RunContext], Awaitable[Staged]]
    progress: bool


def engine(name: str) -> Engine:
    """The engine called `name` (`local` or `dask`, as `Config.engine` allows).

    Imported on demand: a re-run over an unchanged tree needs no engine, and the
    local one brings the pools, the extractors and the mail handling with it.
    """
    if name == "dask":
        from indexer.pipeline.engines.dask.driver import stage as on_dask

        return Engine(on_dask, progress=False)
    from indexer.pipeline.engines.local import stage as local

    return Engine(local, progress=True)
