"""The local engine: the whole walk staged on this machine's process pools (`flow`)."""

from __future__ import annotations

from dataclasses import replace

from indexer.config import Config
from indexer.pipeline.engines.context import Pools, RunContext, Stretch
from indexer.pipeline.engines.entries import marking_seen, walk_entries
from indexer.pipeline.engines.flow import stage_stretch
from indexer.pipeline.extract.calls import ISOLATED_PER_CALL
from indexer.pipeline.incremental.limits import general_memory_mb
from indexer.pipeline.incremental.tree import Digests
from indexer.pipeline.output.staged import Staged
from indexer.procpool.pool import WorkerPool


async def stage(ctx: RunContext) -> Staged:
    """Extract the walk of `ctx.source` on `ctx.pools` (or pools of its own) and stage
    the output in `ctx.staging`; return what was staged, with the digests of the walk."""
    tree = Digests()
    entries = walk_entries(ctx.source, ctx.config, ctx.registry, ctx.walked, tree)
    stretch = Stretch(entries=marking_seen(entries, ctx.state))
    if ctx.pools is not None:  # lent: open before this run, still open after it
        staged = await stage_stretch(ctx, ctx.pools, stretch)
    else:
        general, isolated = make_pools(ctx.config)
        async with general, isolated:
            staged = await stage_stretch(ctx, (general, isolated), stretch)
    return replace(staged, tree=tree.value)


def make_pools(config: Config) -> Pools:
    """The (general, isolated) process pools `config` asks for, not yet open."""
    memory_mb = general_memory_mb(config.max_file_bytes, config.max_memory_mb)
    general = WorkerPool(size=config.workers, name="extract", memory_limit_mb=memory_mb)
    # A call takes up to ISOLATED_PER_CALL files: recycle after `recycle_after` files.
    per_call = min(ISOLATED_PER_CALL, config.recycle_after)
    isolated = WorkerPool(
        size=config.pdf_workers,
        name="isolated",
        max_tasks_per_worker=max(1, config.recycle_after // per_call),
        memory_limit_mb=config.max_memory_mb,
    )
    return general, isolated
