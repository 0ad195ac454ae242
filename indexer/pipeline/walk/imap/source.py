"""`ImapSource`: the messages of an IMAP account's folders, as a run's entries.

Each message is an entry `imap/HOST/FOLDER/UID.eml` (`names`) whose version is
`UIDVALIDITY:UID:SIZE`: a message never changes under its UID, so an incremental run
fetches only the new ones; a folder whose UIDVALIDITY changed has new versions for
all its messages, which are read again; an expunged message is not listed, so its
records go as a deleted file's do.

The listing is read on a connection of its own, closed before the first entry is
yielded; the messages are read on another, a batch at a time: the entry asked for
and the next ones the run will read (not skipped, not unchanged since the state noted
them), up to `_BATCH` messages or `_BATCH_BYTES`, so that memory holds a batch, never
a folder.
"""

from __future__ import annotations

import heapq
import io
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import BinaryIO

from indexer.errors import ConfigError
from indexer.pipeline.walk.entry import Entry
from indexer.pipeline.walk.imap.address import ALL, ImapAddress, password_for
from indexer.pipeline.walk.imap.fetch import fetch
from indexer.pipeline.walk.imap.listing import Folder, list_folders, read_folder
from indexer.pipeline.walk.imap.names import message_rel
from indexer.pipeline.walk.imap.session import Refused, Retry, Session
from indexer.pipeline.walk.policy import WalkPolicy
from indexer.pipeline.walk.source import Listed, listed

__all__ = ["ImapSource"]

_BATCH = 64
"""Messages one FETCH asks for."""
_BATCH_BYTES = 16 << 20
"""Bytes (by the listed sizes) one FETCH asks for; a larger message comes alone."""
_AHEAD = 16384
"""Entries the walk yielded that the reads may still ask for, remembered to batch."""


@dataclass(frozen=True, slots=True)
class _Where:
    """What `open` needs to find a message again (`Entry.path` holds it)."""

    raw: bytes
    uidvalidity: int
    uid: int

    def encode(self) -> bytes:
        return b"%d %d " % (self.uidvalidity, self.uid) + self.raw

    @classmethod
    def decode(cls, path: bytes) -> _Where:
        validity, uid, raw = path.split(b" ", 2)
        return cls(raw=raw, uidvalidity=int(validity), uid=int(uid))


class ImapSource:
    """The messages of `address`'s folder (or of all its folders), read over IMAP.

    Credentials come from `password_for` when the source is made (and again in a
    process it is unpickled in: they are never pickled). The messages are read on a
    connection kept open until `close()` (or the end of a `with` block).
    """

    def __init__(self, address: ImapAddress, retry: Retry | None = None) -> None:
        self.address, self.retry = address, retry or Retry()
        self._user, self._password = password_for(address)
        self._lock = threading.Lock()
        self._reader: Session | None = None
        self._ahead: OrderedDict[bytes, int] = OrderedDict()  # path -> listed size
        self._fetched: OrderedDict[bytes, bytes | str] = OrderedDict()
        self._listing: list[Folder] | None = None
        """The folders listed, for every walk until `close()`: a run lists once."""
        self._listing_lock = threading.Lock()

    def __reduce__(self) -> tuple[type[ImapSource], tuple[ImapAddress, Retry]]:
        return (ImapSource, (self.address, self.retry))

    def __str__(self) -> str:
        return str(self.address)

    @property
    def local(self) -> bool:
        """False: the messages are read through `open`."""
        return False

    def check(self) -> int:
        """Log in and list; return how many messages the source lists. Raises
        `ConfigError` (refused login, untrusted certificate, no such folder) or
        `SourceLost` (the server cannot be reached). The walks until `close()` list
        no more."""
        return sum(len(folder.uids) for folder in self._listed())

    def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
        """Every message of the folders, sorted by `rel`, with its verdict under
        `policy`. Raises `ConfigError` or `SourceLost` (see `check`) before iterating.

        The folders are listed once until `close()`: a run walks its source more than
        once (whether it holds anything, what did not change, the progress line's
        count, the engine's walk), and every walk sees the same listing."""
        folders = self._listed()
        items = heapq.merge(*(_items(folder) for folder in folders), key=lambda i: i.rel)
        noted: dict[str, str] = {}
        if policy.noted is not None:
            lookup = policy.noted

            def recorded(paths: Sequence[str]) -> dict[str, str]:
                noted.clear()
                noted.update(lookup(paths))
                return noted

            policy = replace(policy, noted=recorded)
        return self._remembered(listed(items, policy, self.open), noted)

    def _listed(self) -> list[Folder]:
        """The folders' listing, read from the server on the first call until `close()`."""
        with self._listing_lock:  # the progress line counts in a thread of its own
            if self._listing is None:
                self._listing = self._folders()
            return self._listing

    def _folders(self) -> list[Folder]:
        session = self._session()
        try:
            folders = []
            try:
                found = list_folders(session, self.address)
            except Refused as refusal:
                raise ConfigError("source", f"{self.address}: {refusal}") from None
            for raw, delim in found:
                try:
                    folders.append(read_folder(session, self.address, raw, delim))
                except Refused as refusal:
                    # one of all the folders gone since LIST: so are its messages
                    if self.address.folder != ALL:
                        raise ConfigError("source", f"{self.address}: {refusal}") from None
            return folders
        finally:
            session.close()

    def _remembered(self, entries: Iterator[Entry], noted: dict[str, str]) -> Iterator[Entry]:
        """`entries`, each one the run will read remembered for the batches."""
        for entry in entries:
            if entry.skip is None and noted.get(entry.rel) != entry.version:
                with self._lock:
                    self._ahead[entry.path] = entry.size
                    while len(self._ahead) > _AHEAD:
                        self._ahead.popitem(last=False)
            yield entry

    def open(self, entry: Entry) -> BinaryIO:
        """The message's bytes (LF line ends: see `fetch`); raises FileNotFoundError
        for a message gone since the listing, OSError for one the server would not
        send, `SourceLost` when the server cannot be reached."""
        with self._lock:
            got = self._fetched.pop(entry.path, None)
            if got is None:
                self._fetch_batch(entry.path)
                got = self._fetched.pop(entry.path, None)
        if got is None:
            raise FileNotFoundError(f"{entry.rel}: no longer on the server")
        if isinstance(got, str):
            raise OSError(got)
        return io.BytesIO(got)

    def _fetch_batch(self, path: bytes) -> None:
        """Fetch the message at `path` and the remembered ones after it in its folder."""
        where = _Where.decode(path)
        batch, size = [where.uid], 0
        if path in self._ahead:
            while self._ahead and next(iter(self._ahead)) != path:
                self._ahead.popitem(last=False)  # passed over: read (or not) already
            size = self._ahead.pop(path)
            for other in list(islice(self._ahead, _BATCH - 1)):
                there = _Where.decode(other)
                if (there.raw, there.uidvalidity) != (where.raw, where.uidvalidity):
                    break
                size += self._ahead[other]
                if size > _BATCH_BYTES:
                    break
                batch.append(there.uid)
                del self._ahead[other]
        found = fetch(self._reading(), where.raw, where.uidvalidity, batch)
        for uid in batch:
            key = replace(where, uid=uid).encode()
            if uid in found:
                self._fetched[key] = found[uid]
        while len(self._fetched) > 2 * _BATCH:  # never asked for: an error's leftovers
            self._fetched.popitem(last=False)

    def _reading(self) -> Session:
        if self._reader is None:
            self._reader = self._session()
        return self._reader

    def _session(self) -> Session:
        return Session(self.address, self._user, self._password, self.retry)

    def __enter__(self) -> ImapSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Log out of the reading connection (a later read connects again) and forget
        the listing (a later walk lists again)."""
        with self._listing_lock:
            self._listing = None
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


def _items(folder: Folder) -> Iterator[Listed]:
    for uid, size in zip(folder.uids, folder.sizes, strict=True):
        where = _Where(raw=folder.raw, uidvalidity=folder.uidvalidity, uid=uid)
        yield Listed(
            rel=message_rel(folder.rel, uid),
            size=size,
            version=f"{folder.uidvalidity}:{uid}:{size}",
            path=where.encode(),
        )
