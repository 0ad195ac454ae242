"""Exact copies among pending children extracted once in a run: an archive's members
and a mail's attachments that the pools extract (`pending.PendingChildren`).

The same PDF attached to thirty mails, or held five times in a zip, has one key (its
content hash, extractor, options, extension): the first child with it is extracted,
the others wait for it and are rendered from its blocks as their own children, with
their own path, size and mail context (`settle.as_copy`), the records a fresh
extraction of theirs writes. Whichever child was extracted, the bytes are the same;
the corpus pass (`output/dedup`) still names the first in walk order in
`duplicate_of`.

Only a child that held nothing is shared: what a container yields is charged to the
unpacking budget it was given and nested at its depth, so a docx's embedded objects
may come out otherwise under another attachment's share; one that yields nothing
never touched either, and its output depends on its bytes alone.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import anyio

from indexer.pipeline.extract.settle import Outcome, Settled
from indexer.pipeline.incremental.keys import cache_key
from indexer.pipeline.output.units import Child
from indexer.registry import extension_of

KEEP_BYTES = 64 << 20
"""Finished children's blocks kept for copies still to come, oldest dropped first (a
later copy of a dropped one is extracted again)."""


@dataclass(slots=True, eq=False)
class Slot:
    """One child being extracted in this run; `frame` once done (None: nothing to
    share, and its copies are extracted themselves)."""

    key: str | None = None
    """Its key in the table (None: a slot of its own, shared with no copy)."""
    frame: bytes | None = None
    done: anyio.Event = field(default_factory=anyio.Event)

    def finish(self, frame: bytes | None) -> None:
        """Record the child's blocks and wake its copies (once)."""
        if not self.done.is_set():
            self.frame = frame
            self.done.set()


class ChildCopies:
    """This run's table of pending children's blocks by key, for the copies to come."""

    def __init__(self, digests: dict[str, str]) -> None:
        self._digests = digests
        self._slots: OrderedDict[str, Slot] = OrderedDict()
        self._bytes = 0

    def key(self, child: Child) -> str | None:
        """The key of a pending child's extraction (None: not one to share)."""
        digest = None if child.extractor is None else self._digests.get(child.extractor)
        if digest is None or not child.sha256 or child.extractor is None:
            return None
        name = child.suffix.rsplit("/", 1)[-1]  # what `settle.child_job` names it
        return f"{cache_key(child.sha256, child.extractor, digest)}:{extension_of(name)}"

    def claim(self, child: Child) -> tuple[Slot, bool]:
        """The slot holding `child`'s key and whether it is this child's own (the first
        with it: to extract, then `finished`); a fresh unshared slot for no key."""
        key = self.key(child)
        if key is None:
            return Slot(), True
        found = self._slots.get(key)
        if found is not None:
            return found, False
        slot = self._slots[key] = Slot(key=key)
        return slot, True

    def finished(self, slot: Slot, outcome: Outcome) -> None:
        """`slot`'s child is extracted as `outcome`: its copies take its blocks when it
        held nothing (see the module's docstring)."""
        frame = shared_frame(outcome)
        slot.finish(frame)
        if slot.key is None or self._slots.get(slot.key) is not slot:
            return
        if slot.frame is None:  # a later copy is extracted itself all the same
            del self._slots[slot.key]
            return
        self._bytes += len(slot.frame)
        while self._bytes > KEEP_BYTES and self._slots:
            first = next(iter(self._slots.values()))
            if not first.done.is_set():
                break  # in flight: never dropped (the window bounds them)
            self._slots.popitem(last=False)
            self._bytes -= len(first.frame or b"")


def shared_frame(outcome: Outcome) -> bytes | None:
    """The blocks a copy of `outcome`'s child is rendered from: its one frame when it
    is settled alone (no children of its own), else None."""
    if isinstance(outcome, Settled) and len(outcome.docs) == 1 and len(outcome.blocks) == 1:
        return outcome.blocks[0]
    return None
