"""Turning a batch of walk entries into file outcomes: reuse, read, extract, remember.

For each batch: entries whose size, mtime, inode and device are unchanged since
the last run get their content hash from the state without being read; every
other entry is read and hashed in one thread hop. Results cached under the same
content hash, extractor version and options are reused; the rest go to a
process pool (the isolated one for extractors that ask for it) and are stored as
soon as they come back, so a killed run loses only what was in flight.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

import anyio

from indexer._extract import failed, failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.config import Config
from indexer.pipeline.pool import PoolError, WorkerPool
from indexer.pipeline.reading import ReadResult, read_files
from indexer.pipeline.records import DocOutcome, FileOutcome
from indexer.pipeline.state import State
from indexer.pipeline.tasks import extract_batch
from indexer.pipeline.walk import Entry
from indexer.registry import ExtractorSpec

log = logging.getLogger(__name__)

Work = list[tuple[int, Entry, ExtractorSpec]]
POOL_FAILURES = ("crashed", "timeout", "out_of_memory")
"""Failure codes from the isolation limits: retried by the next run, never cached."""


class BatchExtractor:
    """Resolves batches of walk entries into `FileOutcome`s."""

    def __init__(
        self, config: Config, general: WorkerPool, isolated: WorkerPool, state: State | None
    ) -> None:
        self.config = config
        self.options: Options = config.extract_options()
        self.general = general
        self.isolated = isolated
        self.state = state
        self._limits = f"{config.timeout:g}s/{config.max_memory_mb}MB"
        self._digests: dict[str, str] = {}

    def key(self, sha256: str, spec: ExtractorSpec) -> str:
        """The cache key of `spec`'s result on content `sha256` under this run's options.

        Only the options the extractor declares it uses count, plus the isolation
        limits for isolated extractors, so changing `rows_per_chunk` re-extracts
        CSV files and nothing else.
        """
        digest = self._digests.get(spec.name)
        if digest is None:
            raw = self.options.digest(spec.options_used)
            if spec.isolated:
                raw = hashlib.sha256(f"{raw}|{self._limits}".encode()).hexdigest()[:16]
            digest = self._digests[spec.name] = raw
        return f"{sha256}:{spec.name}:{spec.version}:{digest}"

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
                    read_files, [entries[i].path for i in to_read], self.config.max_file_bytes
                ),
                strict=True,
            )
        )
        for i, read in reads.items():
            if read.sha256 is not None:
                hashes[i] = read.sha256
        second = await self._lookup(
            [
                self.key(read.sha256, work[i][2]) if read.sha256 else None
                for i, read in reads.items()
            ]
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

    async def _lookup(self, keys: Sequence[str | None]) -> list[Extracted | None]:
        wanted = [k for k in keys if k]
        if self.state is None or not wanted:
            return [None] * len(keys)
        hits = iter(await anyio.to_thread.run_sync(self.state.lookup, wanted))
        return [next(hits) if k else None for k in keys]

    async def _remember(
        self,
        work: Work,
        hashes: list[str | None],
        todo: list[int],
        fresh: list[tuple[Extracted, float]],
    ) -> None:
        if self.state is None:
            return
        files = [(entry, h) for (_, entry, _), h in zip(work, hashes, strict=True) if h]
        results = [
            (self.key(hashes[i], work[i][2]), result)  # type: ignore[arg-type]
            for i, (result, _) in zip(todo, fresh, strict=True)
            if result.error not in POOL_FAILURES
        ]
        await anyio.to_thread.run_sync(self.state.record, files, results)

    async def _extract(
        self, items: list[tuple[ExtractorSpec, str, bytes]]
    ) -> list[tuple[Extracted, float]]:
        plain = [i for i, item in enumerate(items) if not item[0].isolated]
        alone = [i for i, item in enumerate(items) if item[0].isolated]
        out: dict[int, tuple[Extracted, float]] = {}
        async with anyio.create_task_group() as tg:
            if plain:
                tg.start_soon(self._run_batch, self.general, [items[i] for i in plain], plain, out)
            for i in alone:
                tg.start_soon(self._run_batch, self.isolated, [items[i]], [i], out)
        return [out[i] for i in range(len(items))]

    async def _run_batch(
        self,
        pool: WorkerPool,
        items: list[tuple[ExtractorSpec, str, bytes]],
        slots: list[int],
        out: dict[int, tuple[Extracted, float]],
    ) -> None:
        try:
            results = await pool.run(
                extract_batch, items, self.options, timeout=self.config.timeout
            )
            out.update(zip(slots, results, strict=True))
            return
        except PoolError as exc:
            if len(items) == 1:
                out[slots[0]] = (self._pool_failure(items[0][0], exc), 0.0)
                return
            log.debug("batch of %d failed (%s); retrying one by one", len(items), exc.reason)
        for slot, item in zip(slots, items, strict=True):
            await self._run_batch(pool, [item], [slot], out)

    def _pool_failure(self, spec: ExtractorSpec, exc: PoolError) -> Extracted:
        detail = exc.reason
        if exc.code == "timeout":
            detail = f"timeout after {self.config.timeout:g} s"
        elif exc.code == "out_of_memory":
            detail = f"out of memory (limit {self.config.max_memory_mb} MB)"
        chunk = Chunk(text=failure_text(spec.kind, detail))
        return Extracted(kind=spec.kind, text="", chunks=(chunk,), degraded=True, error=exc.code)


def _outcome(
    seq: int,
    entry: Entry,
    spec: ExtractorSpec,
    sha256: str | None,
    read: ReadResult | None,
    cached: Extracted | None,
    fresh: tuple[Extracted, float] | None,
) -> FileOutcome:
    if read is not None and read.error in ("not_regular_file", "too_large"):
        doc = DocOutcome(path=entry.rel, kind=None, size=entry.size, sha256=None, skip=read.error)
        return FileOutcome(seq=seq, docs=(doc,))
    extracted: Extracted | None
    if read is not None and read.error is not None:
        extracted, seconds, sha256 = failed(spec, b"", read.error, Options()), 0.0, None
    else:
        extracted, seconds = fresh if fresh is not None else (cached, 0.0)
    assert extracted is not None
    doc = DocOutcome(
        path=entry.rel,
        kind=spec.kind,
        size=entry.size,
        sha256=sha256,
        extractor=spec.name,
        extracted=extracted,
        seconds=seconds,
    )
    return FileOutcome(
        seq=seq,
        docs=(doc,),
        extracted_now=int(fresh is not None),
        bytes_read=0 if read is None else len(read.data),
    )
