"""What the walk yields: one `Entry` per path, and the escaping of its `rel`.

`rel` is printable and unique: bytes that are not UTF-8 as `\\xNN`, backslashes
doubled, `#` as `\\x23` (it separates a container from its children: `a.zip#b.txt`);
`rel_bytes` inverts it. Open `path`, never `rel`.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "Entry",
    "escape_name",
    "escape_part",
    "iter_batches",
    "record",
    "rel_bytes",
    "stat_version",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One path the walk met, and whether to extract it."""

    rel: str
    """Relative POSIX path, escaped as the module says; ends in "/" for a directory."""
    path: bytes
    """Absolute path to open: symlink-free; a followed file symlink's resolved target."""
    size: int
    """Size in bytes (of the target for a followed symlink); 0 when unknown."""
    version: str
    """The source's version token: changes whenever the bytes may have. For the local
    folder the stat (`stat_version`); an IMAP UID, an object's ETag elsewhere."""
    skip: str | None
    """None to extract the file; else a reason code from the module's table."""
    detail: str = ""
    """Human detail for a skip (an errno text, a limit); not stable across systems."""
    mail: bool = False
    """A message file of a Maildir (in its `cur/` or `new/`): extracted as `eml`."""
    data: bytes | None = None
    """Content already read: a message split out of an mbox (`rel` is `box.mbox#<n>`)."""
    holds: str = ""
    """A mailbox file's kind (`mbox`, `pst`): its messages follow it in the walk."""


def escape_name(name: bytes) -> str:
    """Return the printable, unique text form of one file name (see the module doc)."""
    return name.replace(b"\\", b"\\\\").replace(b"#", b"\\x23").decode("utf-8", "backslashreplace")


def escape_part(path: str) -> str:
    """`path` (an archive member's path, an attachment's name: printable already, a
    backslash only in a `\\xNN`) as a piece of a record path: `#`, the separator of
    documents inside documents, as `\\x23`, so no name reads as a container's child.
    Most names come back as they are."""
    return path.replace("#", "\\x23") if "#" in path else path


def rel_bytes(rel: str) -> bytes:
    """Return the raw relative path bytes that an escaped `rel` stands for."""
    return re.sub(
        rb"\\(\\|x[0-9a-f]{2})",
        lambda m: b"\\" if m[1] == b"\\" else bytes([int(m[1][1:], 16)]),
        rel.encode("utf-8"),
    )


def iter_batches(entries: Iterable[T], n: int) -> Iterator[list[T]]:
    """Return lists of up to `n` consecutive entries, in order; raises ValueError if n < 1."""
    if n < 1:
        raise ValueError(f"batch size must be >= 1, got {n}")
    it = iter(entries)
    while batch := list(itertools.islice(it, n)):
        yield batch


def record(
    path: bytes,
    rel: str,
    skip: str | None,
    st: os.stat_result | None,
    detail: str = "",
    mail: bool = False,
) -> Entry:
    """An `Entry` for `path` from its stat (size 0, version "" when None), built slot by slot."""
    entry = object.__new__(Entry)
    _set_rel(entry, rel)
    _set_path(entry, path)
    _set_size(entry, st.st_size if st else 0)
    _set_version(entry, stat_version(st) if st else "")
    _set_skip(entry, skip)
    _set_detail(entry, detail)
    _set_mail(entry, mail)
    _set_data(entry, None)
    _set_holds(entry, "")
    return entry


def stat_version(st: os.stat_result) -> str:
    """The local folder's version token of a file: its size, mtime, inode and device."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_dev}"


def _slot_setter(field: str) -> Callable[[Entry, object], None]:
    setter: Callable[[Entry, object], None] = getattr(Entry, field).__set__
    return setter


# Entry's generated __init__ goes through the frozen object.__setattr__ once per field,
# which made it the largest cost of a walk; the slot descriptors set the same fields
# directly. A test checks that `record` and `Entry(...)` build equal entries.
_set_rel, _set_path = _slot_setter("rel"), _slot_setter("path")
_set_size, _set_version = _slot_setter("size"), _slot_setter("version")
_set_skip, _set_detail = _slot_setter("skip"), _slot_setter("detail")
_set_mail, _set_data = _slot_setter("mail"), _slot_setter("data")
_set_holds = _slot_setter("holds")
