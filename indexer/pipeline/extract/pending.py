"""A unit's pending children through the pools, and the unit's output assembled from them.

Isolated children (PDFs) go a call each to the isolated pool; the others (an
archive's members) in batches to the general pool. Either worker renders what it
extracted (`settle.settle`), so the parent only renders the unit's own document and
joins the records. A failed call is retried one child per call, so that a failure
stays with its child.
"""

from __future__ import annotations

from dataclasses import replace

import anyio

from indexer._extract import failure, failure_text
from indexer._types import Chunk, Extracted, Options
from indexer.config import Config
from indexer.errors import PoolError
from indexer.pipeline.extract.childcopies import ChildCopies, Slot
from indexer.pipeline.extract.settle import (
    Outcome,
    Settled,
    render_children,
    render_copies,
    settle,
)
from indexer.pipeline.extract.tasks import Finished, Job, finish
from indexer.pipeline.output.units import Child, Unit
from indexer.procpool.pool import WorkerPool
from indexer.procpool.worker import Shared
from indexer.registry import Registry


class PendingChildren:
    """Completes units whose children the pools must still extract."""

    def __init__(
        self,
        config: Config,
        registry: Registry,
        pools: tuple[WorkerPool, WorkerPool],
        shared: tuple[Shared, Shared, Shared],
        digests: dict[str, str],
    ) -> None:
        self.config = config
        self.registry = registry
        self.general, self.isolated = pools
        self.shared = shared
        """The options, registry and digests, pickled once (see `Shared`)."""
        self.digests = digests
        self.options: Options = config.extract_options()
        self.copies = ChildCopies(digests)
        """This run's pending children by key: each content extracted once."""

    async def complete(self, job: Job, done: Finished) -> Finished:
        """`done` with its pending children extracted and every record rendered."""
        assert done.pending is not None
        settled = await self.resolve(job.rel, done.pending.children)
        job = replace(job, sha256=done.sha256)  # the worker may have read and hashed it
        more = tuple(b for s in settled for b in s.blocks)
        unit = Unit(doc=done.pending.doc)
        own = finish(job, unit, done.seconds, self.options, done.bytes_read, more)
        docs = own.docs + tuple(d for s in settled for d in s.docs)
        deps = tuple(k for s in settled for k in s.keys)
        return replace(own, docs=docs, deps=deps, copied=sum(s.copied for s in settled))

    async def resolve(self, rel: str, children: tuple[Child, ...]) -> list[Settled]:
        """The records of `children` of the document at `rel`, in order: the pending ones
        extracted by the pools, each content once in the run (`childcopies`), their own
        pending children in turn."""
        found: list[Outcome | None] = [None] * len(children)
        owned: dict[int, Slot] = {}
        copies: dict[int, Slot] = {}
        for i, c in enumerate(children):
            if c.pending is None:
                found[i] = render_children(rel, (c,), self.options, self.digests)
            else:
                slot, own = self.copies.claim(c)
                (owned if own else copies)[i] = slot
        try:
            await self._extract(rel, children, owned, found)
            copied = await self._copies(rel, children, copies)
            for i, settled in copied.items():
                found[i] = settled
            again = {i: Slot() for i in copies if i not in copied}  # nothing to share
            await self._extract(rel, children, again, found)
        finally:  # a copy waiting in another document must never wait for ever
            for slot in owned.values():
                slot.finish(None)
        out: list[Settled] = []
        for outcome in found:  # a tuple: a PDF attached to a mail in a zip, still pending
            assert outcome is not None
            out += [outcome] if isinstance(outcome, Settled) else await self.resolve(rel, outcome)
        return out

    async def _extract(
        self,
        rel: str,
        children: tuple[Child, ...],
        todo: dict[int, Slot],
        found: list[Outcome | None],
    ) -> None:
        """Extract the children at `todo`'s positions into `found`: isolated ones a call
        each, the others in batches; each slot finished as its call ends."""

        def done(i: int, outcome: Outcome) -> None:
            found[i] = outcome
            self.copies.finished(todo[i], outcome)

        async def one(i: int) -> None:
            done(i, (await self._call(self.isolated, rel, [children[i]]))[0])

        async def batch(group: list[int]) -> None:
            outcomes = await self._call(self.general, rel, [children[i] for i in group])
            for i, outcome in zip(group, outcomes, strict=True):
                done(i, outcome)

        general = [i for i in todo if not self._alone(children[i])]
        async with anyio.create_task_group() as tg:
            for i in todo:
                if self._alone(children[i]):
                    tg.start_soon(one, i)
            size = self.config.batch_files
            for at in range(0, len(general), size):
                tg.start_soon(batch, general[at : at + size])

    async def _copies(
        self, rel: str, children: tuple[Child, ...], copies: dict[int, Slot]
    ) -> dict[int, Settled]:
        """The children at `copies`' positions, once each slot is done, rendered from its
        frame by the general pool (`settle.render_copies`), in batches; those with none
        to share, or that it could not render, are left out (to be extracted)."""
        frames = {}
        for i, slot in copies.items():
            await slot.done.wait()
            if slot.frame is not None:
                frames[i] = slot.frame
        out: dict[int, Settled] = {}
        at, size = list(frames), self.config.batch_files
        for group in (at[start : start + size] for start in range(0, len(at), size)):
            pairs = [(replace(children[i], pending=None, nesting=None), frames[i]) for i in group]
            call = self.general.run(
                render_copies, pairs, rel, *self.shared, timeout=self.config.timeout
            )
            try:
                done = await call
            except PoolError:  # a worker lost: they are extracted instead
                continue
            out.update((i, s) for i, s in zip(group, done, strict=True) if s is not None)
        return out

    def _alone(self, child: Child) -> bool:
        return self.registry.get(str(child.extractor)).isolated

    async def _call(self, pool: WorkerPool, rel: str, children: list[Child]) -> list[Outcome]:
        """`settle` of `children` in one call to `pool`; when it fails, each child in a
        call of its own, and one whose call fails too is its failure record."""
        try:
            call = pool.run(settle, children, rel, *self.shared, timeout=self.config.timeout)
            return list(await call)
        except PoolError as exc:
            if len(children) == 1:
                kind = self.registry.get(str(children[0].extractor)).kind
                failure = pool_failure(kind, exc, self.config.timeout)
                child = replace(children[0], extracted=failure, pending=None, nesting=None)
                return [render_children(rel, (child,), self.options, self.digests)]
        return [(await self._call(pool, rel, [child]))[0] for child in children]


def pool_failure(kind: str, exc: PoolError, timeout: float) -> Extracted:
    """The failure document of a job or child the pool could not finish."""
    detail = exc.reason  # out of memory: the pool names its own cap
    if exc.code == "timeout":
        detail = f"timeout after {timeout:g} s"
    # the code, then the detail for the record's `reason_text` (`indexer.reasons`)
    error = exc.code if detail in ("", exc.code) else f"{exc.code}: {detail}"
    return replace(failure(kind, error), chunks=(Chunk(text=failure_text(kind, detail)),))
