"""The state's SQLite file: opening it, and telling damage from a lack of resources.

Two kinds of error come out of a state database, and they cost different things:

- `StateWriteError` (an OSError): the database could not be used for want of
  resources: the disk is full, an I/O error, a file size limit, a lock. The run
  stops (exit 3) and the state is kept as it is, for the run after the space is
  freed.
- `StateDamaged`: anything else met while reading or writing it: a damaged page,
  a value that does not decode (bad UTF-8 in a text column) or parse, a table
  that is not there. The state only ever short-cuts extraction, so the file is
  set aside with a warning and the run starts over on a new one.

One run holds OUT (its `flock`), so the local engine opens the file in SQLite's
exclusive locking mode before WAL: the WAL index then lives in the process's
memory, not in a `-shm` file mapped from the disk (creating that file on a full
disk failed as a "disk I/O error", and writing its pages on a nearly full ext4 of
1 KiB blocks killed the run with SIGBUS). Dask workers join the driver's run with
connections of their own, so the driver's is reopened shared (`State.share`).
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.errors import StateDamaged, StateWriteError

log = logging.getLogger(__name__)

OUTPUTS_DIR = "outputs"
SCHEMA = "7"

_DDL = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, version TEXT,
    sha256 TEXT NOT NULL, run INTEGER NOT NULL, key TEXT, deps TEXT,
    spool TEXT, at INTEGER, length INTEGER, crc INTEGER);
CREATE INDEX IF NOT EXISTS files_key ON files (key);
"""
_UNAVAILABLE = frozenset(
    {
        sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY, sqlite3.SQLITE_INTERRUPT, sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL,
        sqlite3.SQLITE_NOLFS,
    }
)  # fmt: skip
"""SQLite's primary result codes for a database that cannot be used for now."""


@contextmanager
def classified(path: Path) -> Iterator[None]:
    """Turn an error of the database at `path` into `StateWriteError` or `StateDamaged`
    (see the module doc). A value of the wrong type or form counts as damage too."""
    try:
        yield
    except sqlite3.Error as exc:
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and code & 0xFF in _UNAVAILABLE:
            raise StateWriteError(f"cannot use {path}: {exc}{_free(path)}") from exc
        raise StateDamaged(f"{path}: {exc}") from exc
    except (ValueError, TypeError, AttributeError) as exc:  # UnicodeDecodeError too
        raise StateDamaged(f"{path}: {type(exc).__name__}: {exc}") from exc


def _free(path: Path) -> str:
    """How much room is left beside `path`, for the message: SQLite says "disk I/O
    error" for a full disk too."""
    try:
        info = os.statvfs(path.parent)
    except OSError:
        return ""
    return f" ({info.f_bavail * info.f_frsize // 1024} KiB free on its filesystem)"


def open_database(path: Path, *, exclusive: bool) -> sqlite3.Connection:
    """A connection to the state at `path`, created when missing. A damaged file is set
    aside first (`set_aside`); raises `StateWriteError` when it cannot be opened."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with classified(path):
            return connect(path, exclusive=exclusive)
    except StateDamaged as damage:
        set_aside(path, str(damage))
    with classified(path):
        return connect(path, exclusive=exclusive)


def connect(path: Path, *, exclusive: bool) -> sqlite3.Connection:
    """Open `path` in WAL mode (`exclusive`: without a shared-memory file), create the
    tables, check the schema; raises `sqlite3.DatabaseError` for another schema."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        if exclusive:  # before WAL is first used: see the module doc
            db.execute("PRAGMA locking_mode = EXCLUSIVE")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.executescript(_DDL)
        row = db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        if row is None:
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
        elif row[0] != SCHEMA:
            raise sqlite3.DatabaseError(f"schema {row[0]}, expected {SCHEMA}")
        # No `quick_check` here: it reads the whole file on every run. A damaged page
        # is met when a query reads it instead, as `StateDamaged`, and the run starts
        # over on a new state.
    except BaseException:
        db.close()
        raise
    db.isolation_level = "DEFERRED"
    return db


def set_aside(path: Path, why: str) -> None:
    """Move an unusable state file (and its WAL) to `<name>.corrupt`, with a warning;
    the next `State` on `path` starts empty."""
    aside = path.with_name(path.name + ".corrupt")
    why = " ".join(why.split())[:300]  # one line in a cron mail
    log.warning(
        "state file %s is unusable (%s); moved to %s, extracting everything", path, why, aside
    )
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            src.replace(Path(str(aside) + suffix))
    shutil.rmtree(path.parent / OUTPUTS_DIR, ignore_errors=True)  # no row points there now
