"""The committed files' stats, noted once their bytes are known to be the manifest's, so
that an unchanged re-run hashes only the files whose stat changed since.

Right after a commit (the files were written and hashed by that run, or checked
against the manifest by an unchanged re-run) each file of the new generation is
stat'ed and noted in `OUT/.state/vouched.json` with the manifest's sha256: size,
mtime, ctime, inode and device. A file whose stat is still the noted one has not been
written since: any write moves its ctime, which no program can set back (`touch -d`
and `os.utime` restore the mtime and move the ctime). A file whose stat differs, or a
generation without a note (one committed by an older version, or whose note was lost),
is hashed in full as before (`verify.Checking`). Not caught: bytes that change on
the disk with no write through the file system (a failing disk), which the sha256 of
every file caught; `--full` re-extracts and rewrites every file.

The note is advisory: it is written atomically, never fsynced, and a note that is
missing, unreadable or for another manifest vouches for nothing.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

import orjson

from indexer.pipeline.incremental.state import STATE_DIR
from indexer.pipeline.output.staging import CURRENT

__all__ = ["NOTE", "note", "unvouched"]

log = logging.getLogger(__name__)

NOTE = "vouched.json"
"""The note's name in `OUT/.state/`."""


def _stat(path: Path) -> list[int]:
    """The stat fields a write changes; raises OSError."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def note(out: Path, names: list[str], manifest_sha256: str) -> None:
    """Note the stats of `names` in `out`'s current generation, committed with the
    manifest whose sha256 is `manifest_sha256`. Call it only once what the commit
    does to those files is done (linking and unlinking a file moves its ctime).
    Never raises: a note not written only costs the next run its hashing."""
    generation = out / CURRENT
    try:
        files = {name: _stat(generation / name) for name in names}
        data = orjson.dumps({"manifest": manifest_sha256, "files": files})
        path = out / STATE_DIR / NOTE
        tmp = path.with_name(f".{NOTE}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("the committed files' stats were not noted: %s", exc)


def unvouched(out: Path, folder: Path, manifest: dict[str, Any], raw: bytes) -> dict[str, Any]:
    """`manifest` (read from `raw`, in `folder`) with only the document and shard files
    the note does not vouch for: those to hash. Never raises."""
    try:
        noted = orjson.loads((out / STATE_DIR / NOTE).read_bytes())
        files: dict[str, Any] = noted["files"] if isinstance(noted, dict) else {}
        if noted["manifest"] != hashlib.sha256(raw).hexdigest():
            files = {}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        files = {}

    def to_hash(listed: Any) -> Any:
        if not files or not isinstance(listed, list):
            return listed
        return [f for f in listed if not _vouched(folder, f, files)]

    return {**manifest, "documents": to_hash(manifest.get("documents")),
            "shards": to_hash(manifest.get("shards"))}  # fmt: skip


def _vouched(folder: Path, listed: Any, files: dict[str, Any]) -> bool:
    """True when the file a manifest entry lists has its noted stat, of its listed size."""
    try:
        name = listed["name"]
        stat = _stat(folder / name)
        return files.get(name) == stat and stat[0] == listed["bytes"]
    except (OSError, KeyError, TypeError):
        return False
