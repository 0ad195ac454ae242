"""Functions that run inside worker processes; module-level so they pickle by reference.

The worker does all the per-document CPU work: extraction, attachments, and the
rendering of output lines, so what crosses the pipe back is a few byte strings per
document and the parent only routes, writes and stores them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from indexer._extract import run_extractor
from indexer._pickling import slotted_state
from indexer._types import Extracted, Options
from indexer.chunking import pack
from indexer.hygiene import annotate
from indexer.pipeline.extract.counted import counted
from indexer.pipeline.extract.reading import read_one
from indexer.pipeline.output.blocks import freeze
from indexer.pipeline.output.dedup.texthash import TEXT_HASH, text_hash
from indexer.pipeline.output.records import Rendered, render, unit_docs
from indexer.pipeline.output.units import Child, Unit
from indexer.registry import ExtractorSpec, Nesting, Registry, dispatching


@slotted_state
@dataclass(frozen=True, slots=True)
class Job:
    """One document to extract: its bytes and the facts its records carry.

    With `path`, the worker reads the file itself (`data` and `sha256` empty until
    then): its bytes then never cross the pipe.
    """

    spec: ExtractorSpec
    rel: str
    data: bytes
    sha256: str
    size: int
    path: bytes | None = None
    limit: int = 0
    """With `path`: the size above which the file is `too_large`."""
    nesting: Nesting | None = None
    """Where a pending child sits (None: a document of the walk)."""


@slotted_state
@dataclass(frozen=True, slots=True)
class Finished:
    """A job's result: rendered output and the cache entry, or a unit still to complete."""

    docs: tuple[Rendered, ...]
    deps: tuple[str, ...]
    """The cache keys its attachments were extracted under (see `CacheKeys.current`)."""
    pending: Unit | None
    """Set instead of `docs` when children must still go through the isolated pool."""
    seconds: float
    sha256: str = ""
    """The content hash (computed by the worker for a job it read itself)."""
    read_error: str | None = None
    """Why a job with `path` could not be read (no docs then)."""
    bytes_read: int = 0
    blocks: bytes = b""
    """The unit before packing, for the state (`blocks.freeze`): a run with another
    packing re-packs it instead of extracting again."""
    copied: int = 0
    """Of `docs`, the children rendered from a copy's extraction (`childcopies`)."""


def extract_jobs(
    jobs: list[Job], options: Options, registry: Registry, digests: dict[str, str]
) -> list[Finished]:
    """Extract, expand attachments, key children, render and encode each job.

    Never raises for a bad document: `run_extractor` turns exceptions into results.
    """
    out = []
    for job in jobs:
        if job.path is not None:
            loaded = read_job(job)
            if isinstance(loaded, Finished):
                out.append(loaded)
                continue
            job = loaded
            del loaded  # else it keeps the file's bytes alive while the output is rendered
        started = time.perf_counter()
        unit = _extract_unit(job, options, registry)
        seconds = time.perf_counter() - started
        if any(c.pending is not None for c in unit.children):
            done = Finished(
                docs=(), deps=(), pending=_textless_unit(unit), seconds=seconds,
                sha256=job.sha256, bytes_read=len(job.data),
            )  # fmt: skip
        else:
            read = len(job.data)
            # Each step drops what the next does not need: the bytes and whole texts
            # before the blocks are frozen, the blocks once packed (a large
            # document's worker held them all while it rendered).
            job = replace(job, data=b"")
            unit = keyed(_textless_unit(unit), digests)
            blocks = freeze(unit, job.size)
            unit = packed(unit, options)
            done = _finished(job, unit, seconds, read, blocks)
        del job, unit
        out.append(done)
    return out


def read_job(job: Job) -> Job | Finished:
    """A job that was to read its file (`path`), with the bytes, hash and size read (the
    file may have changed since the walk's stat); or the `Finished` that says why the
    file could not be read."""
    assert job.path is not None
    read = read_one(job.path, job.limit)
    if read.error is not None:
        return Finished(docs=(), deps=(), pending=None, seconds=0.0, read_error=read.error)
    assert read.sha256 is not None
    return Job(job.spec, job.rel, read.data, read.sha256, len(read.data))


def extract_unit(job: Job, options: Options, registry: Registry) -> Unit:
    """The job's document and its children (attachments, members); whole texts dropped.

    The output holds chunks only, so `Extracted.text` would only double what
    crosses the pipe and what the cache stores.
    """
    return _textless_unit(_extract_unit(job, options, registry))


def _extract_unit(job: Job, options: Options, registry: Registry) -> Unit:
    with dispatching(registry):  # what an extractor hands on goes to the run's extractors
        return _dispatched(job, options, registry)


def _dispatched(job: Job, options: Options, registry: Registry) -> Unit:
    if job.spec.children is None:
        return Unit(doc=counted(run_extractor, job.spec, job.rel, job.data, options))
    # Here, not at the top: the parent imports this module for its job types, and the
    # containers' machinery is only a worker's business.
    from indexer.pipeline.extract.nest import unit_of

    doc, children = unit_of(job.spec, job.rel, job.data, options, registry, job.nesting, defer=True)
    return Unit(doc=doc, children=share_budget(children, registry))


def share_budget(children: tuple[Child, ...], registry: Registry) -> tuple[Child, ...]:
    """`children` with the unpacking budget left split among the pending containers
    (an `.eml` member of a zip, with its attached archives): each goes to the pool
    with a pickled copy of the budget, and copies of one budget would each spend all
    that is left."""
    opened: dict[int, list[tuple[int, Nesting]]] = {}  # by budget: every one shared
    for i, c in enumerate(children):
        if c.pending is None or c.nesting is None or c.extractor is None:
            continue
        if registry.get(c.extractor).children is not None:
            opened.setdefault(id(c.nesting.budget), []).append((i, c.nesting))
    out = list(children)
    for group in opened.values():
        parts = group[0][1].budget.shares(len(group))
        for (i, nesting), part in zip(group, parts, strict=True):
            out[i] = replace(children[i], nesting=replace(nesting, budget=part))
    return tuple(out)


def _textless_unit(unit: Unit) -> Unit:
    """`unit` without whole texts, to cross a pipe (rendering needs only chunks)."""
    doc = replace(unit.doc, text="")
    return Unit(doc=doc, children=tuple(_textless(c) for c in unit.children))


def finish(
    job: Job,
    unit: Unit,
    seconds: float,
    options: Options,
    bytes_read: int = 0,
    more: tuple[bytes, ...] = (),
) -> Finished:
    """Render a complete (keyed, textless) unit's documents, their blocks packed by
    `options.packing`; the blocks go along as they are, for the state, with `more`
    children's blocks encoded where they were extracted (`settle.Settled`)."""
    blocks = freeze(unit, job.size, more)
    return _finished(job, packed(unit, options), seconds, bytes_read, blocks)


def _finished(job: Job, unit: Unit, seconds: float, bytes_read: int, blocks: bytes) -> Finished:
    """The result of a complete unit, packed already, and the `blocks` it came from."""
    deps = tuple(c.key for c in unit.children if c.key is not None)
    return Finished(
        docs=rendered(job, unit, seconds), deps=deps, pending=None, seconds=seconds,
        sha256=job.sha256, bytes_read=bytes_read, blocks=blocks,
    )  # fmt: skip


def rendered(job: Job, unit: Unit, seconds: float = 0.0) -> tuple[Rendered, ...]:
    """A complete unit's documents rendered as they are (packed already)."""
    docs = unit_docs(job.rel, job.spec.kind, job.spec.name, job.sha256, job.size, unit, seconds)
    return tuple(render(d) for d in docs)


def packed(unit: Unit, options: Options) -> Unit:
    """`unit` with each document's blocks packed into retrieval chunks (`indexer.chunking`),
    then annotated as `options.hygiene` asks (`indexer.hygiene`)."""

    def prepared(doc: Extracted, kind: str | None) -> Extracted:
        if options.packing.mode != "blocks":
            doc = _packed(doc, options)
        return annotate(doc, options.hygiene, kind)

    children = tuple(
        c if c.extracted is None else replace(c, extracted=prepared(c.extracted, c.kind))
        for c in unit.children
    )
    return Unit(doc=prepared(unit.doc, unit.doc.kind), children=children)


def _packed(doc: Extracted, options: Options) -> Extracted:
    title = doc.metadata.get("title") or doc.metadata.get("subject")
    chunks = pack(
        doc.chunks,
        options.packing,
        options.max_chunk_chars,
        title if isinstance(title, str) else None,
    )
    # The text hash of the blocks, not of the packed chunks: the same text packs alike
    # whatever the chunking, and its duplicates with it (`dedup.texthash`).
    return replace(doc, chunks=chunks, metadata={**doc.metadata, TEXT_HASH: text_hash(doc.chunks)})


def keyed(unit: Unit, digests: dict[str, str]) -> Unit:
    """`unit` with each extracted child's cache key recorded (see `cache_key`), and each
    child no extractor read recording the registry's claims it was judged under."""
    if not unit.children:
        return unit
    # Here, not at the top: `keys` imports the config and the walk, which a worker
    # otherwise never needs at its start.
    from indexer.pipeline.incremental.keys import cache_key
    from indexer.pipeline.incremental.limits import CLAIMS

    def key(c: Child) -> str | None:
        if c.sha256 is None:
            return None
        if c.extractor is not None:
            known = c.extractor in digests
            return cache_key(c.sha256, c.extractor, digests[c.extractor]) if known else None
        if c.skip is not None and _unclaimed(c.skip) and CLAIMS in digests:
            return cache_key(c.sha256, CLAIMS, digests[CLAIMS])
        return None

    children = tuple(c if (k := key(c)) is None else replace(c, key=k) for c in unit.children)
    return replace(unit, children=children)


def _unclaimed(skip: str) -> bool:
    """Whether a child was passed over because no extractor claims it: an extractor
    installed later would read it."""
    return skip in ("binary", "unsupported_archive") or skip.startswith("no extractor for")


def _textless(child: Child) -> Child:
    if child.extracted is None:
        return child
    return replace(child, extracted=replace(child.extracted, text=""))
