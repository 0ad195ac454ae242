"""How far the walk may run ahead of the writer: the reorder window and the lookahead.

`Window` bounds the entries admitted and not yet written (the writer frees a slot
per entry it writes, in walk order), and budgets the isolated work sent early from
beyond it. `Lookahead` holds the entries read from the walk and not yet admitted,
where the dispatcher looks for that isolated work.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from indexer.pipeline.extract.resolving import WorkItem
from indexer.pipeline.output.records import FileOutcome

LOOKAHEAD = 8192
"""Entries read beyond the next one to admit, while looking for isolated work."""
LOOKAHEAD_BYTES = 8 << 20
"""Bytes the entries read ahead may hold (settled outputs, mbox messages)."""
EARLY_BYTES = 64 << 20
"""Bytes of isolated outcomes sent early that may wait, finished, for their turn."""
_POLL = 0.05
"""While the window is full, how often to look whether early work may be sent."""


@dataclass(frozen=True, slots=True)
class Taken:
    """A stretch of the walk, read by the dispatcher's `take`."""

    count: int
    """Its length."""
    settled: dict[int, FileOutcome]
    """The outcomes settled already (skipped, containers, current output), by position."""
    work: list[WorkItem]
    """The rest, in walk order."""
    walked: int
    """The walk entries it stands for (a segment taken whole is one position)."""


class Window:
    """How far the walk may run ahead of the writer, and the isolated work sent beyond.

    The dispatcher admits entries (`admit`); the writer reports what arrived
    (`arrived`) and each entry it wrote (`wrote`).
    """

    def __init__(self, size: int, first_seq: int) -> None:
        self.size = size
        self._slots = anyio.Semaphore(size)
        self.written = first_seq
        """The walk position of the next entry the writer needs."""
        self._early: dict[int, int] = {}
        """Isolated entries sent early and not written yet: their outcome's bytes
        once it arrived, else 0."""
        self._early_bytes = 0

    def admit_nowait(self) -> bool:
        """Take a slot if one is free."""
        try:
            self._slots.acquire_nowait()
        except anyio.WouldBlock:
            return False
        return True

    async def admit(self, meanwhile: Callable[[], Awaitable[bool]]) -> None:
        """Take a slot, waiting for the writer. While none is free, call `meanwhile`
        as long as it finds something to do (it returns True), then now and then."""
        while not self.admit_nowait():
            if await meanwhile():
                continue
            with anyio.move_on_after(_POLL):
                await self._slots.acquire()
                return

    def early_room(self) -> bool:
        """True while more isolated work may be sent ahead of the window."""
        return len(self._early) < self.size and self._early_bytes < EARLY_BYTES

    def sent_early(self, seq: int) -> None:
        """Note isolated work sent ahead of the window."""
        self._early[seq] = 0

    def arrived(self, outcome: FileOutcome) -> None:
        """Note an outcome's arrival at the writer (counts the size of early ones)."""
        if self._early and outcome.seq in self._early:
            size = _held(outcome)
            self._early[outcome.seq] = size
            self._early_bytes += size

    def wrote(self, seq: int) -> None:
        """Note that the writer wrote entry `seq` (the next is `seq + 1`)."""
        if self._early:
            self._early_bytes -= self._early.pop(seq, 0)
        self.written = seq + 1
        self._slots.release()


class Lookahead:
    """Walk entries read and not yet admitted, in walk order (see the module doc)."""

    def __init__(self, seq: int) -> None:
        self.seq = seq
        """The walk position of the first entry held."""
        self.slots: deque[FileOutcome | WorkItem] = deque()
        self.isolated: deque[WorkItem] = deque()
        """Isolated work held and not sent yet, in walk order."""
        self.early: set[int] = set()
        """Positions of isolated work held and sent already."""
        self._sizes: deque[int] = deque()
        """The bytes each slot holds (an mbox message, a settled output)."""
        self.held = 0
        self.exhausted = False

    @property
    def end(self) -> int:
        """The walk position of the next entry to read."""
        return self.seq + len(self.slots)

    def add(self, taken: Taken) -> None:
        """Hold a stretch read from the walk at `end`."""
        settled = taken.settled
        todo = iter(taken.work)
        item = next(todo, None)
        sizes = self._sizes
        for seq in range(self.end, self.end + taken.count):
            if item is not None and item.seq == seq:
                self.slots.append(item)
                size = len(item.entry.data or b"")
                if item.spec.isolated:
                    self.isolated.append(item)
                item = next(todo, None)
            else:
                outcome = settled[seq]
                self.slots.append(outcome)
                size = _held(outcome)
            sizes.append(size)
            self.held += size

    def pop(self) -> FileOutcome | WorkItem:
        """The next entry to admit."""
        self.seq += 1
        self.held -= self._sizes.popleft()
        return self.slots.popleft()

    def wants_more(self, room: bool) -> bool:
        """True when the walk should be read further: nothing is held, or isolated
        work may be sent early (`room`) and none is held to send."""
        if self.exhausted:
            return False
        if not self.slots:
            return True
        roomy = len(self.slots) < LOOKAHEAD and self.held < LOOKAHEAD_BYTES
        return room and roomy and not self.isolated


def _held(outcome: FileOutcome) -> int:
    """The bytes an outcome holds until it is written: its documents' lines and chunks."""
    return sum(len(doc.line) + len(doc.block) for doc in outcome.docs)
