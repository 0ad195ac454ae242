"""What an IMAP source lists: its folders, and each folder's UIDVALIDITY and messages.

A folder's listing is two compact arrays (a UID and a size: 12 bytes a message), read
a stretch of sequence numbers at a time so that no reply holds a whole large folder,
and put in the order of its messages' paths (`10.eml` sorts before `9.eml`).
"""

from __future__ import annotations

import imaplib
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from indexer.errors import ConfigError
from indexer.pipeline.walk.imap.address import ALL, ImapAddress
from indexer.pipeline.walk.imap.names import encode_folder, folder_rel
from indexer.pipeline.walk.imap.session import Refused, Session

__all__ = ["Folder", "arg", "examine", "list_folders", "read_folder"]

_STRETCH = 5000
"""Messages whose UID and size one FETCH asks for."""
_LIST = re.compile(rb'\((?P<flags>[^)]*)\) (?P<delim>"(?:[^"\\]|\\.)*"|NIL) ?(?P<name>.*)', re.I)
_ITEM = re.compile(rb"\d+ \((?=.*\bUID (\d+))(?=.*\bRFC822\.SIZE (\d+)).*\)")
_UNSELECTABLE = (b"\\noselect", b"\\nonexistent")


@dataclass(frozen=True, slots=True, kw_only=True)
class Folder:
    """One folder's listing."""

    raw: bytes
    """Its name as the server spells it (modified UTF-7)."""
    rel: str
    """The path prefix of its messages (`names.folder_rel`)."""
    uidvalidity: int
    uids: array[int]
    """Its messages' UIDs, in the order of their paths."""
    sizes: array[int]
    """Each message's size in bytes (RFC822.SIZE), beside its UID."""


def list_folders(session: Session, address: ImapAddress) -> list[tuple[bytes, str]]:
    """Each folder the address names (every selectable one for `ALL`), with its
    hierarchy separator. Raises `ConfigError` for a folder that does not exist or
    holds no messages by design (\\Noselect)."""
    pattern = b"*" if address.folder == ALL else encode_folder(address.folder)
    replies = session.run(lambda conn: _list(conn, pattern), f"LIST {address.folder}")
    found = [(raw, delim) for raw, delim, flags in replies if not _unselectable(flags)]
    if address.folder != ALL and not found:
        raise ConfigError("source", f"{address}: the server has no folder {address.folder!r}")
    return sorted(found)


def _unselectable(flags: bytes) -> bool:
    return any(flag in flags.lower() for flag in _UNSELECTABLE)


def _list(conn: imaplib.IMAP4, pattern: bytes) -> list[tuple[bytes, str, bytes]]:
    typ, data = conn.list('""', arg(_quoted(pattern)))
    if typ != "OK":
        raise Refused(f"LIST: {data!r}")
    out = []
    for item in data:
        line, literal = (item[0], item[1]) if isinstance(item, tuple) else (item, None)
        if not isinstance(line, bytes) or (m := _LIST.match(line)) is None:
            continue
        delim = m["delim"]
        name = literal if literal is not None else _unquoted(m["name"])
        sep = "" if delim.upper() == b"NIL" else _unquoted(delim).decode("ascii", "replace")
        out.append((name, sep, m["flags"]))
    return out


def read_folder(session: Session, address: ImapAddress, raw: bytes, delim: str) -> Folder:
    """The listing of folder `raw`; raises `Refused` when the server will not open it."""
    rel = folder_rel(address.host, raw, delim)

    def listing(conn: imaplib.IMAP4) -> Folder:
        uidvalidity, exists = examine(session, conn, raw)
        pairs: list[tuple[int, int]] = []
        for first in range(1, exists + 1, _STRETCH):
            last = min(first + _STRETCH - 1, exists)
            typ, data = conn.fetch(f"{first}:{last}", "(UID RFC822.SIZE)")
            if typ != "OK":
                raise Refused(f"FETCH: {data!r}")
            pairs.extend(_pairs(data))
        pairs.sort(key=lambda pair: str(pair[0]))
        uids = array("L", (uid for uid, _ in pairs))
        sizes = array("Q", (size for _, size in pairs))
        return Folder(raw=raw, rel=rel, uidvalidity=uidvalidity, uids=uids, sizes=sizes)

    return session.run(listing, f"listing {rel}")


def examine(session: Session, conn: imaplib.IMAP4, raw: bytes) -> tuple[int, int]:
    """Open folder `raw` read-only (EXAMINE: no message is marked seen) unless it is
    open; return its UIDVALIDITY and message count. Raises `Refused`."""
    if session.selected is not None and session.selected[0] == raw:
        return session.selected[1], session.selected[2]
    typ, data = conn.select(arg(_quoted(raw)), readonly=True)
    if typ != "OK":
        raise Refused(f"EXAMINE: {b' '.join(d for d in data if isinstance(d, bytes))!r}")
    _, validity = conn.response("UIDVALIDITY")
    exists = int(data[0] or 0) if data and isinstance(data[0], bytes) else 0
    uidvalidity = int(validity[0]) if validity and validity[0] else 0
    session.selected = (raw, uidvalidity, exists)
    return uidvalidity, exists


def _pairs(data: Sequence[object]) -> list[tuple[int, int]]:
    out = []
    for item in data:
        if isinstance(item, bytes) and (m := _ITEM.match(item)) is not None:
            out.append((int(m[1]), int(m[2])))
    return out


def arg(text: bytes) -> str:
    """`text` as an argument of an `imaplib` command, which sends bytes as they are (a
    folder name a server sent in UTF-8 goes back as it came)."""
    return cast(str, text)


def _quoted(name: bytes) -> bytes:
    return b'"' + name.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


def _unquoted(text: bytes) -> bytes:
    if len(text) >= 2 and text[:1] == b'"' and text[-1:] == b'"':
        return re.sub(rb"\\(.)", rb"\1", text[1:-1])
    return text
