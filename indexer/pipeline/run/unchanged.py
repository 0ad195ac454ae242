"""A re-run over a tree where nothing changed: re-commit the previous output as it is.

Before the engine starts, this walk's digests (`tree.batch_digest`) are compared, batch
by batch, with those the state noted for the committed output, which count only while
tied to the manifest OUT holds now, with this run's config digest, extractor versions
and cache-key settings. At the first difference the normal run goes on with what was
walked; when all match, the new generation is the previous one's files hard-linked,
with an empty `changes.ndjson`: byte for byte what the full pipeline would write. Each
file is first checked against the manifest (`verify.Checking`, beside the walk; only
those whose stat moved since the commit, `vouched`): a damaged one sends the run down
the normal path, which rebuilds it.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from indexer._version import SHARD_LAYOUT
from indexer.config import Config
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.pipeline.incremental.state import State
from indexer.pipeline.incremental.tree import BATCH, Tree, batch_digest, digest_batches
from indexer.pipeline.output.changes import CHANGES
from indexer.pipeline.output.dedup import distinct
from indexer.pipeline.output.previous import LAYOUT
from indexer.pipeline.output.staging import MANIFEST
from indexer.pipeline.output.verify import Checking
from indexer.pipeline.run.vouched import unvouched
from indexer.pipeline.walk.walker import Entry, WalkPolicy, iter_batches, policy_for
from indexer.registry import Registry

_KEEP = 100_000
"""Entries the check keeps in memory for the run when the tree changed (tens of MB);
those read beyond are spilled to a temporary file, so a change late in a walk of
millions of entries (a new folder that sorts last) costs neither a second walk nor
memory that grows with the tree."""


class _Taken:
    """The entries the check read, in walk order: the first `_KEEP` in a list, the rest
    pickled batch by batch into an unnamed file in `spill_dir` (freed when closed)."""

    def __init__(self, spill_dir: Path) -> None:
        self.head: list[Entry] = []
        self.spill_dir = spill_dir
        self.spilled: Any = None  # the temporary file, once the list is full

    def add(self, batch: list[Entry]) -> None:
        """Keep `batch` after the entries added before. Raises OSError (a full disk)."""
        if len(self.head) < _KEEP:
            self.head.extend(batch)
            return
        if self.spilled is None:
            self.spilled = tempfile.TemporaryFile(dir=self.spill_dir)  # noqa: SIM115 (closed by replay or close)
        pickle.dump(batch, self.spilled, protocol=pickle.HIGHEST_PROTOCOL)

    def replay(self) -> Iterator[Entry]:
        """Yield every entry added, in order, once; then close the spill file."""
        head, self.head = self.head, []
        yield from head
        if self.spilled is None:
            return
        with self.spilled as spilled:
            spilled.seek(0)
            while True:
                try:
                    batch = pickle.load(spilled)
                except EOFError:
                    return
                yield from batch

    def close(self) -> None:
        """Free the spill file without replaying it."""
        if self.spilled is not None:
            self.spilled.close()


def unchanged(
    walked: Iterator[Entry],
    previous_output: Path,
    tree: Tree | None,
    config: Config,
    registry: Registry,
    spill_dir: Path,
) -> tuple[dict[str, Any] | None, Iterator[Entry]]:
    """The previous manifest when the tree is unchanged (see the module doc), else None;
    and the walk for the run to go on with: the entries read to tell (those past `_KEEP`
    replayed from a file in `spill_dir`) and the rest of `walked`, so that the run never
    walks twice.

    `tree`: the walk behind the committed output, as the state noted it. Blocking;
    raises OSError when the spill file cannot be written.
    """
    if config.full or tree is None:
        return None, walked
    if not (previous_output / LAYOUT).is_file():  # an output of an older version
        return None, walked
    try:
        raw = (previous_output / MANIFEST).read_bytes()
        old = orjson.loads(raw)
    except (OSError, orjson.JSONDecodeError):
        return None, walked
    versions = {s.name: s.version for s in registry.extractors()}
    if (
        hashlib.sha256(raw).hexdigest() != tree.manifest
        or old.get("shard_layout") != SHARD_LAYOUT  # an older layout: the run re-shards it
        or old.get("config_digest") != config.digest()
        or old.get("extractors") != versions
        or CacheKeys(config, registry).digest() != tree.keys
    ):
        return None, walked
    taken = _Taken(spill_dir)
    # Hashes the files while the walk is compared: those whose stat moved since the
    # commit (OUT holds the generation folders: `previous_output.parent` is OUT).
    to_hash = unvouched(previous_output.parent, previous_output, old, raw)
    checking = Checking(previous_output, to_hash)
    try:
        # A damaged file is not reported here: the run that follows rebuilds it, says so.
        if _same_walk(walked, taken, digest_batches(tree.digests)) and checking.result():
            taken.close()
            return old, iter(())
    except BaseException:
        taken.close()
        raise
    finally:
        checking.cancel()
    return None, itertools.chain(taken.replay(), walked)


def walk_policy(config: Config, registry: Registry, state: State, tree: Tree | None) -> WalkPolicy:
    """The walk's policy; with the stats the state noted (`walk.noted`) while its rows
    were stored under this run's cache-key settings (the extractors and what they
    claim), so that a file unchanged since is not sniffed again."""
    policy = policy_for(config, registry)
    if config.full or tree is None or CacheKeys(config, registry).digest() != tree.keys:
        return policy
    return replace(policy, noted=state.noted)


def _same_walk(walked: Iterator[Entry], taken: _Taken, digests: list[bytes]) -> bool:
    """Walk on while each batch's digest equals the noted one; True when all did and
    there were as many. Each batch walked joins `taken`."""
    found = 0
    for batch in iter_batches(walked, BATCH):
        taken.add(batch)
        try:
            if found == len(digests) or batch_digest(batch) != digests[found]:
                return False
        except TypeError:  # an entry that cannot be digested: never the same
            return False
        found += 1
    return found == len(digests)


def stage_linked(previous_output: Path, staging: Path, manifest: dict[str, Any]) -> list[str]:
    """Hard-link the previous generation's files into `staging` (copy where links fail),
    with an empty changes file; return the names to commit besides the manifest."""
    documents = [d["name"] for d in manifest["documents"]]
    names = [*documents, *(s["name"] for s in manifest["shards"]), LAYOUT]
    if (previous_output / distinct.NOTE).is_file():  # the duplicate pass's note holds too
        names.append(distinct.NOTE)
    for name in names:
        try:
            os.link(previous_output / name, staging / name)
        except OSError:  # no hard links on this filesystem
            shutil.copyfile(previous_output / name, staging / name)
    (staging / CHANGES).write_bytes(b"")
    return [*names, CHANGES]
