"""A run's end: commit what was staged, then the bookkeeping (the state's note of the
commit, the sweep, `run.json`). Once `.current` has switched the run is committed,
and nothing after it may report otherwise: a failure there is a warning."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from indexer.errors import StateDamaged
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import State
from indexer.pipeline.incremental.tree import Tree
from indexer.pipeline.output.staged import Staged, manifest
from indexer.pipeline.output.staging import CURRENT, commit
from indexer.pipeline.run import vouched
from indexer.pipeline.run.begin import Begun, RunSpec
from indexer.pipeline.run.failures import Failures, count_failures
from indexer.pipeline.run.summary import RunSummary, summarize, write_report

log = logging.getLogger("indexer")


def commit_run(spec: RunSpec, begun: Begun, staged: Staged, *, sweep: bool) -> RunSummary:
    """Commit `staged` into `spec.out` and do the bookkeeping; return the summary
    (blocking). With `sweep`, the state forgets what this run did not walk.

    Raises (OSError, ...) only when the commit did not happen: the previous output
    is then intact.
    """
    failures = _failures(begun, staged)  # before the commit: the previous output goes
    written = _commit(spec, begun, staged)
    if written is not None:
        listed = (*staged.manifest_files["documents"], *staged.manifest_files["shards"])
        vouched.note(spec.out, [f["name"] for f in listed], written)
    try:
        tree = _tree(spec, staged, written)
        _note_commit(begun.state, tree, sweep=sweep)
    except Exception as exc:  # the next run checks every file instead
        log.warning("%s is committed, but the state could not note it: %s", spec.out, exc)
    seconds = time.monotonic() - begun.started
    try:
        write_report(spec.out, spec.config, staged.tally, seconds, staged.unchanged, failures)
    except OSError as exc:
        log.warning("%s is committed, but its run.json could not be written: %s", spec.out, exc)
    shards = len(staged.manifest_files["shards"])
    return summarize(spec.out, staged.tally, shards, seconds, failures)


def _failures(begun: Begun, staged: Staged) -> Failures:
    """The staged failures, new and known; an unchanged re-run's are all known."""
    failed = staged.tally.by_status.get("failed", 0)
    if staged.unchanged:
        return Failures(known=failed)
    documents = [d["name"] for d in staged.manifest_files["documents"]]
    return count_failures(begun.staging, documents, begun.previous_output, failed)


def _commit(spec: RunSpec, begun: Begun, staged: Staged) -> str | None:
    """Commit; return the sha256 of the manifest written, or None when an error came
    after `.current` switched (the tidying that follows it)."""
    data = manifest(spec.config, spec.registry, staged)
    try:
        return commit(spec.out, data, staged.files)
    except Exception as exc:
        if _current(spec.out) == begun.previous_output:
            raise
        log.warning("%s is committed, but tidying after the commit failed: %s", spec.out, exc)
        return None


def _current(out: Path) -> Path | None:
    current = out / CURRENT
    return current.resolve() if current.is_dir() else None


def _tree(spec: RunSpec, staged: Staged, manifest_sha256: str | None) -> Tree | None:
    """The walk behind a committed output, for the state; None when its digests are
    unknown, or when some file has to be done again (a re-commit would skip it)."""
    if staged.tree is None or staged.redo or manifest_sha256 is None:
        return None
    keys = CacheKeys(spec.config, spec.registry).digest()
    tally = staged.tally
    return Tree(manifest_sha256, keys, tally.pages, tally.extracted_now + tally.reused, staged.tree)


def _note_commit(state: State, tree: Tree | None, *, sweep: bool) -> None:
    """Note the commit in the state, with the walk behind it, and, with `sweep`, forget
    what this run did not walk. Damage met now only sets the state aside: the output
    is committed, and the next run starts over."""
    try:
        state.mark_committed(tree)
        if sweep:
            state.sweep()
    except StateDamaged as damage:
        state.discard(damage)
