"""A night's duplicate pass skipped when it can change nothing: no key is repeated.

The exact pass (`decide`) reads every document of every shard and looks each content
and text hash up in the seen table: about 20 µs a document on a tree of 100,000, 40 µs
on one of a million, on every night that changed anything, however little. When it
finds no hash twice it alters nothing, and it says so in `.dedup.json` beside the
layout: the keys were distinct, under which config, for which document shards.

The next night, when that note holds for the previous commit, only the documents
`changes.ndjson` names added or changed can repeat a key: their keys are collected
(`begin`: from the shards written anew, a linked one holds none of them), then every
other document's are looked for among them (`Check`, fed each shard by the mail
pass's reading of them all: one regular expression over each shard's bytes, no JSON
parse, no table). None found: the keys are still distinct, the
pass would decide nothing, and it is skipped, with the note written again. Any doubt
(a line of another shape, too many changes, a repeated key) runs the pass itself.
Only the exact pass is ever skipped: near duplicates and repeated paragraphs compare
more than hashes.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from indexer.config import Config
from indexer.pipeline.output.changes import CHANGES
from indexer.pipeline.output.dedup import files
from indexer.pipeline.output.staged import Staged
from indexer.pipeline.output.staging import CURRENT, MANIFEST

NOTE = ".dedup.json"
_MOST_CHANGED = 100_000
"""Documents added or changed beyond which the pass runs (their keys are held)."""
_RECORD = re.compile(
    rb'"doc_id":"([0-9a-f]{24})","kind":"[a-z0-9_]*","bytes":\d+,'
    rb'"sha256":"([0-9a-f]{32})?[0-9a-f]*","text_sha256":"([0-9a-f]{32})?'
)
_HEAD = b'{"path":"'
"""A document record's keys after its path (`shape.py`'s order): doc id, hash prefixes."""


def skippable(config: Config) -> bool:
    """Whether this config's pass decides exact duplicates alone (the only decisions a
    repeated hash makes). Any other decision the pass makes must leave this False."""
    return config.exact != "off" and config.near == "off" and not config.boilerplate


def note(staging: Path, documents: list[dict[str, Any]], config: Config, distinct: bool) -> None:
    """Write the note for the output being staged (`documents`: its manifest entries)."""
    body = {"distinct": distinct, "config": config.digest(), "documents": _digest(documents)}
    with open(staging / NOTE, "wb") as handle:
        handle.write(orjson.dumps(body))
        handle.flush()
        os.fsync(handle.fileno())


class Check:
    """A night's look for a repeated key, its second half fed the document shards by the
    reader that reads them all anyway (`MailPass.collect`): one reading serves both."""

    def __init__(self, names: list[str], fresh: set[bytes], new: set[bytes]) -> None:
        self._left, self._fresh, self._new = set(names), fresh, new
        self._repeats = False

    def shard(self, name: str, data: bytes) -> None:
        """Look at the document shard `name`, its bytes `data`: does a document not
        added or changed, with chunks, repeat a key of one that was?"""
        self._left.discard(name)
        if self._new and not self._repeats:
            try:
                self._repeats = _repeats(name, data, self._fresh, self._new)
            except (ValueError, KeyError, TypeError):
                self._repeats = True  # a doubt: the pass runs

    def distinct(self) -> bool:
        """True when every document shard was looked at and none repeats a key."""
        return not self._left and not self._repeats


def begin(staging: Path, staged: Staged, config: Config) -> Check | None:
    """The look for a night whose previous commit's note says its keys were distinct
    under this config, with the keys of the documents added or changed since gathered
    (from the shards written anew: a linked one holds none of them); None when the
    pass must run (no note, too many changes, a key repeated among them). Blocking."""
    if not skippable(config) or CHANGES not in staged.files or not _noted(staging, config):
        return None
    fresh = _fresh(staging / CHANGES)
    if fresh is None:
        return None
    names = [str(e["name"]) for e in staged.manifest_files["documents"]]
    new: set[bytes] = set()
    try:
        for name in names:  # a shard linked from the previous commit holds no new record
            path = staging / name
            if os.stat(path).st_nlink == 1 and not _gather(name, path.read_bytes(), fresh, new):
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Check(names, fresh, new)


def _gather(name: str, data: bytes, fresh: set[bytes], new: set[bytes]) -> bool:
    """Add the keys of the documents in `fresh` that shard `name` (`data`) holds to
    `new`; False when one was there already. Raises ValueError on a line of another
    shape."""
    for did, ks, line in _records(name, data):
        if did in fresh and orjson.loads(line)["chunks"]:
            if any(k in new for k in ks):
                return False
            new.update(ks)
    return True


def _repeats(name: str, data: bytes, fresh: set[bytes], new: set[bytes]) -> bool:
    """Whether a document of shard `name` (`data`) not in `fresh`, with chunks, has a
    key in `new`."""
    for did, ks, line in _records(name, data):
        if did not in fresh and any(k in new for k in ks) and orjson.loads(line)["chunks"]:
            return True
    return False


def _records(name: str, data: bytes) -> Iterator[tuple[bytes, tuple[bytes, ...], memoryview]]:
    """Each document record of shard `name` (its bytes `data`, at most 16 MiB:
    `docshards`): its doc id, its keys (content and text hash prefixes, tagged as the
    seen table has them) and its line, found by one regular expression over the file
    (no JSON parse: a quote in a path is escaped, so the names matched are the record's
    own). Raises ValueError when a line does not match."""
    view, at = memoryview(data), 0
    for found in _RECORD.finditer(data):
        end = data.find(b"\n", at) + 1
        if not (at <= found.start() and found.end() < end and data.startswith(_HEAD, at)):
            raise ValueError(f"{name}: a document line of another shape")
        did, content, text = found.groups()
        ks = tuple(t + k for t, k in ((b"c", content), (b"t", text)) if k)
        yield did, ks, view[at:end]
        at = end
    if at != len(data):
        raise ValueError(f"{name}: a document line of another shape")


def _noted(staging: Path, config: Config) -> bool:
    """The previous commit's note: distinct, this config, its manifest's documents."""
    out = staging.parent
    try:
        body = orjson.loads((out / CURRENT / NOTE).read_bytes())
        documents = orjson.loads((out / MANIFEST).read_bytes())["documents"]
        digest = _digest(documents)  # an older manifest's one documents file: a TypeError
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (
        isinstance(body, dict)
        and body.get("distinct") is True
        and body.get("config") == config.digest()
        and body.get("documents") == digest
    )


def _fresh(changes: Path) -> set[bytes] | None:
    """The doc ids `changes` names added or changed; None past `_MOST_CHANGED`."""
    found: set[bytes] = set()
    for line in files.lines(changes):
        change = orjson.loads(line)
        if change["change"] != "removed":
            found.add(str(change["doc_id"]).encode())
            if len(found) > _MOST_CHANGED:
                return None
    return found


def _digest(documents: list[dict[str, Any]]) -> str:
    """The digest of a manifest's document shard entries (names and sha256s)."""
    joined = "\n".join(f"{d['name']} {d['sha256']}" for d in documents)
    return hashlib.sha256(joined.encode()).hexdigest()
