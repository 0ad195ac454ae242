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

import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from indexer.config import Config
from indexer.mail.mbox import is_mbox
from indexer.pipeline.changes import CHANGES, fingerprint
from indexer.pipeline.engine import skipped, spec_for
from indexer.pipeline.extraction import CacheKeys
from indexer.pipeline.output import DOCUMENTS, MANIFEST
from indexer.pipeline.shards import LAYOUT
from indexer.pipeline.state import State
from indexer.pipeline.walk import iter_batches, walk
from indexer.registry import Registry

_BATCH = 512


def unchanged(
    source: Path,
    previous_output: Path,
    previous: dict[str, bytes],
    config: Config,
    registry: Registry,
    state: State,
    keys: CacheKeys,
) -> dict[str, Any] | None:
    """The previous manifest when the tree is unchanged (see the module doc), else None.

    Blocking: call it in a thread.
    """
    committed = state.committed_run
    if config.full or committed is None or not previous:
        return None
    if not (previous_output / LAYOUT).is_file():  # an output of the dask engine
        return None
    try:
        old = orjson.loads((previous_output / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    versions = {s.name: s.version for s in registry.extractors()}
    if old.get("config_digest") != config.digest() or old.get("extractors") != versions:
        return None
    files = 0
    for batch in iter_batches(walk(source, config.walk_policy(registry.handles)), _BATCH):
        rows = state.rows([e.rel for e in batch if e.skip is None])
        for entry in batch:
            files += 1
            if entry.rel not in previous or is_mbox(entry.rel):
                return None
            if entry.skip is not None:
                if fingerprint(skipped(0, entry).docs[0].line) != previous[entry.rel]:
                    return None
                continue
            row = rows.get(entry.rel)
            stat = (entry.size, entry.mtime_ns, entry.inode, entry.device)
            if (
                row is None
                or row.stat != stat
                or row.run > committed
                or row.key != keys.key(row.sha256, spec_for(registry, entry), entry)
                or not keys.current(row.deps)
            ):
                return None
    return old if files == sum("#" not in path for path in previous) else None


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


def previous_pages(previous_output: Path) -> int:
    """The page count the previous output's documents add up to (for run.json)."""
    pages = 0
    with open(previous_output / DOCUMENTS, "rb") as handle:
        for line in handle:
            value = orjson.loads(line)["metadata"].get("pages", 0)
            pages += value if isinstance(value, int) else 0
    return pages
