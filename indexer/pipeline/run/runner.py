"""The pipeline's public face: `index()` (async) and `run()` (sync), and run.json."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import orjson

from indexer.config import Config
from indexer.errors import ConfigError, StateDamaged
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import STATE_DIR, STATE_FILE, State
from indexer.pipeline.incremental.tree import Tree
from indexer.pipeline.output.changes import Previous, load_previous
from indexer.pipeline.output.staged import Staged, Tally, commit_staged, manifest
from indexer.pipeline.output.staging import CURRENT, MANIFEST, commit, prepare_staging, recover
from indexer.pipeline.run.lock import hold
from indexer.pipeline.run.unchanged import stage_linked, unchanged
from indexer.pipeline.walk.walker import Entry, policy_for, walk
from indexer.registry import Registry, default_registry

if TYPE_CHECKING:
    from indexer.pipeline.run.progress import Progress

RUN_REPORT = "run.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSummary:
    """What a committed run produced (also printed by `indexer run --json`)."""

    out: str
    files: int
    documents: int
    chunks: int
    shards: int
    failed: int
    extracted: int
    """Documents extracted in this run."""
    reused: int
    """Documents whose extraction was reused from an earlier run."""
    by_status: dict[str, int]
    by_kind: dict[str, int]
    changes: dict[str, int]
    """Documents added, changed and removed against the previous committed output."""
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


async def index(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    config: Config | None = None,
    *,
    registry: Registry | None = None,
    progress: bool = False,
) -> RunSummary:
    """Index every file under `source` into `out`; return the committed run's summary.

    Raises `ConfigError` for an unusable source or output folder (or a SOURCE that
    holds nothing at all over an OUT that indexes documents, unless
    `config.allow_empty`), and OSError (or any other infrastructure error) when the
    run cannot complete, in which case nothing is committed and `out`'s previous
    output is intact.
    """
    config = config or Config()
    registry = registry or default_registry()
    src, dst = check_paths(Path(source), Path(out))
    with hold(dst):
        begun = await anyio.to_thread.run_sync(begin, src, dst, config, registry)
        if begun.staged is not None:
            return await anyio.to_thread.run_sync(finish_unchanged, dst, config, registry, begun)
        return await finish_with_engine(src, dst, config, registry, begun, progress=progress)


@dataclass(slots=True, kw_only=True)
class Begun:
    """A run's start, `out` locked: what the engine needs, or the previous output
    staged again when the tree did not change (`staged`)."""

    started: float
    previous: Previous = field(default_factory=Previous)
    """The committed documents (read only when the tree changed)."""
    staging: Path
    state: State
    previous_output: Path | None
    staged: Staged | None = None
    """Set when the tree did not change: commit it with `finish_unchanged`."""
    walked: Iterator[Entry] | None = None
    """The walk the unchanged-tree check began, for the engine to go on with."""


def begin(src: Path, dst: Path, config: Config, registry: Registry) -> Begun:
    """Start a run (blocking; hold `dst`'s lock): tidy `dst`, open the state, check
    whether the tree changed since the last commit and, when it did, read the
    previous output's documents (what `changes.ndjson` compares with).

    No event loop: the CLI calls it before starting one, so that a re-run over an
    unchanged tree never imports asyncio (a large part of such a run).
    """
    started = time.monotonic()
    recover(dst)
    _refuse_emptied(src, dst, config)
    staging = prepare_staging(dst)
    state = State(dst / STATE_DIR / STATE_FILE, reuse=not config.full)
    current = dst / CURRENT
    previous_output = current.resolve() if current.is_dir() else None
    begun = Begun(started=started, staging=staging, state=state, previous_output=previous_output)
    try:
        if previous_output is not None:
            begun.staged, begun.walked = _stage_unchanged(
                src, previous_output, staging, config, registry, state
            )
    except StateDamaged as damage:  # met by the check: start over on a new state
        state.discard(damage)
        begun.state = State(state.path, reuse=False)
    except BaseException:
        state.close()
        raise
    if begun.staged is None:
        try:
            begun.previous = load_previous(dst)
        except BaseException:
            begun.state.close()
            raise
    return begun


def _refuse_emptied(src: Path, dst: Path, config: Config) -> None:
    """Raise `ConfigError` when SOURCE holds nothing at all while OUT indexes documents,
    unless `allow_empty`: an archive whose disk did not mount would otherwise empty the
    index, and `changes.ndjson` would tell every consumer to remove every document."""
    if config.allow_empty:
        return
    with os.scandir(src) as entries:
        if next(entries, None) is not None:
            return
    try:
        documents = orjson.loads((dst / MANIFEST).read_bytes())["counts"]["documents"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # no usable previous output: nothing to lose
    if documents:
        raise ConfigError(
            "allow_empty",
            f"SOURCE {src} holds no files, but OUT {dst} indexes {documents} documents; "
            "nothing was committed (is SOURCE mounted?). To index the empty folder "
            "anyway, pass --allow-empty (allow_empty = true)",
        )


def finish_unchanged(dst: Path, config: Config, registry: Registry, begun: Begun) -> RunSummary:
    """Commit the previous output again, as `begin` staged it (blocking)."""
    staged = begun.staged
    assert staged is not None
    try:
        manifest_data = manifest(config, registry, staged)
        written = commit(dst, manifest_data, staged.files)
        # The last sweep left what this tree needs.
        _note_commit(begun.state, _tree(config, registry, staged, written), sweep=False)
    finally:
        begun.state.close()
    return _finish(dst, config, staged, len(manifest_data["shards"]), begun.started)


async def finish_with_engine(
    src: Path, dst: Path, config: Config, registry: Registry, begun: Begun, *, progress: bool
) -> RunSummary:
    """Run the engine on what `begin` started, commit, and return the summary."""
    state, staging = begun.state, begun.staging
    previous, previous_output = begun.previous, begun.previous_output
    try:
        try:
            staged = await _stage(
                src, staging, config, registry, state, previous, progress, previous_output,
                begun.walked,
            )  # fmt: skip
        except Exception as exc:
            damage = _damage(exc)
            if damage is None:
                raise
            # A damaged page met mid-run: start over on a new state, extracting all.
            await anyio.to_thread.run_sync(state.discard, damage)
            staging = await anyio.to_thread.run_sync(prepare_staging, dst)
            state = await anyio.to_thread.run_sync(lambda: State(state.path, reuse=False))
            staged = await _stage(
                src, staging, config, registry, state, previous, progress, previous_output
            )
        manifest_data = manifest(config, registry, staged)
        written = await commit_staged(dst, manifest_data, staged)
        tree = _tree(config, registry, staged, written)
        await anyio.to_thread.run_sync(lambda: _note_commit(state, tree, sweep=True))
    finally:
        state.close()
    shards = len(manifest_data["shards"])
    return await anyio.to_thread.run_sync(_finish, dst, config, staged, shards, begun.started)


def _tree(config: Config, registry: Registry, staged: Staged, manifest_sha256: str) -> Tree | None:
    """The walk behind a committed output, for the state; None when its digests are
    unknown, or when some file has to be done again (a re-commit would skip it)."""
    if staged.tree is None or staged.redo:
        return None
    keys = CacheKeys(config, registry).digest()
    tally = staged.tally
    return Tree(manifest_sha256, keys, tally.pages, tally.extracted_now + tally.reused, staged.tree)


def _note_commit(state: State, tree: Tree | None, *, sweep: bool) -> None:
    """After the commit: note it in the state, with the walk behind it, and, with
    `sweep`, forget what this run did not walk. Damage met now only sets the state
    aside: the output is committed, and the next run starts over (blocking)."""
    try:
        state.mark_committed(tree)
        if sweep:
            state.sweep()
    except StateDamaged as damage:
        state.discard(damage)


def _finish(dst: Path, config: Config, staged: Staged, shards: int, started: float) -> RunSummary:
    """The committed run's summary; writes its `run.json`."""
    seconds = time.monotonic() - started
    _write_report(dst, config, staged.tally, seconds, staged.unchanged)
    return _summary(dst, staged.tally, shards, seconds)


def _damage(exc: BaseException) -> StateDamaged | None:
    """The `StateDamaged` in `exc` or in its (nested) exception groups, if any."""
    if isinstance(exc, StateDamaged):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _damage(inner)) is not None:
                return found
    return None


def _stage_unchanged(
    src: Path,
    previous_output: Path,
    staging: Path,
    config: Config,
    registry: Registry,
    state: State,
) -> tuple[Staged | None, Iterator[Entry] | None]:
    """Stage the previous output again when the tree did not change; else None, and
    the walk to go on with (see `unchanged`)."""
    tree = state.committed_tree
    walked = walk(src, policy_for(config, registry.handles))
    old, resume = unchanged(walked, previous_output, tree, config, registry)
    if old is None or tree is None:
        return None, resume
    files = stage_linked(previous_output, staging, old)
    counts = old["counts"]
    by_status = counts["by_status"]
    tally = Tally(
        files=counts["files"], documents=counts["documents"], chunks=counts["chunks"],
        reused=tree.reused, pages=tree.pages, by_status=dict(by_status),
        by_kind=dict(counts["by_kind"]), changes={"added": 0, "changed": 0, "removed": 0},
    )  # fmt: skip
    manifest_files = {"documents": old["documents"], "shards": old["shards"]}
    staged = Staged(
        files=files, manifest_files=manifest_files, tally=tally, unchanged=True,
        tree=tree.digests,
    )  # fmt: skip
    return staged, None


async def _stage(
    src: Path,
    staging: Path,
    config: Config,
    registry: Registry,
    state: State,
    previous: dict[str, int],
    progress: bool,
    previous_output: Path | None,
    walked: Iterator[Entry] | None = None,
) -> Staged:
    """Run the configured engine into `staging`; return what it staged (nothing committed).

    `walked`: the walk to use, partly read already (else the engine walks `src`).
    """
    if config.engine == "dask":
        from indexer.pipeline.engines.dask.driver import stage_on_dask

        return await stage_on_dask(src, staging, config, registry, state=state, previous=previous)
    # Imported here: a re-run over an unchanged tree never needs the engine, its
    # pools, extractors and mail handling, and skips their import.
    from indexer.pipeline.engines.local import Engine
    from indexer.pipeline.run.progress import Progress

    bar = Progress() if progress else None
    engine = Engine(
        src, staging, config, registry, on_progress=bar, state=state, previous=previous,
        previous_output=None if config.full else previous_output, walked=walked,
    )  # fmt: skip
    async with anyio.create_task_group() as tg:
        if bar is not None:
            tg.start_soon(_count, src, config, registry, bar)
            tg.start_soon(bar.run)
        staged = await engine.run()
        tg.cancel_scope.cancel()
    return staged


def run(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    config: Config | None = None,
    *,
    registry: Registry | None = None,
) -> RunSummary:
    """Synchronous `index()`: runs its own event loop."""
    return anyio.run(lambda: index(source, out, config, registry=registry))


def check_paths(source: Path, out: Path) -> tuple[Path, Path]:
    """The resolved source and output folders; raises `ConfigError` when unusable."""
    src = source.resolve()
    dst = out.resolve()
    if not src.is_dir():
        raise ConfigError("source", f"{source} is not a directory")
    if dst == src or src in dst.parents:
        raise ConfigError("out", f"{out} is inside the source folder; choose a folder outside it")
    if dst.exists() and not dst.is_dir():
        raise ConfigError("out", f"{out} exists and is not a directory")
    return src, dst


async def _count(src: Path, config: Config, registry: Registry, bar: Progress) -> None:
    policy = policy_for(config, registry.handles)
    bar.total = await anyio.to_thread.run_sync(
        lambda: sum(1 for _ in walk(src, policy)), abandon_on_cancel=True
    )


def _summary(out: Path, tally: Tally, shards: int, seconds: float) -> RunSummary:
    return RunSummary(
        out=str(out),
        files=tally.files,
        documents=tally.documents,
        chunks=tally.chunks,
        shards=shards,
        failed=tally.by_status.get("failed", 0),
        extracted=tally.extracted_now,
        reused=tally.reused,
        by_status=dict(sorted(tally.by_status.items())),
        by_kind=dict(sorted(tally.by_kind.items())),
        changes=dict(tally.changes),
        seconds=round(seconds, 3),
    )


def _write_report(out: Path, config: Config, tally: Tally, seconds: float, unchanged: bool) -> None:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = {
        "seconds": round(seconds, 3),
        "unchanged": unchanged,
        "files": tally.files,
        "documents": tally.documents,
        "extracted": tally.extracted_now,
        "reused": tally.reused,
        "changes": tally.changes,
        "bytes_read": tally.bytes_read,
        "pages": tally.pages,
        "files_per_s": round(tally.files / seconds, 1) if seconds else None,
        "mb_per_s": round(tally.bytes_read / 1e6 / seconds, 2) if seconds else None,
        "pages_per_s": round(tally.pages / seconds, 1) if seconds else None,
        "workers": config.workers,
        "pdf_workers": config.pdf_workers,
        "peak_rss_mb": {"main": round(own, 1), "largest_worker": round(children, 1)},
        "slowest": [
            {"path": path, "seconds": round(secs, 3)}
            for secs, path in sorted(tally.slowest, reverse=True)[:10]
        ],
    }
    tmp = out / (RUN_REPORT + ".tmp")
    tmp.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    os.replace(tmp, out / RUN_REPORT)
