"""Mailbox files in the walk (mbox, Outlook .pst/.ost): the file's own record, then one
entry per message, streamed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import BinaryIO

from indexer.pipeline.walk import pst
from indexer.pipeline.walk.mbox import is_mbox, split
from indexer.pipeline.walk.walker import Entry


def is_container(entry: Entry) -> bool:
    """True for a mailbox file's own entry (its messages follow it in the walk)."""
    return (
        entry.skip is None and entry.data is None and (is_mbox(entry.rel) or pst.is_pst(entry.rel))
    )


def _open_path(entry: Entry) -> BinaryIO:
    return open(entry.path, "rb")


def expand_archives(
    entries: Iterator[Entry],
    max_file_bytes: int,
    open_entry: Callable[[Entry], BinaryIO] = _open_path,
) -> Iterator[Entry]:
    """Yield every entry; after each mailbox's entry, one entry per message in file order
    (for a .pst, in folder order: see `pst.messages`). `open_entry` gives an mbox's bytes
    (its source's `open`).

    Message `n` (from 1) is `box.mbox#<n>` with its bytes in `data`. A non-blank file
    with no `From ` separator at all is one message, when it is small enough to
    read whole, so its text is never lost.
    """
    for entry in entries:
        yield entry
        if is_container(entry):
            yield from (
                pst.messages(entry)
                if pst.is_pst(entry.rel)
                else _messages(entry, max_file_bytes, open_entry)
            )


def _messages(
    entry: Entry, max_file_bytes: int, open_entry: Callable[[Entry], BinaryIO]
) -> Iterator[Entry]:
    count = 0
    try:
        with open_entry(entry) as handle:
            for count, message in enumerate(split(handle), start=1):
                yield _message(entry, count, message)
        if count == 0 and entry.size <= max_file_bytes:
            with open_entry(entry) as handle:
                whole = handle.read(max_file_bytes + 1)
            if whole.strip():
                yield _message(entry, 1, whole)
    except OSError as exc:
        yield replace(_message(entry, count + 1, b""), skip="unreadable", detail=str(exc))


def _message(entry: Entry, n: int, data: bytes) -> Entry:
    return replace(entry, rel=f"{entry.rel}#{n}", size=len(data), data=data)
