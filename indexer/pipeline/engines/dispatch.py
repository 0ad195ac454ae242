"""From the walk to the pools' queues: the reorder window, batches, and isolated work sent early.

Entries are admitted through a window of `window` slots, which the writer frees as it
writes them in walk order, so memory does not grow with the corpus. Isolated work (a
PDF) is also looked for beyond the window and sent to its pool as soon as it is found,
within a budget of its own (`Window.early_room`), so neither pool idles while the other
works through a long stretch of the walk. Early outcomes wait for their turn like any
other, so the output is the same bytes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from indexer.pipeline.extract.batch import WorkItem
from indexer.pipeline.output.records import FileOutcome

LOOKAHEAD = 8192
"""Entries read beyond the next one to admit, while looking for isolated work."""
LOOKAHEAD_BYTES = 8 << 20
"""Bytes the entries read ahead may hold (settled outputs, mbox messages)."""
EARLY_BYTES = 64 << 20
"""Bytes of isolated outcomes sent early that may wait, finished, for their turn."""
_STRETCH = 256
"""Entries admitted between two looks for early work."""
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


@dataclass(slots=True)
class Batch:
    """Work gathered for one `BatchExtractor.process` call."""

    stream: MemoryObjectSendStream[list[WorkItem]]
    max_files: int
    max_bytes: int
    items: list[WorkItem] = field(default_factory=list)
    size: int = 0

    def add(self, item: WorkItem) -> bool:
        """Add `item`; True when the batch is full and should be sent."""
        self.items.append(item)
        self.size += item.entry.size
        return len(self.items) >= self.max_files or self.size >= self.max_bytes

    async def send(self) -> None:
        """Send the batch, if any, on to its pool's queue and start a new one."""
        if self.items:
            items, self.items, self.size = self.items, [], 0
            await self.stream.send(items)


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


class Dispatcher:
    """Admits the walk through the window into batches for the pools' queues, and
    settled outcomes straight to the writer."""

    def __init__(
        self,
        window: Window,
        general: Batch,
        alone: Batch,
        send_out: MemoryObjectSendStream[list[FileOutcome]],
        small: int,
    ) -> None:
        self.window = window
        self.general = general
        self.alone = alone
        self._send_out = send_out
        self._small = small
        """A stretch with fewer entries to work on is sent at once (see `admit`)."""
        self._done: list[FileOutcome] = []

    async def run(self, take: Callable[[int], Awaitable[Taken | None]], first_seq: int) -> None:
        """Read the walk with `take(seq)` (a stretch from position `seq`, None at the
        end) and dispatch all of it. The walk is read ahead while the window is full
        (`_look_ahead`), so the first batches go out at once."""
        ahead = Lookahead(first_seq)
        while True:
            if not ahead.slots and not ahead.exhausted:
                await self._read(ahead, take)
            await self._send_early(ahead)
            if not ahead.slots:
                break
            await self._admit(ahead, take)
        await self._settle()
        await self.general.send()
        await self.alone.send()

    @staticmethod
    async def _read(ahead: Lookahead, take: Callable[[int], Awaitable[Taken | None]]) -> None:
        taken = await take(ahead.end)
        if taken is None:
            ahead.exhausted = True
        else:
            ahead.add(taken)

    async def _look_ahead(
        self, ahead: Lookahead, take: Callable[[int], Awaitable[Taken | None]]
    ) -> bool:
        """While the window is full: read one more stretch if isolated work may still
        be found (`Lookahead.wants_more`), and send what the budget allows. True when
        it did anything."""
        room = self.window.early_room()
        read = ahead.wants_more(room)
        if read:
            await self._read(ahead, take)
        return await self._send_early(ahead) or read

    async def _settle(self) -> None:
        """Send the outcomes settled so far: before any send that may wait, so that
        the writer never waits on them."""
        if self._done:
            done, self._done = self._done, []
            await self._send_out.send(done)

    async def _send_early(self, ahead: Lookahead) -> bool:
        """Send the isolated work held, as far as the early budget allows; a partial
        batch goes too once no more is held (the pool may be idle). True when it
        sent anything."""
        sent = False
        while ahead.isolated and self.window.early_room():
            item = ahead.isolated.popleft()
            ahead.early.add(item.seq)
            self.window.sent_early(item.seq)
            sent = True
            if self.alone.add(item):
                await self._settle()
                await self.alone.send()
        if sent and not ahead.isolated:
            await self._settle()
            await self.alone.send()
        return sent

    async def _admit(
        self, ahead: Lookahead, take: Callable[[int], Awaitable[Taken | None]]
    ) -> None:
        """Admit up to one stretch of held entries through the window."""
        work = 0
        for _ in range(min(len(ahead.slots), _STRETCH)):
            if not self.window.admit_nowait():
                # Send a partial batch only when the writer waits for it; while older
                # entries are still unwritten they will free the window, and sending
                # scraps would make batches of one or two files.
                await self._settle()
                for batch in (self.general, self.alone):
                    if batch.items and self.window.written >= batch.items[0].seq:
                        await batch.send()
                await self.window.admit(lambda: self._look_ahead(ahead, take))
            seq, slot = ahead.seq, ahead.pop()
            if isinstance(slot, FileOutcome):
                self._done.append(slot)
                continue
            work += 1
            if not slot.spec.isolated:
                batch = self.general
            elif seq in ahead.early:
                ahead.early.discard(seq)
                continue
            else:
                ahead.isolated.popleft()  # this very item: isolated work goes in order
                batch = self.alone
            if batch.add(slot):
                await self._settle()
                await batch.send()
        await self._settle()
        if work < self._small:
            # Few entries of this stretch need work (a re-run): send them now rather
            # than when the window runs out, so they are extracted while the walk goes on.
            await self.general.send()
            await self.alone.send()
