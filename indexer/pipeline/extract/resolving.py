"""One walk entry while a batch resolves it (`batch.BatchExtractor.process`): the job
it is sent as, and the outcome it ends in (reused, copied, extracted, or its read
error as a record).
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer._extract import failed
from indexer._types import Options
from indexer.pipeline.extract.copies import Slot
from indexer.pipeline.extract.reading import ReadResult
from indexer.pipeline.extract.reuse import Hit, reused
from indexer.pipeline.extract.tasks import Finished, Job
from indexer.pipeline.incremental.state import Known
from indexer.pipeline.output.records import DocOutcome, FileOutcome, render, unit_docs
from indexer.pipeline.output.units import Unit
from indexer.pipeline.walk.walker import Entry
from indexer.registry import ExtractorSpec


@dataclass(slots=True)
class WorkItem:
    """A walk entry to resolve. Not frozen: one is made per entry, on the hot path, and a
    frozen dataclass's `__init__` costs several times as much; nothing changes one."""

    seq: int
    """Its position in the walk."""
    entry: Entry
    spec: ExtractorSpec
    """The extractor it goes to."""
    known: Known | None = None
    """What the state knew of it, when its size, mtime, inode and device were unchanged."""


@dataclass(slots=True)
class Resolving:
    """One work item while `BatchExtractor.process` resolves it."""

    item: WorkItem
    sha256: str | None
    key: str | None
    by_worker: bool = False
    """Read by the worker that extracts it (nothing stored could be found for it)."""
    read: ReadResult | None = None
    hit: Hit | None = None
    fresh: Finished | None = None
    stored: bool = False
    """Its output is buffered for the state already (isolated files, as their call ends)."""
    slot: Slot | None = None
    """Where its copies in this run find its output (`copies`): the first with its key."""
    waits: tuple[Slot, ...] = ()
    """Files of its size in flight, read by their workers: one may have its key."""
    copy_of: Slot | None = None
    """The file of this run with its key, extracted or in flight: its output is taken."""
    copied: bool = False
    """`hit` came from `copy_of` (not from the state)."""


def outcome_of(f: Resolving) -> FileOutcome:
    """The outcome `f` ends in: what was extracted or found for it, else why not (a
    read error: `skipped` as the walk would have it, or `failed`)."""
    seq, entry, spec = f.item.seq, f.item.entry, f.item.spec
    in_archive = entry.data is not None
    read = f.read
    if read is not None and read.error in SKIPPED_AT_READ:
        doc = DocOutcome(path=entry.rel, kind=None, size=entry.size, sha256=None, skip=read.error)
        return FileOutcome(seq=seq, docs=(render(doc),), in_archive=in_archive)
    if f.fresh is not None:
        fresh = f.fresh
        extracted = sum(d.status != "skipped" for d in fresh.docs) - fresh.copied
        return FileOutcome(
            seq=seq, docs=fresh.docs, extracted_now=extracted, reused=fresh.copied,
            in_archive=in_archive, bytes_read=fresh.bytes_read,
        )  # fmt: skip
    if f.hit is not None:
        return reused(seq, entry, f.hit.docs, repacked=f.hit.repacked)
    assert read is not None and read.error is not None
    unit = Unit(doc=failed(spec, b"", read.error, Options()))
    docs = unit_docs(entry.rel, spec.kind, spec.name, None, size_of(entry), unit)
    return FileOutcome(seq=seq, docs=tuple(render(d) for d in docs), in_archive=in_archive)


def job_of(f: Resolving, limit: int) -> Job:
    """What `f` is sent to its worker as: its bytes read here, or its path for the worker
    to read (`too_large` past `limit`)."""
    entry, spec = f.item.entry, f.item.spec
    if f.by_worker:
        return Job(spec, entry.rel, b"", "", size_of(entry), entry.path, limit)
    assert f.read is not None  # the size of the bytes read, as the hash: not the stat's
    return Job(spec, entry.rel, f.read.data, f.sha256 or "", len(f.read.data))


SKIPPED_AT_READ = ("not_regular_file", "too_large", "vanished")
"""Read errors that make a file `skipped`, as the walk would have: not a failure."""


def to_extract(f: Resolving) -> bool:
    """Whether `f` is to be extracted: read by its worker, or read here and not found."""
    return f.by_worker or (f.read is not None and f.read.error is None and f.hit is None)


def size_of(entry: Entry) -> int:
    """The bytes of `entry`: held (a mailbox message) or as the walk saw them."""
    return entry.size if entry.data is None else len(entry.data)
