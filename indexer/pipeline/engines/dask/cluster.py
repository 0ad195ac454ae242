"""The dask engine's cluster: connecting (or starting a local one), keeping `distributed`
quiet, and failing a run that has had no worker for `worker_wait` seconds."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import anyio

from indexer.config import Config
from indexer.errors import ConfigError, NoWorkers

if TYPE_CHECKING:
    from distributed import Client

LOCAL_CLUSTER: dict[str, Any] = {
    "threads_per_worker": 1,
    "processes": True,
    "dashboard_address": None,  # no bokeh dashboard ...
    "scheduler_kwargs": {"dashboard_address": ":0"},  # ... and its HTTP routes on a free port
}
"""`LocalCluster` options of the engine's own cluster (tests and benchmarks use them too)."""

WORKER_CONFIG = {"distributed.worker.profile.enabled": False}
"""Dask settings for the engine's own workers: the sampling profiler costs CPU for
nothing here. Set the same on the workers of a cluster of your own."""

CLOSE_TIMEOUT = 30.0
"""Seconds that closing the client or the cluster, or releasing the workers, may take."""
_POLL = 1.0
"""Seconds between two looks at the cluster's workers (at most; less for a short wait)."""


@asynccontextmanager
async def connect(config: Config) -> AsyncIterator[Client]:
    """A client of `config.scheduler`, or of a `LocalCluster` that lives as long as it.
    Both are closed even when the run is cancelled.

    Raises `ConfigError` when `distributed` is not installed.
    """
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ConfigError(
            "engine",
            f"engine = 'dask' needs dask[distributed]: pip install 'dask[distributed]' "
            f"(from a clone: pip install -e '.[dask]'): {exc}",
        ) from exc
    with _quiet_distributed(), dask.config.set(WORKER_CONFIG):
        cluster = None
        if config.scheduler is None:
            cluster = await LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=config.workers, asynchronous=True, **LOCAL_CLUSTER
            )
        try:
            client = await Client(cluster or config.scheduler, asynchronous=True)  # type: ignore[no-untyped-call]
            try:
                yield client
            finally:
                await unless_slow(client.close())
        finally:
            if cluster is not None:
                await unless_slow(cluster.close())


async def watch_workers(client: Client, wait: float, where: str) -> None:
    """Run until cancelled; raise `NoWorkers` once the cluster (at `where`) has had no
    worker for `wait` seconds in a row (none connected yet, or the last one gone):
    its tasks would wait for one forever."""
    since: float | None = None
    while True:
        workers = len(await client.nthreads())  # type: ignore[no-untyped-call]
        now = time.monotonic()
        if workers:
            since = None
        elif since is None:
            since = now
        elif now - since >= wait:
            raise NoWorkers(
                f"the dask cluster at {where} has had no worker "
                f"for {wait:g} s (worker_wait in [run])"
            )
        await anyio.sleep(min(_POLL, wait / 4))


async def unless_slow(closing: Awaitable[Any] | None) -> None:
    """Await `closing` even in a cancelled run, for at most `CLOSE_TIMEOUT` seconds."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT):
        if closing is not None:
            await closing


@contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Let `distributed` log no more than the application does (its INFO lines
    about every worker and connection would break the silence cron expects)."""
    logger = logging.getLogger("distributed")
    old = logger.level
    logger.setLevel(max(old, logging.getLogger().getEffectiveLevel()))
    try:
        yield
    finally:
        logger.setLevel(old)
