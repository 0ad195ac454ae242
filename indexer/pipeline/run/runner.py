"""The pipeline's public face, `run()` and `index()`, and the one orchestration of a run.

    check the folders -> lock OUT -> begin: tidy OUT, open the state, compare the walk
      -> the tree did not change: commit the previous output again (no event loop)
      -> it changed: in an event loop, the engine stages the output; commit it
    -> the state notes the commit; run.json

The CLI calls `execute` as `run()` does, with its signal handling (`Interrupts`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine
from dataclasses import fields
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from indexer.config import Config, load_config
from indexer.pipeline.output.staging import staging_discarded
from indexer.pipeline.run.begin import RunSpec, begin
from indexer.pipeline.run.commit import commit_run
from indexer.pipeline.run.interrupts import Interrupts
from indexer.pipeline.run.lock import hold
from indexer.pipeline.run.sinking import apply_sinks, configured, manifest_sha256
from indexer.pipeline.run.summary import RunSummary
from indexer.pipeline.walk.source import LocalFolder, Source
from indexer.registry import Registry, default_registry

if TYPE_CHECKING:  # a re-run over an unchanged tree never imports the engines
    from indexer.pipeline.engines.context import Pools

__all__ = ["RunSummary", "execute", "index", "run"]

T = TypeVar("T")
Enter = Callable[[Callable[[], Coroutine[Any, Any, T]]], T]
"""Runs an async function in an event loop and returns its result."""


def run(
    source: str | os.PathLike[str] | Source,
    out: str | os.PathLike[str],
    config: Config | None = None,
    *,
    registry: Registry | None = None,
    progress: bool = False,
    **options: Any,
) -> RunSummary:
    """Index every file under `source` into `out`; return the committed run's summary.

    `source` is a folder, or any `Source` (`pipeline.walk.source`: a listing with
    version tokens, and the entries' bytes). `options` are config keys laid over
    `config` (`run(src, out, workers=1, ocr_mode="off")`), checked as a config file's are.

    Raises `ConfigError` for an unusable source or output folder (or a SOURCE that
    holds nothing at all over an OUT that indexes documents, unless
    `config.allow_empty`), `LockHeld` when another run holds `out`, and OSError (or
    any other infrastructure error) when the run cannot complete, in which case
    nothing is committed and `out`'s previous output is intact. Starts an event loop
    of its own only when the tree changed.
    """
    config = with_options(config, options)
    return execute(source, out, config, registry=registry, progress=progress)


def with_options(config: Config | None, options: dict[str, Any]) -> Config:
    """`config` (or the defaults) with `options` laid over it; raises `ConfigError`
    for an unknown key or a bad value."""
    if not options:
        return config or Config()
    base = {} if config is None else {f.name: getattr(config, f.name) for f in fields(Config)}
    return load_config(None, {**base, **options})


async def index(
    source: str | os.PathLike[str] | Source,
    out: str | os.PathLike[str],
    config: Config | None = None,
    *,
    registry: Registry | None = None,
    progress: bool = False,
    **options: Any,
) -> RunSummary:
    """`run()` for async callers: its blocking steps run in a worker thread and the
    engine in the caller's event loop. Cancelled, it stops before its commit."""
    call = partial(
        execute, source, out, with_options(config, options), registry=registry,
        progress=progress,
        enter=anyio.from_thread.run,
    )  # fmt: skip
    return await anyio.to_thread.run_sync(call)


def execute(
    source: str | os.PathLike[str] | Source,
    out: str | os.PathLike[str],
    config: Config | None,
    *,
    registry: Registry | None,
    progress: bool,
    enter: Enter[RunSummary] | None = None,
    interrupts: Interrupts | None = None,
    pools: Pools | None = None,
) -> RunSummary:
    """Run one indexing run (blocking); `enter` runs the engine's event loop (by default
    a loop of its own, `anyio.run`). `pools`, open (general, isolated) pools of the
    loop `enter` runs in, are lent to the local engine instead of pools of the run's own.

    With `interrupts` installed, a signal before the commit raises `Interrupted`
    (nothing committed); one after the commit began is only noted in it. Raises
    as `run()` does.
    """
    interrupts = interrupts or Interrupts()
    where = source if isinstance(source, Source) else LocalFolder(Path(source))
    spec = RunSpec.checked(
        where, Path(out), config or Config(), registry or default_registry(), progress=progress
    )
    sinks = configured(spec.config)
    with hold(spec.out), staging_discarded(spec.out):
        begun = begin(spec)
        previous = manifest_sha256(begun.previous_output)
        try:
            if begun.staged is not None:
                interrupts.commit_begins()
                summary = commit_run(spec, begun, begun.staged, sweep=False)
            else:
                # Imported here: a re-run over an unchanged tree needs no engine phase.
                from indexer.pipeline.run.with_engine import stage_and_commit

                engine = partial(stage_and_commit, spec, begun, interrupts, pools)
                summary = interrupts.looping(lambda: (enter or _own_loop)(engine))
        finally:
            begun.state.close()
        return apply_sinks(spec.out, sinks, previous, summary)


def _own_loop(fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run `fn` in an event loop of its own (`anyio` is looked into only when needed)."""
    return anyio.run(fn)
