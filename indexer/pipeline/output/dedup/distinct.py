"""A night's duplicate pass skipped when it can change nothing: no key is repeated.

The exact pass (`decide`) reads every document of every shard and looks each content
and text hash up in the seen table: about 20 µs a document on a tree of 100,000, 40 µs
on one of a million, on every night that changed anything, however little. When it
finds no hash twice it alters nothing, and it says so in `.dedup.json` beside the
layout: the keys were distinct, under which config, for which document shards.

The next night, when that note holds for the previous commit, only the documents
`changes.ndjson` names added or changed can repeat a key: their keys are collected,
then every other document's are looked for among them (both by a byte search of the
staged lines, no JSON parse, no table). None found: the keys are still distinct, the
pass would decide nothing, and it is skipped, with the note written again. Any doubt
(a line of another shape, too many changes, a repeated key) runs the pass itself.
Only the exact pass is ever skipped: near duplicates and repeated paragraphs compare
more than hashes.
"""

from __future__ import annotations

import hashlib
import os
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
_DOC_ID, _SHA, _TEXT, _CHUNKS = b'"doc_id":"', b'"sha256":"', b'"text_sha256":"', b'"chunks":'


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


def still_distinct(staging: Path, staged: Staged, config: Config) -> bool:
    """True when the previous commit's note says its keys were distinct under this
    config, and none of the documents added or changed since repeats a key. Blocking."""
    if not skippable(config) or CHANGES not in staged.files or not _noted(staging, config):
        return False
    fresh = _fresh(staging / CHANGES)
    if fresh is None:
        return False
    names = [str(e["name"]) for e in staged.manifest_files["documents"]]
    new: set[bytes] = set()
    try:
        for did, ks in _keys(staging, names):
            if did in fresh:
                if any(k in new for k in ks):
                    return False
                new.update(ks)
        return not new or not any(
            did not in fresh and any(k in new for k in ks) for did, ks in _keys(staging, names)
        )
    except ValueError:
        return False


def _noted(staging: Path, config: Config) -> bool:
    """The previous commit's note: distinct, this config, its manifest's documents."""
    out = staging.parent
    try:
        body = orjson.loads((out / CURRENT / NOTE).read_bytes())
        documents = orjson.loads((out / MANIFEST).read_bytes())["documents"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (
        isinstance(body, dict)
        and body.get("distinct") is True
        and body.get("config") == config.digest()
        and body.get("documents") == _digest(documents)
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


def _keys(staging: Path, names: list[str]) -> Iterator[tuple[bytes, tuple[bytes, ...]]]:
    """Each staged document's doc id and keys (content and text hash prefixes, tagged,
    as the pass's seen table has them; none for a document without chunks, which the
    pass does not look up), in walk order. Raises ValueError on a line of another
    shape. A quote in a path or a reason is escaped, so the names found are the keys'."""
    for name in names:
        for line in files.lines(staging / name):
            at = line.find(_DOC_ID)
            sha = line.find(_SHA, at)
            text = line.find(_TEXT, sha)
            chunks = line.find(_CHUNKS, text)
            if min(at, sha, text, chunks) < 0:
                raise ValueError(f"{name}: a document line without its hashes")
            did = line[at + len(_DOC_ID) : at + len(_DOC_ID) + 24]
            if line[chunks + len(_CHUNKS) : chunks + len(_CHUNKS) + 2] == b"0,":
                yield did, ()
                continue
            content = line[sha + len(_SHA) : sha + len(_SHA) + 32]
            texts = line[text + len(_TEXT) : text + len(_TEXT) + 32]
            ks = tuple(t + k for t, k in ((b"c", content), (b"t", texts)) if b'"' not in k)
            yield did, ks


def _digest(documents: list[dict[str, Any]]) -> str:
    """The digest of a manifest's document shard entries (names and sha256s)."""
    joined = "\n".join(f"{d['name']} {d['sha256']}" for d in documents)
    return hashlib.sha256(joined.encode()).hexdigest()
