"""What a run staged (files and tallies), its manifest, and committing it.

Apart from the engine, so that a re-run over an unchanged tree can re-commit the
previous output without importing the extraction machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from indexer.config import Config
from indexer.pipeline.output.ocrcounts import RunOcr
from indexer.pipeline.output.staging import commit
from indexer.registry import Registry

if TYPE_CHECKING:  # an unchanged re-run need not import records for a type
    from indexer.pipeline.output.records import FileOutcome


@dataclass(slots=True)
class Tally:
    """Counts and timings gathered by the writer, for the manifest, summary and run.json."""

    files: int = 0
    documents: int = 0
    chunks: int = 0
    bytes_read: int = 0
    extracted_now: int = 0
    reused: int = 0
    repacked: int = 0
    pages: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)
    slowest: list[tuple[float, str]] = field(default_factory=list)
    changes: dict[str, int] = field(default_factory=dict)
    excluded: int = 0
    """Walk files (not members) left out by the include/exclude globs; among `files`."""
    duplicates: int = 0
    """Documents whose `duplicate_of` names an earlier one (`dedup.decide`)."""
    near_duplicates: int = 0
    """Documents in an earlier one's near-duplicate cluster (`dedup.near`)."""
    boilerplate: int = 0
    """Documents that left a repeated paragraph out of their chunks (`dedup.boilerplate`)."""
    ocr: RunOcr = field(default_factory=RunOcr)
    """What OCR did for the documents counted here (`ocrcounts`), for run.json."""

    def add(self, outcome: FileOutcome, chunks: int) -> None:
        """Count one written file outcome."""
        self.files += not outcome.in_archive
        if not outcome.in_archive and outcome.docs:  # the file's own record, not its members'
            self.excluded += outcome.docs[0].excluded
        self.chunks += chunks
        self.bytes_read += outcome.bytes_read
        self.extracted_now += outcome.extracted_now
        self.reused += outcome.reused
        self.repacked += outcome.repacked
        for doc in outcome.docs:
            self.documents += 1
            self.by_status[doc.status] = self.by_status.get(doc.status, 0) + 1
            kind = doc.kind or "none"
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
            self.pages += doc.pages
            self.slowest.append((doc.seconds, doc.path))
            self.ocr.add(doc.ocr, doc.ocr_seconds, cached=outcome.cached)
        if len(self.slowest) > 64:
            self.slowest = sorted(self.slowest, reverse=True)[:10]


@dataclass(frozen=True, slots=True, kw_only=True)
class Staged:
    """What the writer staged: the files to commit and the tallies."""

    files: list[str]
    manifest_files: dict[str, Any]
    tally: Tally
    unchanged: bool = False
    """The previous output, re-committed as it was (`unchanged.py`)."""
    tree: bytes | None = None
    """The digests of the walk behind the staged output (`tree.Digests`), when known."""
    redo: int = 0
    """Files stored with no output for reuse (`BatchExtractor.redo`): the next run does
    them again, so the state notes no walk for this output (`run.commit._tree`)."""


def manifest(config: Config, registry: Registry, staged: Staged) -> dict[str, Any]:
    """The manifest: deterministic facts about the committed output, nothing time-dependent."""
    from indexer._version import CONTRACT, OUTPUT_FORMAT, SHARD_LAYOUT, __version__

    tally = staged.tally
    packed = {"output_format": OUTPUT_FORMAT} if config.chunking == "packed" else {}
    return {
        "contract": CONTRACT,
        "version": __version__,
        **packed,
        "shard_layout": SHARD_LAYOUT,
        "config_digest": config.digest(),
        "extractors": {s.name: s.version for s in registry.extractors()},
        "counts": {
            "files": tally.files,
            "documents": tally.documents,
            "chunks": tally.chunks,
            "by_status": dict(sorted(tally.by_status.items())),
            "by_kind": dict(sorted(tally.by_kind.items())),
            # Only when some are: a run without globs keeps its manifest's bytes.
            **({"excluded": tally.excluded} if tally.excluded else {}),
            **({"duplicates": tally.duplicates} if tally.duplicates else {}),
            **({"near_duplicates": tally.near_duplicates} if tally.near_duplicates else {}),
            **({"boilerplate": tally.boilerplate} if tally.boilerplate else {}),
        },
        **staged.manifest_files,
    }


async def commit_staged(out: Path, manifest_data: dict[str, Any], staged: Staged) -> str:
    """Commit the staged files into `out` (in a thread: it fsyncs); return the sha256
    of the manifest written."""
    return await anyio.to_thread.run_sync(commit, out, manifest_data, staged.files)
