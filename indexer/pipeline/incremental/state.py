"""Incremental state: what earlier runs extracted, in `OUT/.state/` (SQLite, WAL).

Table `files` maps each walked path to its version token (`Entry.version`), sha256 and
cache key, and to where its rendered output lies in the append-only
`outputs/<run>-<pid>.out` files; a lookup by key
finds an output under any path (a copy, a rename, a touch). The state only ever
short-cuts extraction: one that cannot be read (any error but a lack of resources) is
moved aside and the run extracts everything; a full disk stops the run and keeps it
(`database.py`). Layout and rules: docs/architecture.md, "Incremental state".
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from indexer.errors import StateDamaged
from indexer.pipeline.incremental.database import (
    OUTPUTS_DIR,
    classified,
    open_database,
    set_aside,
)
from indexer.pipeline.incremental.spool import Spool
from indexer.pipeline.incremental.tree import Tree
from indexer.pipeline.walk.walker import Entry

log = logging.getLogger(__name__)

STATE_DIR = ".state"
STATE_FILE = "state.sqlite"

_COMPACT_BYTES = 1 << 20
"""An outputs file smaller than this is never compacted, however dead."""
_REF = "spool, at, length, crc"
"""The columns that locate a stored output (`spool.Ref`)."""


@dataclass(frozen=True, slots=True)
class Known:
    """What the state holds for an unchanged file."""

    sha256: str
    key: str | None
    """The cache key `output` was rendered under."""
    output: bytes | None
    """The file's output as stored then (`stored.encode`)."""
    deps: tuple[str, ...] = ()
    """The keys its attachments were extracted under."""


@dataclass(frozen=True, slots=True)
class Stored:
    """An output stored under a key, for whichever path it was rendered for."""

    path: str
    output: bytes
    deps: tuple[str, ...]


class FileRow(NamedTuple):
    """What `State.record` persists for one walked file."""

    entry: Entry
    sha256: str
    key: str | None
    """The cache key its output is stored under."""
    output: Sequence[bytes | bytearray] | None
    """The stored output (`stored.encode`), in parts; None for none."""
    deps: tuple[str, ...]
    """The keys its attachments were extracted under."""


class State:
    """One run's handle on the state database. Thread-safe; call from worker threads."""

    def __init__(self, path: Path, *, reuse: bool = True, shared: bool = False) -> None:
        """Open (or create) the state at `path`; a damaged one is set aside first.

        `shared`: let other processes open it meanwhile (see `database`). Raises
        `StateWriteError` when it cannot be opened (a full disk).
        """
        self.path = path
        self.reuse = reuse
        self._lock = threading.Lock()
        self._db = open_database(path, exclusive=not shared)
        self._seen_table = False
        try:
            self.run = self._next_run()
        except StateDamaged as damage:  # the run counter itself does not read
            self._db.close()
            set_aside(path, str(damage))
            self._db = open_database(path, exclusive=not shared)
            self.run = self._next_run()
        self._spool = Spool(path.parent / OUTPUTS_DIR, f"{self.run}-{os.getpid()}")
        """The outputs files; this process appends to `<run>-<pid>.out`."""

    def _next_run(self) -> int:
        with self._guarded(), self._db:
            row = self._db.execute("SELECT value FROM meta WHERE name = 'run'").fetchone()
            run = int(row[0]) + 1 if row else 1
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (str(run),))
        return run

    def share(self) -> None:
        """Let other processes open the state from now on (dask workers joining this
        run): reopen it in SQLite's normal locking mode, with its shared-memory file."""
        with self._lock:
            self._db.close()
            self._db = open_database(self.path, exclusive=False)
            self._seen_table = False

    @property
    def committed_tree(self) -> Tree | None:
        """The walk behind the committed output in OUT, as `mark_committed` noted it."""
        with self._lock, self._guarded():
            row = self._db.execute("SELECT value FROM meta WHERE name = 'committed'").fetchone()
        return Tree.from_json(row[0]) if row else None

    def mark_committed(self, tree: Tree | None) -> None:
        """Note, after the commit, that this run's output is the committed one, made of
        the walk `tree` describes (None when unknown: no re-run may trust a walk then)."""
        with self._lock, self._guarded(), self._db:
            if tree is None:
                self._db.execute("DELETE FROM meta WHERE name = 'committed'")
            else:
                self._db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('committed', ?)", (tree.to_json(),)
                )

    def known(self, entries: Sequence[Entry]) -> list[Known | None]:
        """What the last runs knew of each entry whose version token is unchanged: its
        content hash and, when stored, its rendered output and that
        output's cache key. None for entries that changed or are new."""
        if not self.reuse or not entries:
            return [None] * len(entries)
        with self._lock, self._guarded():
            rows = self._select(
                f"SELECT path, version, sha256, key, deps, {_REF} FROM files WHERE path IN",
                [e.rel for e in entries],
            )
            found = {row[0]: row for row in rows}
            out: list[Known | None] = []
            for entry in entries:
                row = found.get(entry.rel)
                if row is not None and row[1] == entry.version:
                    output = self._spool.load(*row[5:9])
                    out.append(Known(row[2], row[3] if output else None, output, deps_of(row[4])))
                else:
                    out.append(None)
        return out

    def noted(self, paths: Sequence[str]) -> dict[str, str]:
        """The version token noted for each of `paths` it holds."""
        if not self.reuse or not paths:
            return {}
        with self._lock, self._guarded():
            rows = self._select("SELECT path, version FROM files WHERE path IN", list(paths))
        return {row[0]: row[1] for row in rows}

    def empty(self) -> bool:
        """True when there is nothing to reuse (no stored output, or `reuse` is off)."""
        if not self.reuse:
            return True
        with self._lock, self._guarded():
            return self._db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None

    def lookup(self, keys: Sequence[str]) -> list[Stored | None]:
        """An output stored under each key (by any path: the first in order), or None."""
        if not self.reuse or not keys:
            return [None] * len(keys)
        with self._lock, self._guarded():
            rows = self._select(
                f"SELECT key, path, deps, {_REF} FROM files WHERE spool IS NOT NULL AND key IN",
                list(keys),
            )
            found: dict[str, Stored] = {}
            for key, path, deps, *ref in sorted(rows, key=lambda r: (r[0], r[1])):
                if key not in found and (output := self._spool.load(*ref)) is not None:
                    found[key] = Stored(path, output, deps_of(deps))
        return [found.get(k) for k in keys]

    def _select(self, query: str, values: list[str]) -> list[Any]:
        marks = ",".join("?" * len(values))
        return self._db.execute(f"{query} ({marks})", values).fetchall()

    def record(self, files: Sequence[FileRow]) -> None:
        """Persist file rows in one transaction.

        Raises `StateWriteError` when the database cannot be written (disk full).
        """
        with self._lock:
            rows = [
                (e.rel, e.version, sha, self.run, key,
                 "\n".join(deps) or None, *self._spool.append(output))
                for e, sha, key, output, deps in files
            ]  # fmt: skip
            self._spool.flush()  # the bytes reach the file before the rows that point at them
            with self._guarded(), self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )

    def _guarded(self) -> AbstractContextManager[None]:
        """Errors of the database become `StateWriteError` (disk full: the run stops,
        the state is kept) or `StateDamaged` (the run starts over on a new state)."""
        return classified(self.path)

    def mark_seen(self, paths: Sequence[str]) -> None:
        """Note walked paths, so that `sweep` keeps their rows. They go to a temporary
        table: marking a row itself would rewrite its stored output."""
        with self._lock, self._guarded():
            if not self._seen_table:
                self._db.execute("CREATE TEMP TABLE IF NOT EXISTS seen (path TEXT PRIMARY KEY)")
                self._seen_table = True
            with self._db:
                self._db.executemany(
                    "INSERT OR IGNORE INTO temp.seen VALUES (?)", [(p,) for p in paths]
                )

    def sweep(self) -> None:
        """After a commit: forget the files this run did not walk (or skipped), then tidy the
        outputs files (see the module doc)."""
        with self._lock, self._guarded(), self._db:
            if self._seen_table:
                self._db.execute(
                    "DELETE FROM files WHERE path IN (SELECT path FROM files"
                    " WHERE path NOT IN (SELECT path FROM temp.seen))"
                )
            else:
                self._db.execute("DELETE FROM files")
        with self._lock, self._guarded():
            try:
                self._collect()
            except OSError as exc:  # the output is committed; the next sweep tries again
                log.warning("could not tidy %s: %s", self._spool.outputs, exc)

    def _collect(self) -> None:
        """Delete the outputs files no row uses; compact those more than half dead."""
        live = dict(
            self._db.execute(
                "SELECT spool, SUM(length) FROM files WHERE spool IS NOT NULL GROUP BY spool"
            ).fetchall()
        )
        if not self._spool.outputs.is_dir():
            return
        for path in sorted(self._spool.outputs.glob("*.out")):
            stem = path.stem
            if stem == self._spool.stem and stem in live:
                continue
            if stem not in live:
                self._spool.forget(stem)
                path.unlink()
            elif path.stat().st_size > max(_COMPACT_BYTES, 2 * live[stem]):
                self._compact(stem)
                path.unlink()

    def _compact(self, stem: str) -> None:
        """Move the outputs still used from `stem`'s file into this process's."""
        rows = self._db.execute(
            f"SELECT path, {_REF} FROM files WHERE spool = ? ORDER BY at", (stem,)
        ).fetchall()
        moved = []
        for path, *ref in rows:
            output = self._spool.load(*ref)  # a damaged one is forgotten: its file is redone
            moved.append((*self._spool.append(None if output is None else (output,)), path))
        self._spool.flush()
        with self._guarded(), self._db:
            self._db.executemany(
                "UPDATE files SET spool = ?, at = ?, length = ?, crc = ? WHERE path = ?", moved
            )
        self._spool.forget(stem)

    def close(self) -> None:
        """Close the database and the outputs files."""
        with self._lock:
            self._db.close()
            self._spool.close()

    def discard(self, damage: StateDamaged) -> None:
        """Close the database and set its file aside: the next `State` starts empty."""
        self.close()
        set_aside(self.path, str(damage))


def deps_of(text: str | None) -> tuple[str, ...]:
    """The attachment keys of a row's `deps` column."""
    return tuple(text.split("\n")) if text else ()
