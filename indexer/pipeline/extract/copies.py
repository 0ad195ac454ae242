"""Exact copies extracted once in a run: a file whose cache key (content hash,
extractor, options, extension) is one already extracted or in flight in this run
takes that output, rebased to its own path, instead of being extracted again.

On a first run the workers read the files themselves, so a file's hash is known only
once it is extracted. A file as large as `SMALLEST` or larger whose size an earlier
file of the run had is therefore read and hashed by the parent (`read_here`), and
waits for those earlier files of its size still in flight: when one turns out to
have its key, it is a copy. Whichever file of a set of copies is extracted, the
others' records are the same bytes (`stored.rebase`), so the output does not depend
on which one it was; the corpus pass (`output/dedup`) still names the first in walk
order in `duplicate_of`.

A copy of a file whose worker crashed or timed out gets that failure rebased, its
own failed record, stored for a retry as the original's is (`store.RETRY`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from indexer.pipeline.extract.reuse import Hit
from indexer.pipeline.output.records import Rendered
from indexer.pipeline.output.stored import rebase

SMALLEST = 16 << 10
"""Files smaller than this are not hashed by the parent to find copies on a first run:
cheap to extract twice, and the most numerous (the sizes seen are kept all run)."""
KEEP_BYTES = 64 << 20
"""Finished outputs kept for copies still to come, oldest dropped first (a later copy
of a dropped one is found in the state, where its output is stored)."""


@dataclass(frozen=True, slots=True)
class Made:
    """An output extracted in this run, as its copies rebase it."""

    rel: str
    docs: tuple[Rendered, ...]
    deps: tuple[str, ...]
    blocks: bytes


@dataclass(slots=True, eq=False)
class Slot:
    """One file being extracted in this run; `made` once done (None: nothing to share,
    a read error)."""

    key: str | None = None
    made: Made | None = None
    done: anyio.Event = field(default_factory=anyio.Event)

    def finish(self, key: str | None, made: Made | None) -> None:
        """Record the file's key and output and wake its copies (once)."""
        if not self.done.is_set():
            self.key, self.made = key, made
            self.done.set()


class Copies:
    """This run's table of outputs by key, for the copies still to come."""

    def __init__(self) -> None:
        self._keys: OrderedDict[str, Slot] = OrderedDict()
        self._bytes = 0
        self._unread: dict[int, list[Slot]] = {}
        """By size: files their worker reads, key unknown until they are done."""
        self._sizes: set[int] = set()

    def read_here(self, size: int) -> bool:
        """Whether a file its worker would read should be read here instead: an earlier
        file of the run had its size, so it may be a copy."""
        if size < SMALLEST:
            return False
        if size in self._sizes:
            return True
        self._sizes.add(size)
        return False

    def unread(self, size: int) -> Slot:
        """The slot of a file its worker reads."""
        slot = Slot()
        self._unread.setdefault(size, []).append(slot)
        return slot

    def claim(self, key: str, size: int) -> tuple[Slot, bool, tuple[Slot, ...]]:
        """For a file read here: the slot holding its key and whether it is this file's
        own (first with the key); with it, the earlier files of its size their workers
        are still reading, whose keys it must wait for."""
        found = self._keys.get(key)
        if found is not None:
            return found, False, ()
        slot = Slot(key=key)
        self._keys[key] = slot
        waits = tuple(s for s in self._unread.get(size, ()) if not s.done.is_set())
        return slot, True, waits

    def finished(self, slot: Slot, key: str | None, made: Made | None, size: int) -> None:
        """`slot`'s file is done: its copies take `made`; later ones find it by `key`."""
        slot.finish(key, made)
        waiting = self._unread.get(size)
        if waiting is not None and slot in waiting:
            waiting.remove(slot)
            if not waiting:
                del self._unread[size]
        if key is None or made is None:
            return
        if self._keys.setdefault(key, slot) is slot:
            self._bytes += _weight(made)
        while self._bytes > KEEP_BYTES and self._keys:
            first = next(iter(self._keys.values()))
            if not first.done.is_set():
                break  # in flight: never dropped (the window bounds them)
            dropped = self._keys.popitem(last=False)[1]
            self._bytes -= _weight(dropped.made) if dropped.made else 0


async def found_among(key: str, waits: Sequence[Slot]) -> Made | None:
    """The output of the first of `waits` (files of the same size, in flight) whose key
    turns out to be `key`, once each is done; None when none has it."""
    for slot in waits:
        await slot.done.wait()
        if slot.key == key and slot.made is not None:
            return slot.made
    return None


def as_hit(made: Made, rel: str) -> Hit | None:
    """`made` rendered for the copy at `rel`; None when its records do not read back."""
    docs = rebase(made.docs, made.rel, rel)
    return None if docs is None else Hit(docs, made.deps, made.blocks)


def _weight(made: Made) -> int:
    return len(made.blocks) + sum(len(d.line) + len(d.block) for d in made.docs)
