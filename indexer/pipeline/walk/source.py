"""Where a run's documents come from: a `Source` lists entries and opens their bytes.

A source lists every entry once, sorted by `rel` (byte-wise as UTF-8: a folder sorts as
its name plus "/"), each with a verdict (`Entry.skip`) and a version token
(`Entry.version`) that changes whenever the entry's bytes may have: the local stat, an
IMAP UID with its UIDVALIDITY, an object's ETag. The incremental state, the walk digests
and the segment digests compare tokens and nothing else, so a source decides alone what
"unchanged" means. `open` gives an entry's bytes.

`LocalFolder` is the walk of a folder (`walker.walk`). Another source lists plain
`Listed` items and lets `listed` give them the run's verdicts (globs, hidden names, size,
binary extensions and the NUL sniff), so that a new source is one module: see
docs/architecture.md, "Adding a source".
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol, runtime_checkable

from indexer._globs import compile_globs
from indexer.pipeline.walk.binary import SNIFF_BYTES, binary_head, binary_reason
from indexer.pipeline.walk.entry import Entry, iter_batches
from indexer.pipeline.walk.policy import WalkPolicy
from indexer.pipeline.walk.walker import walk
from indexer.registry import extension_of

__all__ = ["Listed", "LocalFolder", "Source", "listed"]

_GROUP = 256
"""Items whose noted versions are asked for in one lookup."""


@runtime_checkable
class Source(Protocol):
    """A sorted listing of entries with version tokens, and their bytes."""

    @property
    def local(self) -> bool:
        """True when `Entry.path` is a file any process of this machine may open: worker
        processes then read it themselves. Else the run reads every entry through `open`."""
        ...

    def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
        """Return every entry, sorted by `rel`, with its verdict under `policy`.

        Raises OSError (NotADirectoryError when there is nothing to list) before
        iterating; never for one entry after that: an entry that cannot be looked at
        is `skipped` with a reason.
        """
        ...

    def open(self, entry: Entry) -> BinaryIO:
        """Return the bytes of an entry this source listed, as a binary stream; raises
        FileNotFoundError for one gone since (`vanished`), another OSError otherwise."""
        ...


@dataclass(frozen=True, slots=True)
class LocalFolder:
    """The files below a local folder, as `walker.walk` lists them."""

    root: Path

    @property
    def local(self) -> bool:
        """True: the walk's paths are local files."""
        return True

    def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
        """Return the walk of `root` (see `walker.walk`)."""
        return walk(self.root, policy)

    def open(self, entry: Entry) -> BinaryIO:
        """Return `entry.path` opened for reading; raises OSError."""
        return open(entry.path, "rb")

    def __str__(self) -> str:
        return str(self.root)


@dataclass(frozen=True, slots=True, kw_only=True)
class Listed:
    """One item of a source's own listing, before the run's verdicts."""

    rel: str
    """Relative POSIX path, unique and printable (escaped as `entry.escape_name` does)."""
    size: int
    """Its size in bytes."""
    version: str
    """Its version token (see the module doc)."""
    path: bytes = b""
    """Whatever the source's `open` needs to find it again (its own locator)."""


def listed(
    items: Iterable[Listed], policy: WalkPolicy, open_entry: Callable[[Entry], BinaryIO]
) -> Iterator[Entry]:
    """Return an entry per item, in order, with the verdict `policy` gives it: `hidden`
    (any name of its path starting with "."), `excluded`, `too_large`, `binary` (by
    extension, or a NUL in the first 8 KiB that `open_entry` gives; not looked for in
    an entry whose version the state noted, as the local walk does). Raises ValueError
    when the items are not sorted by `rel`."""
    include, exclude = compile_globs(policy.include), compile_globs(policy.exclude)
    last = ""
    for group in iter_batches(items, _GROUP):
        for item in group:
            if item.rel <= last:
                raise ValueError(f"a source listed {item.rel!r} after {last!r}: not sorted")
            last = item.rel
        noted = policy.noted([i.rel for i in group]) if policy.noted is not None else {}
        for item in group:
            entry = Entry(
                rel=item.rel, path=item.path, size=item.size, version=item.version, skip=None
            )
            sniffed = noted.get(item.rel) == item.version  # extracted under this version
            reason, detail = _verdict(entry, policy, include, exclude, open_entry, sniffed)
            yield entry if reason is None else _skipped(entry, reason, detail)


def _verdict(
    entry: Entry,
    policy: WalkPolicy,
    include: re.Pattern[str] | None,
    exclude: re.Pattern[str] | None,
    open_entry: Callable[[Entry], BinaryIO],
    sniffed: bool,
) -> tuple[str | None, str]:
    """The skip reason and detail of `entry` (None: it is read); `sniffed` when it
    passed the sniff before (the state noted its version), which is then not redone."""
    rel = entry.rel
    if policy.skip_hidden and any(name.startswith(".") for name in rel.split("/")):
        return "hidden", ""
    if (exclude is not None and exclude.fullmatch(rel)) or (
        include is not None and not include.fullmatch(rel)
    ):
        return "excluded", ""
    if entry.size > policy.max_file_bytes and not policy.streams(rel):
        return "too_large", f"{entry.size} > {policy.max_file_bytes} bytes"
    if policy.claims(rel) or policy.streams(rel):
        return None, ""
    if (ext := extension_of(rel)) in policy.binary_extensions:
        return binary_reason(ext), f".{ext}"
    return (None, "") if sniffed else _sniffed(entry, open_entry)


def _sniffed(entry: Entry, open_entry: Callable[[Entry], BinaryIO]) -> tuple[str | None, str]:
    try:
        with open_entry(entry) as handle:
            head = handle.read(SNIFF_BYTES)
    except FileNotFoundError as exc:
        return "vanished", str(exc)
    except OSError as exc:
        return "unreadable", os.strerror(exc.errno) if exc.errno else str(exc)
    if binary_head(head):
        return "binary", "NUL byte in the first 8 KiB"
    return None, ""


def _skipped(entry: Entry, reason: str, detail: str) -> Entry:
    return Entry(
        rel=entry.rel, path=entry.path, size=entry.size, version=entry.version,
        skip=reason, detail=detail,
    )  # fmt: skip
