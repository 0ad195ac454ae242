"""The values a sink sees and returns, and the protocol it implements (`indexer.sinks`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

SINKS_DIR = ".sinks"
"""The folder of OUT where sinks keep their files (not part of the output)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Night:
    """One committed run, as a sink sees it."""

    out: Path
    """OUT; a sink's own files go under `OUT/.sinks/`."""
    generation: Path
    """The committed generation folder: the files the manifest lists, and changes.ndjson."""
    manifest_sha256: str
    """The sha256 of the committed `manifest.json`."""
    previous_sha256: str | None
    """The sha256 of the manifest that `changes.ndjson` compares with; None when there
    was no output before. A sink that applied exactly that manifest may apply the changes;
    any other must rebuild from the generation."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SinkOptions:
    """The config's settings of the built-in sinks (`[postgres]`); a plugin reads its own."""

    postgres_dsn_env: str = "INDEXER_POSTGRES_DSN"
    """The environment variable that holds the libpq connection string."""
    postgres_schema: str = "indexer"
    """The PostgreSQL schema of the sink's tables."""
    postgres_language: str = "english"
    """The text search configuration of `chunks.tsv`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Applied:
    """What a sink did for one night."""

    how: str
    """"current" (nothing to do), "changes" (changes.ndjson applied) or "rebuild"."""
    written: int = 0
    """Rows (or records) written."""
    deleted: int = 0
    """Rows (or records) deleted."""


@runtime_checkable
class Sink(Protocol):
    """An exporter run after each commit."""

    name: str

    def apply(self, night: Night) -> Applied:
        """Bring the sink up to date with `night`'s committed output; return what it did.

        May raise anything: the run reports it and stays committed. Must leave its
        target consistent when killed at any point (the next night completes it).
        """
        ...
