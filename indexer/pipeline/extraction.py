"""Turning a batch of walk entries into file outcomes: reuse, read, extract, remember.

For each batch: entries whose size, mtime, inode and device are unchanged since
the last run get their content hash from the state without being read; every
other entry is read and hashed in one thread hop. Units cached under the same
content hash, extractor version and options are reused; the rest go to a
process pool (the isolated one for extractors that ask for it; a mail's attached
PDFs too) and are stored as soon as they are complete, so a killed run loses
only what was in flight.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import replace

import anyio

from indexer._extract import failed, failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.config import Config
from indexer.pipeline.pool import PoolError, WorkerPool
from indexer.pipeline.reading import Content, ReadResult, read_files
from indexer.pipeline.records import DocOutcome, FileOutcome
from indexer.pipeline.state import State
from indexer.pipeline.tasks import Item, extract_units
from indexer.pipeline.units import Child, Unit
from indexer.pipeline.walk import Entry
from indexer.registry import ExtractorSpec, Registry

log = logging.getLogger(__name__)

Work = list[tuple[int, Entry, ExtractorSpec]]
Timed = tuple[Unit, float]
POOL_FAILURES = ("crashed", "timeout", "out_of_memory")
"""Failure codes from the isolation limits: retried by the next run, never cached."""


class BatchExtractor:
    """Resolves batches of walk entries into `FileOutcome`s."""

    def __init__(
        self,
        config: Config,
        registry: Registry,
        general: WorkerPool,
        isolated: WorkerPool,
        state: State | None,
    ) -> None:
        self.config = config
        self.registry = registry
        self.options: Options = config.extract_options()
        self.general = general
        self.isolated = isolated
        self.state = state
        self._limits = f"{config.timeout:g}s/{config.max_memory_mb}MB"
        self._digests: dict[str, str] = {}

    def key(self, sha256: str, spec: ExtractorSpec) -> str:
        """The cache key of `spec`'s unit on content `sha256` under this run's options.

        Only the options the extractor declares it uses count, plus the isolation
        limits for isolated extractors, so changing `rows_per_chunk` re-extracts
        CSV files and nothing else. A cached mail also records its attachments' keys
        and is reused only while they all still hold (`_current`).
        """
        digest = self._digests.get(spec.name)
        if digest is None:
            raw = self.options.digest(spec.options_used) + f"|{spec.version}"
            if spec.isolated:
                raw += f"|{self._limits}"
            digest = self._digests[spec.name] = hashlib.sha256(raw.encode()).hexdigest()[:16]
        return f"{sha256}:{spec.name}:{digest}"

    def _current(self, unit: Unit) -> bool:
        """True when every child of a cached unit was extracted under today's key."""
        for child in unit.children:
            if child.extractor is None:
                continue
            try:
                spec = self.registry.get(child.extractor)
            except KeyError:
                return False
            if child.key != self.key(child.sha256, spec):
                return False
        return True

    def _keyed(self, unit: Unit) -> Unit:
        children = tuple(
            replace(c, key=self.key(c.sha256, self.registry.get(c.extractor)))
            if c.extractor is not None
            else c
            for c in unit.children
        )
        return replace(unit, children=children) if children else unit

    async def process(self, work: Work) -> list[FileOutcome]:
        """Return one outcome per entry of `work`, in the same order. Never raises for a file."""
        entries = [entry for _, entry, _ in work]
        hashes = await self._known_hashes(entries)
        found = await self._lookup(
            [self.key(h, spec) if h else None for h, (_, _, spec) in zip(hashes, work, strict=True)]
        )
        to_read = [i for i, hit in enumerate(found) if hit is None]
        reads = dict(
            zip(
                to_read,
                await anyio.to_thread.run_sync(
                    read_files, [_source(entries[i]) for i in to_read], self.config.max_file_bytes
                ),
                strict=True,
            )
        )
        for i, read in reads.items():
            if read.sha256 is not None:
                hashes[i] = read.sha256
        second = await self._lookup(
            [self.key(r.sha256, work[i][2]) if r.sha256 else None for i, r in reads.items()]
        )
        for i, hit in zip(reads, second, strict=True):
            found[i] = hit
        todo = [i for i, read in reads.items() if read.error is None and found[i] is None]
        fresh = await self._extract([(work[i][2], entries[i].rel, reads[i].data) for i in todo])
        await self._remember(work, hashes, todo, fresh)
        results = dict(zip(todo, fresh, strict=True))
        return [
            _outcome(seq, entry, spec, hashes[i], reads.get(i), found[i], results.get(i))
            for i, (seq, entry, spec) in enumerate(work)
        ]

    async def _known_hashes(self, entries: list[Entry]) -> list[str | None]:
        if self.state is None:
            return [None] * len(entries)
        return await anyio.to_thread.run_sync(self.state.known_hashes, entries)

    async def _lookup(self, keys: Sequence[str | None]) -> list[Unit | None]:
        wanted = [k for k in keys if k]
        if self.state is None or not wanted:
            return [None] * len(keys)
        hits = iter(await anyio.to_thread.run_sync(self.state.lookup, wanted))
        found = [next(hits) if k else None for k in keys]
        return [u if u is not None and self._current(u) else None for u in found]

    async def _remember(
        self, work: Work, hashes: list[str | None], todo: list[int], fresh: list[Timed]
    ) -> None:
        if self.state is None:
            return
        files = [(entry, h) for (_, entry, _), h in zip(work, hashes, strict=True) if h]
        results = [
            (self.key(hashes[i], work[i][2]), unit)  # type: ignore[arg-type]
            for i, (unit, _) in zip(todo, fresh, strict=True)
            if not unit.failed_by(POOL_FAILURES)
        ]
        await anyio.to_thread.run_sync(self.state.record, files, results)

    async def _extract(self, items: list[Item]) -> list[Timed]:
        plain = [i for i, item in enumerate(items) if not item[0].isolated]
        alone = [i for i, item in enumerate(items) if item[0].isolated]
        out: dict[int, Timed] = {}
        async with anyio.create_task_group() as tg:
            if plain:
                tg.start_soon(self._run_batch, self.general, [items[i] for i in plain], plain, out)
            for i in alone:
                tg.start_soon(self._run_batch, self.isolated, [items[i]], [i], out)
        units = [out[i] for i in range(len(items))]
        return [(self._keyed(await self._complete(unit)), seconds) for unit, seconds in units]

    async def _run_batch(
        self, pool: WorkerPool, items: list[Item], slots: list[int], out: dict[int, Timed]
    ) -> None:
        try:
            timeout = self.config.timeout
            results = await pool.run(
                extract_units, items, self.options, self.registry, timeout=timeout
            )
            out.update(zip(slots, results, strict=True))
            return
        except PoolError as exc:
            if len(items) == 1:
                out[slots[0]] = (Unit(doc=self._pool_failure(items[0][0].kind, exc)), 0.0)
                return
            log.debug("batch of %d failed (%s); retrying one by one", len(items), exc.reason)
        for slot, item in zip(slots, items, strict=True):
            await self._run_batch(pool, [item], [slot], out)

    async def _complete(self, unit: Unit) -> Unit:
        """Extract the unit's pending (isolated) children in the isolated pool."""
        pending = [i for i, child in enumerate(unit.children) if child.pending is not None]
        if not pending:
            return unit
        children = list(unit.children)

        async def one(i: int) -> None:
            children[i] = await self._isolated_child(children[i])

        async with anyio.create_task_group() as tg:
            for i in pending:
                tg.start_soon(one, i)
        return replace(unit, children=tuple(children))

    async def _isolated_child(self, child: Child) -> Child:
        assert child.pending is not None and child.extractor is not None
        spec = self.registry.get(child.extractor)
        item = (spec, child.suffix.rsplit("/", 1)[-1], child.pending)
        slot: dict[int, Timed] = {}
        await self._run_batch(self.isolated, [item], [0], slot)
        return replace(child, extracted=slot[0][0].doc, pending=None)

    def _pool_failure(self, kind: str, exc: PoolError) -> Extracted:
        detail = exc.reason
        if exc.code == "timeout":
            detail = f"timeout after {self.config.timeout:g} s"
        elif exc.code == "out_of_memory":
            detail = f"out of memory (limit {self.config.max_memory_mb} MB)"
        chunk = Chunk(text=failure_text(kind, detail))
        return Extracted(kind=kind, text="", chunks=(chunk,), degraded=True, error=exc.code)


def _outcome(
    seq: int,
    entry: Entry,
    spec: ExtractorSpec,
    sha256: str | None,
    read: ReadResult | None,
    cached: Unit | None,
    fresh: Timed | None,
) -> FileOutcome:
    if read is not None and read.error in ("not_regular_file", "too_large"):
        doc = DocOutcome(path=entry.rel, kind=None, size=entry.size, sha256=None, skip=read.error)
        return FileOutcome(seq=seq, docs=(doc,))
    unit: Unit | None
    if read is not None and read.error is not None:
        unit, seconds, sha256 = Unit(doc=failed(spec, b"", read.error, Options())), 0.0, None
    else:
        unit, seconds = fresh if fresh is not None else (cached, 0.0)
    assert unit is not None
    size = entry.size if entry.data is None else len(entry.data)
    docs = [
        DocOutcome(
            path=entry.rel, kind=spec.kind, size=size, sha256=sha256,
            extractor=spec.name, extracted=unit.doc, seconds=seconds,
        ),
        *(
            DocOutcome(
                path=entry.rel + child.suffix, kind=child.kind, size=child.size,
                sha256=child.sha256, extractor=child.extractor, extracted=child.with_meta(),
                skip=child.skip,
            )
            for child in unit.children
        ),
    ]  # fmt: skip
    extracted = sum(d.extracted is not None for d in docs)
    return FileOutcome(
        seq=seq,
        docs=tuple(docs),
        extracted_now=extracted if fresh is not None else 0,
        reused=extracted if cached is not None and fresh is None else 0,
        in_archive=entry.data is not None,
        bytes_read=0 if read is None else len(read.data),
    )


def _source(entry: Entry) -> bytes | Content:
    return entry.path if entry.data is None else Content(entry.data)
