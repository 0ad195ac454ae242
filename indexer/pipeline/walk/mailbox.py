"""Mailbox files in the walk: the file's own entry, then one entry per message, streamed.

Which files are mailboxes, and how their messages are found, the registry says: an
extractor with `lists` (`ExtractorSpec`; the built-in mbox and Outlook `.pst` readers
are in `formats/`). Each message is an entry of its own, `box.mbox#<n>` with its bytes
in `data`, so that it is stored, reused and sharded as a file is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import BinaryIO

from indexer.pipeline.walk.entry import escape_part
from indexer.pipeline.walk.walker import Entry
from indexer.registry import ExtractorSpec, Held, Listing

Lister = Callable[[str], ExtractorSpec | None]
"""The extractor that lists a path's messages, or None (`Registry.lister`)."""


def is_container(entry: Entry) -> bool:
    """True for a mailbox file's own entry (its messages follow it in the walk)."""
    return bool(entry.holds)


def _open_path(entry: Entry) -> BinaryIO:
    return open(entry.path, "rb")


def expand_mailboxes(
    entries: Iterator[Entry],
    lister: Lister,
    max_file_bytes: int,
    open_entry: Callable[[Entry], BinaryIO] = _open_path,
    *,
    local: bool = True,
) -> Iterator[Entry]:
    """Yield every entry; a mailbox's marked with its kind (`Entry.holds`) and followed by
    one entry per message, in the order its lister gives them. `open_entry` gives a
    mailbox's bytes (its source's `open`); `local` when `Entry.path` is a local file."""
    for entry in entries:
        spec = lister(entry.rel) if entry.skip is None and entry.data is None else None
        if spec is None or spec.lists is None:
            yield entry
            continue
        yield replace(entry, holds=spec.kind)
        listing = Listing(
            rel=entry.rel, path=entry.path if local else None, size=entry.size,
            open=partial(open_entry, entry), max_bytes=max_file_bytes,
        )  # fmt: skip
        for held in spec.lists(listing):
            yield _message(entry, held)


def _message(entry: Entry, held: Held) -> Entry:
    rel = f"{entry.rel}#{escape_part(held.path)}"
    if held.data is None:
        detail = held.problem or "unreadable"
        return replace(entry, rel=rel, size=0, data=b"", skip="unreadable", detail=detail)
    return replace(entry, rel=rel, size=len(held.data), data=held.data)
