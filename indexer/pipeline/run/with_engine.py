"""A run whose tree changed: the engine stages the output (in an event loop), then the
run commits it; damage to the state met mid-run starts the staging over."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import anyio
import orjson

from indexer.errors import StateDamaged
from indexer.pipeline.engines import engine
from indexer.pipeline.engines.context import Pools, RunContext
from indexer.pipeline.incremental.state import State
from indexer.pipeline.output.dedup import decide
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.output.staging import MANIFEST, prepare_staging
from indexer.pipeline.run.begin import Begun, RunSpec
from indexer.pipeline.run.commit import commit_run
from indexer.pipeline.run.interrupts import Interrupts
from indexer.pipeline.run.summary import RunSummary
from indexer.pipeline.walk.walker import Entry, policy_for

if TYPE_CHECKING:
    from indexer.pipeline.run.progress import Progress


async def stage_and_commit(
    spec: RunSpec, begun: Begun, interrupts: Interrupts, pools: Pools | None = None
) -> RunSummary:
    """Stage with the configured engine (the local one on `pools`, when lent), then
    commit; return the summary.

    A signal stops the staging (`Interrupted`, nothing committed); once the commit
    begins, it runs to its end, shielded, whatever arrives.
    """
    with interrupts.stoppable():
        staged = await _stage(spec, begun, pools)
    interrupts.commit_begins()
    with anyio.CancelScope(shield=True):
        commit = partial(commit_run, spec, begun, staged, sweep=True)
        summary = await anyio.to_thread.run_sync(commit)
    return summary


async def _stage(spec: RunSpec, begun: Begun, pools: Pools | None) -> Staged:
    """Run the engine into `begun.staging`; once more on a new state, extracting
    everything, when the state turns out damaged."""
    ctx = RunContext(
        source=spec.source,
        staging=begun.staging,
        config=spec.config,
        registry=spec.registry,
        state=begun.state,
        previous=begun.previous,
        previous_output=None if spec.config.full else begun.previous_output,
        walked=begun.walked,
        pools=pools,
    )
    try:
        return await _deduplicated(spec, begun, await _with_progress(spec, ctx))
    except Exception as exc:
        damage = _damage(exc)
        if damage is None:
            raise
    # A damaged page met mid-run: start over on a new state, extracting all.
    old = begun.state
    await anyio.to_thread.run_sync(old.discard, damage)
    begun.staging = await anyio.to_thread.run_sync(prepare_staging, spec.out)
    begun.state = await anyio.to_thread.run_sync(partial(State, old.path, reuse=False))
    ctx = replace(ctx, staging=begun.staging, state=begun.state, walked=None)
    return await _deduplicated(spec, begun, await _with_progress(spec, ctx))


async def _deduplicated(spec: RunSpec, begun: Begun, staged: Staged) -> Staged:
    """`staged` with its duplicates decided, in walk order (`dedup.decide`)."""
    decided = partial(decide.apply, begun.staging, staged, spec.config, begun.previous)
    return await anyio.to_thread.run_sync(decided)


async def _with_progress(spec: RunSpec, ctx: RunContext) -> Staged:
    """Run the engine, with a progress line on a terminal."""
    chosen = engine(spec.config.engine)
    if not spec.progress:
        return await chosen.stage(ctx)
    # Imported here: only a run on a terminal draws one.
    from indexer.pipeline.run.progress import Progress

    bar = Progress(estimate=_previous_files(spec))
    walked = ctx.walked or spec.source.walk(policy_for(spec.config, spec.registry))
    async with anyio.create_task_group() as tg:
        tg.start_soon(bar.run)
        counted = replace(ctx, on_progress=bar, walked=_counted(walked, bar))
        staged = await chosen.stage(counted)
        tg.cancel_scope.cancel()
    return staged


def _counted(walked: Iterator[Entry], bar: Progress) -> Iterator[Entry]:
    """`walked`, giving `bar` its total once it ends: the engine's own walk is counted,
    never a second one (a tree of a million files would be listed and stat'ed twice)."""
    count = 0
    for entry in walked:
        count += 1
        yield entry
    bar.total = count


def _previous_files(spec: RunSpec) -> int | None:
    """The files the committed output holds (the line's total until the walk ends), or
    None when there is none readable."""
    try:
        return int(orjson.loads((spec.out / MANIFEST).read_bytes())["counts"]["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _damage(exc: BaseException) -> StateDamaged | None:
    """The `StateDamaged` in `exc` or in its (nested) exception groups, if any."""
    if isinstance(exc, StateDamaged):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _damage(inner)) is not None:
                return found
    return None
