"""The engines, by name: `local` (this machine's process pools) and `dask` (a cluster).

Both meet the run at one seam, `stage(ctx: RunContext) -> Staged` (`context.py`), and
stage the same bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from indexer.pipeline.engines.context import RunContext
from indexer.pipeline.output.staged import Staged


@dataclass(frozen=True, slots=True)
class Engine:
    """An engine: its `stage` function (which reports progress events to
    `RunContext.on_progress`)."""

    stage: Callable[[RunContext], Awaitable[Staged]]


def engine(name: str) -> Engine:
    """The engine called `name` (`local` or `dask`, as `Config.engine` allows).

    Imported on demand: a re-run over an unchanged tree needs no engine, and the
    local one brings the pools, the extractors and the mail handling with it.
    """
    if name == "dask":
        from indexer.pipeline.engines.dask.driver import stage as on_dask

        return Engine(on_dask)
    from indexer.pipeline.engines.local import stage as local

    return Engine(local)
