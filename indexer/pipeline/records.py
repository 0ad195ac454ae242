"""What one walked file became, and the NDJSON records written for it.

Every path the walker meets ends in exactly one `FileOutcome` with at least one
`DocOutcome` (a skipped file gets a `skipped` document), so nothing vanishes.
Record builders are pure functions of the outcome: no clocks, no randomness, no
dict-order accidents, so the same input gives the same bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from indexer._types import Extracted


@dataclass(frozen=True, slots=True, kw_only=True)
class DocOutcome:
    """One document: a file, or a part of one (a message of an mbox, an attachment)."""

    path: str
    """Relative POSIX path; children append `#<n>` or `#att/<k>/<name>`."""
    kind: str | None
    size: int
    sha256: str | None
    """Hash of the document's own bytes; None when they were never read."""
    extractor: str | None = None
    extracted: Extracted | None = None
    """None for skipped documents."""
    skip: str | None = None
    """Why the document was passed over, else None."""
    seconds: float = 0.0
    """Extraction time; reported in run.json only, never in the output."""
    container: bool = False
    """An archive (an mbox) whose documents follow it; `ok` with no chunks of its own."""

    @property
    def status(self) -> str:
        """`skipped`, or the extraction's status (`ok`, `degraded`, `empty`, `failed`)."""
        if self.extracted is None:
            return "skipped"
        if self.container:
            return "ok"
        return self.extracted.status

    @property
    def reason(self) -> str | None:
        """The skip reason or the failure reason, else None."""
        if self.extracted is None:
            return self.skip
        return self.extracted.error


@dataclass(frozen=True, slots=True, kw_only=True)
class FileOutcome:
    """Everything one walk entry produced, tagged with its position in the walk."""

    seq: int
    docs: tuple[DocOutcome, ...]
    extracted_now: int = 0
    """How many documents were extracted in this run."""
    reused: int = 0
    """How many documents were reused from an earlier run's extraction."""
    in_archive: bool = False
    """A message split out of an mbox: counted as a document, not as a file."""
    bytes_read: int = 0
    pages: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    """Walk facts for the incremental state (size, mtime_ns, inode); not in the output."""


def doc_id(path: str) -> str:
    """A document's stable id: derived from its relative path, never random."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def render(doc: DocOutcome) -> tuple[str, list[bytes], bytes]:
    """Return `doc`'s id, its chunk record lines and its `documents.ndjson` line."""
    did = doc_id(doc.path)
    lines = [orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in chunk_records(doc, did)]
    digest = hashlib.sha256(b"".join(lines)).hexdigest()[:32]
    record = document_record(doc, did, digest)
    return did, lines, orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def chunk_records(doc: DocOutcome, did: str) -> list[dict[str, Any]]:
    """Return the chunk records of `doc`, in chunk order (none for skipped documents)."""
    if doc.extracted is None:
        return []
    degraded = doc.extracted.degraded
    return [
        {
            "id": f"{did}:{i}",
            "doc_id": did,
            "path": doc.path,
            "kind": doc.kind,
            "chunk": i,
            "text": chunk.text,
            "meta": chunk.meta,
            "degraded": degraded,
            "sha256": doc.sha256,
        }
        for i, chunk in enumerate(doc.extracted.chunks)
    ]


def document_record(doc: DocOutcome, did: str, digest: str) -> dict[str, Any]:
    """Return the `documents.ndjson` record of `doc`; `digest` hashes its chunk lines."""
    extracted = doc.extracted
    return {
        "path": doc.path,
        "doc_id": did,
        "kind": doc.kind,
        "bytes": doc.size,
        "sha256": doc.sha256,
        "status": doc.status,
        "reason": doc.reason,
        "extractor": doc.extractor,
        "chunks": 0 if extracted is None else len(extracted.chunks),
        "digest": digest,
        "metadata": {} if extracted is None else extracted.metadata,
    }
