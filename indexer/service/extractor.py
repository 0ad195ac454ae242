"""The server's extractions: a one-file run per request (`onefile`) on pools kept
open for the server's life.

A request's file is written into a folder of its own; `index_one` runs in a thread
with the engine in the server's event loop (`anyio.from_thread.run`), on the lent
pools, so every document is extracted in the killable worker processes under the
config's `[isolation]` limits, as in a run, without a pool started per request. A
request that outlives `Limits.request_timeout` is stopped as a SIGTERM stops a run:
its pool calls are killed and nothing of it is kept.
"""

from __future__ import annotations

import argparse
import math
import shutil
import tempfile
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio

from indexer.config import Config, load_config
from indexer.pipeline.engines.local import make_pools
from indexer.pipeline.run.interrupts import Interrupted, Interrupts
from indexer.service.onefile import Choices, answer, index_one, one_file_config


def pool_config(args: argparse.Namespace) -> Config:
    """The config the pools are sized by (`--config`, `--workers`, `--pdf-workers`);
    raises `ConfigError`, for the run settings too (checked now, not per request)."""
    sizes = {"workers": args.workers, "pdf_workers": args.pdf_workers}
    pools = load_config(str(args.config) if args.config else None, sizes)
    one_file_config(args.config, Choices())
    return pools


class TimedOut(Exception):
    """A request's extraction ran past `request_timeout` and was stopped."""


class Extractor:
    """One-file runs on shared (general, isolated) pools sized by `pool_config`;
    each run's own settings are `indexer extract`'s for the TOML file `config`."""

    def __init__(
        self,
        config: Path | None,
        pool_config: Config,
        request_timeout: float,
        scratch: Path | None = None,
    ) -> None:
        self.config = config
        self.request_timeout = request_timeout
        self.scratch = scratch
        """Where request folders go (None: the system's temporary folder)."""
        self.pools = make_pools(pool_config)
        self._configs: dict[Choices, Config] = {}
        self._threads: anyio.CapacityLimiter | None = None

    async def __aenter__(self) -> Extractor:
        # The runs' own threads, apart from anyio's default limiter: a run blocks its
        # thread until its engine is done, and the engine needs that limiter's threads
        # (hashing, fsyncs), so sharing it would deadlock at 40 runs. The callers bound
        # how many run (the server's admission).
        self._threads = anyio.CapacityLimiter(math.inf)
        general, isolated = self.pools
        await general.__aenter__()
        await isolated.__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Kill every worker of both pools."""
        general, isolated = self.pools
        try:
            await isolated.__aexit__(kind, exc, tb)
        finally:
            await general.__aexit__(kind, exc, tb)

    def settings(self, choices: Choices) -> Config:
        """The run settings for `choices` (kept: at most a dozen combinations); raises
        `ConfigError` for a value the config refuses."""
        config = self._configs.get(choices)
        if config is None:
            # The lent pools are the local engine's: a config naming dask runs here too.
            config = replace(one_file_config(self.config, choices), engine="local")
            self._configs[choices] = config
        return config

    def folder(self) -> Path:
        """A new request folder (`source/` for the file, `out/` for the run)."""
        root = Path(tempfile.mkdtemp(prefix="indexer-serve-", dir=self.scratch))
        (root / "source").mkdir()
        return root

    async def extract(self, root: Path, config: Config) -> dict[str, Any]:
        """Index the one file in `root/source` into `root/out`; return the answer
        `indexer extract --json` prints for it. Raises `TimedOut` past the request
        timeout, and what `indexer.run` raises (OSError, for one)."""
        interrupts = Interrupts()
        call = partial(
            index_one, root / "source", root / "out", config, pools=self.pools,
            enter=anyio.from_thread.run, interrupts=interrupts,
        )  # fmt: skip
        timed_out = False

        async def watchdog() -> None:
            nonlocal timed_out
            await anyio.sleep(self.request_timeout)
            timed_out = True
            interrupts.stop()

        failure: BaseException | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(watchdog)
            try:
                records = await anyio.to_thread.run_sync(call, limiter=self._threads)
            except (Exception, Interrupted) as exc:  # raised below, not in the group
                failure = exc
            tg.cancel_scope.cancel()
        if isinstance(failure, Interrupted) and timed_out:
            raise TimedOut(f"stopped after {self.request_timeout:g} s")
        if failure is not None:
            raise failure
        return answer(records)


async def discard(root: Path) -> None:
    """Remove a request folder (in a thread: a container's run leaves many files)."""
    await anyio.to_thread.run_sync(partial(shutil.rmtree, root, ignore_errors=True))
