"""The exceptions indexer raises, under one root.

    IndexerError
     ├── ConfigError          a bad option: its key, value and what is allowed (exit 2)
     ├── RegistryError        an extractor spec that cannot be registered
     ├── LockHeld             another run holds OUT's lock (exit 75)
     ├── NoWorkers            the dask cluster had no worker for `worker_wait` s (exit 3)
 ├── SourceLost           a source's server could not be reached again (exit 3)
     ├── StateError           the incremental state cannot be used
     │    ├── StateDamaged    damaged while in use: the run starts over on a new state
     │    └── StateWriteError could not be written (disk full): the run stops, state kept
     ├── PoolError            what a call did to its worker process
     │    ├── WorkerCrashed, WorkerTimeout, WorkerOutOfMemory, WorkerError
     └── WorkerStartError     a worker process could not start (a broken install)

Errors about one document never surface as exceptions: they become that document's
`failed` record. These are the errors about the run itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

__all__ = [
    "ConfigError",
    "IndexerError",
    "LockHeld",
    "NoWorkers",
    "PoolError",
    "RegistryError",
    "SourceLost",
    "StateDamaged",
    "StateError",
    "StateWriteError",
    "WorkerCrashed",
    "WorkerError",
    "WorkerOutOfMemory",
    "WorkerStartError",
    "WorkerTimeout",
]


class IndexerError(Exception):
    """The root of every exception indexer raises on purpose."""


class ConfigError(IndexerError, ValueError):
    """A configuration key has a bad value, or is not a key at all."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        """The offending key (`config` for the file itself)."""
        self.message = message
        """What is wrong, naming the key, the value and what is allowed."""


class RegistryError(IndexerError, ValueError):
    """An extractor could not be registered (bad spec or an extension clash)."""


class LockHeld(IndexerError, RuntimeError):
    """Another run holds the lock on the output folder."""

    def __init__(self, lock: Path, holder: str) -> None:
        super().__init__(f"another indexer run holds {lock} ({holder or 'unknown'})")
        self.holder = holder


class NoWorkers(IndexerError, RuntimeError):
    """The dask cluster had no worker for `worker_wait` seconds: the run cannot go on."""


class SourceLost(IndexerError, RuntimeError):
    """A source's server dropped the connection and could not be reached again within
    its retries: the run stops with nothing committed. Not an OSError: a read's
    OSError is one document's failure, this is the run's."""


class StateError(IndexerError):
    """The incremental state database cannot be used as it is."""


class StateDamaged(StateError):
    """The state database turned out damaged while in use (the run starts over on a new one)."""


class StateWriteError(StateError, OSError):
    """The state database could not be written (disk full, file size limit)."""


class PoolError(IndexerError):
    """A call failed because of what it did to its worker, or what it raised there."""

    code: ClassVar[str] = "error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        """A short human message for a document record (`killed by SIGSEGV`)."""
        self.seconds = 0.0
        """How long the call had its worker before it failed (set by the pool), so a
        file that timed out reports the time it took, not 0."""

    def __str__(self) -> str:
        return self.reason


class WorkerCrashed(PoolError):
    """The worker died during the call (a signal, `os._exit`, the OOM killer)."""

    code = "crashed"


class WorkerTimeout(PoolError):
    """The call ran past its timeout; the worker was killed."""

    code = "timeout"


class WorkerOutOfMemory(PoolError):
    """The call raised `MemoryError` (usually at `memory_limit_mb`); the worker was replaced."""

    code = "out_of_memory"


class WorkerError(PoolError):
    """The function raised an exception; only its type name and message come back."""

    code = "error"

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.args = (type_name, message)
        self.type_name = type_name
        self.message = message


class WorkerStartError(IndexerError, RuntimeError):
    """A new worker exited or stalled before it was ready (a broken install or interpreter)."""
