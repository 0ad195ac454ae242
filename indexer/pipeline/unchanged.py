"""A re-run over a tree where nothing changed: re-commit the previous output as it is.

The nightly cron run over an archive that did not change should cost a walk. Before
the engine starts, the walk is compared with what the committed output was made
of; at the first difference the check stops and the normal run goes on (it then
reuses everything it can, file by file). The tree counts as unchanged when:

- the previous output is committed, with this run's config digest and extractor
  versions, and the state notes which run committed it (`State.committed_run`);
- every walked file has a stored output that this run would write as it is: the
  same size, mtime, inode and device, today's key, attachments under today's keys,
  and written by the committed run or an earlier one (a killed later run may have
  stored outputs that were never committed);
- every skipped entry renders the same record as before, and there is no mbox
  (its messages are not files);
- the walk holds exactly the previous output's files, no more, no fewer.

Then the new generation is the previous one's files, hard-linked, with an empty
`changes.ndjson`: byte for byte what the full pipeline would write.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from indexer.config import Config
from indexer.mail.mbox import is_mbox
from indexer.pipeline.changes import CHANGES, fingerprint
from indexer.pipeline.keys import CacheKeys
from indexer.pipeline.output import DOCUMENTS, MANIFEST
from indexer.pipeline.records import skipped
from indexer.pipeline.shards import LAYOUT
from indexer.pipeline.state import State, deps_of
from indexer.pipeline.walk import Entry, iter_batches
from indexer.registry import Registry

_BATCH = 512
_KEEP = 100_000
"""Entries kept for the run when the tree changed (about 25 MB); beyond, it walks again."""


def unchanged(
    walked: Iterator[Entry],
    previous_output: Path,
    previous: dict[str, int],
    config: Config,
    registry: Registry,
    state: State,
    keys: CacheKeys,
) -> tuple[dict[str, Any] | None, Iterator[Entry] | None]:
    """The previous manifest when the tree is unchanged (see the module doc), else None;
    and, when it changed, the walk for the run to go on with: the entries read to tell
    and the rest of `walked`, so that the run need not walk them again (None when more
    than `_KEEP` were read: the run walks again from the start).

    Blocking: call it in a thread.
    """
    committed = state.committed_run
    if config.full or committed is None or not previous:
        return None, walked
    if not (previous_output / LAYOUT).is_file():  # an output of the dask engine
        return None, walked
    try:
        old = orjson.loads((previous_output / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None, walked
    versions = {s.name: s.version for s in registry.extractors()}
    if old.get("config_digest") != config.digest() or old.get("extractors") != versions:
        return None, walked
    taken: list[Entry] = []
    found = _compare(walked, taken, previous, state, keys, committed)
    if found is not None and found == sum("#" not in path for path in previous):
        return old, None
    return None, (itertools.chain(taken, walked) if len(taken) <= _KEEP else None)


def _compare(
    walked: Iterator[Entry],
    taken: list[Entry],
    previous: dict[str, int],
    state: State,
    keys: CacheKeys,
    committed: int,
) -> int | None:
    """Walk on while every entry is as the committed output has it; return how many
    there were, or None at the first difference. Each batch walked joins `taken`."""
    files = 0
    entry_key = keys.entry_key
    for batch in iter_batches(walked, _BATCH):
        if len(taken) <= _KEEP:
            taken.extend(batch)
        rows = state.rows([e.rel for e in batch if e.skip is None])
        for entry in batch:
            files += 1
            rel = entry.rel
            if rel not in previous or is_mbox(rel):
                return None
            if entry.skip is not None:
                if fingerprint(skipped(0, entry).docs[0].line) != previous[rel]:
                    return None
                continue
            row = rows.get(rel)
            if (
                row is None
                or row.size != entry.size
                or row.mtime_ns != entry.mtime_ns
                or row.inode != entry.inode
                or row.device != entry.device
                or row.run > committed
                or row.key != entry_key(row.sha256, entry)
                or (row.deps is not None and not keys.current(deps_of(row.deps)))
            ):
                return None
    return files


def stage_linked(previous_output: Path, staging: Path, manifest: dict[str, Any]) -> list[str]:
    """Hard-link the previous generation's files into `staging` (copy where links fail),
    with an empty changes file; return the names to commit besides the manifest."""
    names = [DOCUMENTS, *(s["name"] for s in manifest["shards"]), LAYOUT]
    for name in names:
        try:
            os.link(previous_output / name, staging / name)
        except OSError:  # no hard links on this filesystem
            shutil.copyfile(previous_output / name, staging / name)
    (staging / CHANGES).write_bytes(b"")
    return [*names, CHANGES]
