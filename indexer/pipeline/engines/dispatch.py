"""From the walk to the pools' queues: batches, and isolated work sent early.

Entries are admitted through a window of `window` slots (`engines.window`), which the
writer frees as it writes them in walk order, so memory does not grow with the corpus.
Isolated work (a PDF) is also looked for beyond the window and sent to its pool as soon
as it is found, within a budget of its own (`Window.early_room`), so neither pool idles
while the other works through a long stretch of the walk. Early outcomes wait for their
turn like any other, so the output is the same bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from anyio.streams.memory import MemoryObjectSendStream

from indexer.pipeline.engines.window import Lookahead, Taken, Window
from indexer.pipeline.extract.resolving import WorkItem
from indexer.pipeline.output.records import FileOutcome

_STRETCH = 256
"""Entries admitted between two looks for early work."""


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
