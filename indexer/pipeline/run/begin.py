"""A run's start, before any event loop: its folders checked, OUT tidied, the state
opened, and the previous output staged again when the tree did not change."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from indexer.config import Config
from indexer.errors import ConfigError, StateDamaged
from indexer.pipeline.incremental.state import STATE_DIR, STATE_FILE, State
from indexer.pipeline.output.changes import Previous, pending_previous
from indexer.pipeline.output.staged import Staged, Tally
from indexer.pipeline.output.staging import CURRENT, MANIFEST, prepare_staging, recover
from indexer.pipeline.run.unchanged import stage_linked, unchanged, walk_policy
from indexer.pipeline.walk.source import LocalFolder, Source
from indexer.pipeline.walk.walker import Entry, WalkPolicy
from indexer.registry import Registry


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSpec:
    """What a run is asked to do: its folders (resolved, checked) and settings."""

    source: Source
    out: Path
    config: Config
    registry: Registry
    progress: bool = False
    """Draw a progress line (for engines that report progress)."""

    @classmethod
    def checked(
        cls, source: Source, out: Path, config: Config, registry: Registry, *, progress: bool
    ) -> RunSpec:
        """The spec with OUT (and a local folder) resolved; raises `ConfigError` when
        unusable."""
        dst = out.resolve()
        if isinstance(source, LocalFolder):
            source = LocalFolder(_checked_folder(source.root, dst))
        if dst.exists() and not dst.is_dir():
            raise ConfigError("out", f"{out} exists and is not a directory")
        found = next(p for p in (dst, *dst.parents) if p.exists())  # OUT, or where it goes
        if not found.is_dir():
            raise ConfigError("out", f"{out} cannot be created: {found} is not a directory")
        _writable(out, found)
        return cls(source=source, out=dst, config=config, registry=registry, progress=progress)


def _checked_folder(root: Path, dst: Path) -> Path:
    """`root` resolved; raises `ConfigError` when it is unusable or holds `dst`."""
    src = root.resolve()
    if not src.is_dir():
        raise ConfigError("source", f"{root} is not a directory")
    try:  # before OUT is created: an unreadable SOURCE must leave nothing behind
        os.scandir(src).close()
    except OSError as exc:
        raise ConfigError("source", f"{root} cannot be read: {exc.strerror}") from None
    if dst == src:
        raise ConfigError("out", f"{dst} is SOURCE itself; choose a folder outside it")
    if src in dst.parents:
        raise ConfigError("out", f"{dst} is inside the source folder; choose a folder outside it")
    return src


def _writable(out: Path, found: Path) -> None:
    """Write a file in `found`, OUT or the nearest folder above it that exists (OUT
    itself is created later, only once the run's settings are all checked); raises
    `ConfigError` when that fails (a read-only disk, no permission): a usage error,
    before any work."""
    try:
        with tempfile.TemporaryFile(dir=found):
            pass
    except OSError as exc:
        raise ConfigError("out", f"{out} cannot be written: {exc.strerror}") from None


@dataclass(slots=True, kw_only=True)
class Begun:
    """A run's start, `out` locked: what the engine needs, or the previous output
    staged again when the tree did not change (`staged`)."""

    started: float
    staging: Path
    state: State
    """The incremental state; replaced by a new one when damage is met mid-run."""
    previous_output: Path | None
    """The committed generation folder when the run began (None: no output yet)."""
    previous: Previous = field(default_factory=Previous)
    """The committed documents (read only when the tree changed)."""
    staged: Staged | None = None
    """Set when the tree did not change: the previous output, to commit again."""
    walked: Iterator[Entry] | None = None
    """The walk the unchanged-tree check began, for the engine to go on with."""


def begin(spec: RunSpec) -> Begun:
    """Start a run (blocking; hold `spec.out`'s lock): tidy OUT, open the state, check
    whether the tree changed since the last commit and, when it did, read the
    previous output's documents (what `changes.ndjson` compares with).

    Raises `ConfigError` for a SOURCE emptied under an OUT that indexes documents.
    """
    started = time.monotonic()
    src, dst, config = spec.source, spec.out, spec.config
    recover(dst)
    _refuse_emptied(src, dst, config)
    staging = prepare_staging(dst)
    state = State(dst / STATE_DIR / STATE_FILE, reuse=not config.full)
    current = dst / CURRENT
    previous_output = current.resolve() if current.is_dir() else None
    begun = Begun(started=started, staging=staging, state=state, previous_output=previous_output)
    try:
        if previous_output is not None:
            _stage_unchanged(spec, begun)
    except StateDamaged as damage:  # met by the check: start over on a new state
        state.discard(damage)
        begun.state = State(state.path, reuse=False)
    except BaseException:
        state.close()
        raise
    if begun.staged is None:
        try:
            # Read when the writer first needs it, less what it takes whole (`Deferred`).
            begun.previous = Previous() if previous_output is None else pending_previous(dst)
        except BaseException:
            begun.state.close()
            raise
    return begun


def _refuse_emptied(src: Source, dst: Path, config: Config) -> None:
    """Raise `ConfigError` when SOURCE holds nothing at all while OUT indexes documents,
    unless `allow_empty`: an archive whose disk did not mount would otherwise empty the
    index, and `changes.ndjson` would tell every consumer to remove every document."""
    if config.allow_empty:
        return
    if _holds_anything(src):
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


def _holds_anything(src: Source) -> bool:
    """A local folder holds anything when it has any entry at all (an empty folder in
    it too: a disk that did not mount has none); another source when it lists one."""
    if isinstance(src, LocalFolder):
        with os.scandir(src.root) as entries:
            return next(entries, None) is not None
    anything = WalkPolicy(skip_hidden=False, claims=_claimed)  # claimed: nothing is sniffed
    return next(iter(src.walk(anything)), None) is not None


def _claimed(rel: str) -> bool:
    return True


def _stage_unchanged(spec: RunSpec, begun: Begun) -> None:
    """Stage the previous output again into `begun` when the tree did not change; else
    keep the walk read so far for the engine to go on with (see `unchanged`)."""
    assert begun.previous_output is not None
    config, registry, state = spec.config, spec.registry, begun.state
    tree = state.committed_tree
    walked = spec.source.walk(walk_policy(config, registry, state, tree))
    old, begun.walked = unchanged(
        walked, begun.previous_output, tree, config, registry, spill_dir=begun.staging
    )
    if old is None or tree is None:
        return
    files = stage_linked(begun.previous_output, begun.staging, old)
    counts = old["counts"]
    tally = Tally(
        files=counts["files"], documents=counts["documents"], chunks=counts["chunks"],
        reused=tree.reused, pages=tree.pages, by_status=dict(counts["by_status"]),
        by_kind=dict(counts["by_kind"]), changes={"added": 0, "changed": 0, "removed": 0},
        excluded=counts.get("excluded", 0), duplicates=counts.get("duplicates", 0),
        near_duplicates=counts.get("near_duplicates", 0), boilerplate=counts.get("boilerplate", 0),
    )  # fmt: skip
    manifest_files = {"documents": old["documents"], "shards": old["shards"]}
    begun.staged = Staged(
        files=files, manifest_files=manifest_files, tally=tally, unchanged=True,
        tree=tree.digests,
    )  # fmt: skip
