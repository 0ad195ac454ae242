"""The walker: every path below SOURCE, once, in a fixed order, with a verdict.

`walk(root, policy)` streams one `Entry` per path: `skip=None` for a regular file to
extract, else a stable reason code (listed in docs/architecture.md) with `detail` the
human part; a directory passed over wholesale is one entry whose `rel` ends in "/".
Order is the byte-wise sort of relative paths, a directory counting as its name plus "/"
(`a-b` < `a.txt` < `a/b.txt` < `a0`); memory holds one sorted listing per level. `rel`
is printable and unique (bytes that are not UTF-8 as `\\xNN`, backslashes doubled;
`rel_bytes` inverts it): open `path`, never `rel`.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import replace
from operator import itemgetter
from stat import S_ISLNK, S_ISREG

from indexer._globs import compile_globs, may_match_below
from indexer.formats import ARCHIVE_EXTENSIONS
from indexer.pipeline.walk.binary import (
    BINARY_EXTENSIONS,
    SNIFF_BYTES,
    binary_head,
    binary_reason,
)
from indexer.pipeline.walk.entry import Entry, escape_name, iter_batches, record, rel_bytes
from indexer.pipeline.walk.noted import Noted
from indexer.pipeline.walk.policy import WalkPolicy, policy_for
from indexer.registry import extension_of

__all__ = [
    "BINARY_EXTENSIONS",
    "IGNORED_DIRECTORIES",
    "SNIFF_BYTES",
    "Entry",
    "WalkPolicy",
    "binary_head",
    "compile_globs",
    "escape_name",
    "iter_batches",
    "policy_for",
    "rel_bytes",
    "walk",
]

IGNORED_DIRECTORIES = frozenset({b".git", b"node_modules", b"__pycache__"})
_LINK_ERRORS = {
    errno.ELOOP: "symlink_loop",
    errno.ENOENT: "dangling_symlink",
    errno.ENOTDIR: "dangling_symlink",  # the target path runs through a file
}
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def walk(root: str | os.PathLike[str], policy: WalkPolicy) -> Iterator[Entry]:
    """Return an iterator over every entry below `root`, in walk order (see the module doc).

    Raises at once, before iterating: NotADirectoryError when `root` is missing or
    not a directory, another OSError (PermissionError) when it cannot be listed.
    After that the iterator never raises for anything the tree holds.
    """
    base = os.path.realpath(os.fsencode(root))
    if not os.path.isdir(base):
        raise NotADirectoryError(errno.ENOTDIR, "SOURCE is not a directory", os.fspath(root))
    return _Walker(base, policy).run(_listing(base))


_Item = tuple[bytes, "os.DirEntry[bytes]"]
"""A listed name: its sort key (the name, plus "/" for a real directory) and its entry."""


def _listing(path: bytes) -> list[_Item]:
    """Return the listing of `path` in walk order; raises OSError."""
    with os.scandir(path) as it:
        items = [(_walk_key(entry), entry) for entry in it]
    items.sort(key=itemgetter(0))  # cheaper than comparing the tuples
    return items


def _walk_key(entry: os.DirEntry[bytes]) -> bytes:
    try:
        is_dir = entry.is_dir(follow_symlinks=False)  # a symlink to a directory is a file here
    except OSError:  # looked at as a file instead, which records why it failed
        is_dir = False
    return entry.name + b"/" if is_dir else entry.name


def _is_maildir(items: list[_Item]) -> bool:
    return {b"cur/", b"new/"} <= {key for key, _ in items}


class _Walker:
    def __init__(self, base: bytes, policy: WalkPolicy) -> None:
        self.inside = base.rstrip(b"/") + b"/"
        self.policy = policy
        self.include = compile_globs(policy.include)
        self.exclude = compile_globs(policy.exclude)
        self.filtered = self.include is not None or self.exclude is not None
        # The policy's fields, looked up once: `_file` and `_regular` run per file.
        self.skip_hidden = policy.skip_hidden
        self.max_file_bytes = policy.max_file_bytes
        self.claims = policy.claims
        self.streams = policy.streams
        self.noted = Noted(policy.noted) if policy.noted is not None else None
        self.here: tuple[str, list[_Item]] = ("", [])
        """The folder being listed: its walk prefix and listing."""

    def run(self, top: list[_Item]) -> Iterator[Entry]:
        # An explicit stack, not recursion: depth is bounded by PATH_MAX, not the C stack.
        stack = [("", top, iter(top), _is_maildir(top), False)]
        while stack:
            prefix, listing, items, maildir, mail = stack[-1]
            self.here = (prefix, listing)
            for key, entry in items:
                if not key.endswith(b"/"):
                    yield self._file(entry, prefix + escape_name(key), mail)
                    continue
                rel = f"{prefix}{escape_name(entry.name)}/"
                found = self._enter(entry, rel, maildir)
                if isinstance(found, Entry):
                    yield found
                else:
                    messages = maildir and key in (b"cur/", b"new/")
                    stack.append((rel, found, iter(found), _is_maildir(found), messages))
                    break  # into the directory; its parent's iterator resumes after it
            else:
                stack.pop()

    def _enter(self, entry: os.DirEntry[bytes], rel: str, maildir: bool) -> Entry | list[_Item]:
        name, path = entry.name, entry.path
        reason = (
            "ignored_directory" if name in IGNORED_DIRECTORIES
            else "hidden" if self.skip_hidden and name.startswith(b".")
            else "maildir_tmp" if maildir and name == b"tmp"
            else "excluded" if self._matches(self.exclude, rel[:-1], rel)
            else None
        )  # fmt: skip
        if reason is not None:
            return record(path, rel, reason, _lstat(path))
        try:
            children = _listing(path)
        except OSError as exc:
            return _failed(path, rel, exc, _lstat(path))
        if any(child.name == b"pyvenv.cfg" for _, child in children):
            return record(path, rel, "virtualenv", _lstat(path))
        return children

    def _file(self, entry: os.DirEntry[bytes], rel: str, mail: bool) -> Entry:
        path = entry.path
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            return _failed(path, rel, exc, None)
        if self.skip_hidden and entry.name.startswith(b"."):
            return record(path, rel, "hidden", st)
        if self.filtered and self._excluded(rel):
            return record(path, rel, "excluded", st)
        if S_ISLNK(st.st_mode):
            return self._link(path, rel, st, mail)
        return self._regular(path, rel, st, mail)

    def _excluded(self, rel: str) -> bool:
        # An archive is opened when the include may want its members (`*.pdf`); its own
        # document is then `excluded` by the worker (`extract.members`).
        return self._matches(self.exclude, rel) or (
            self.include is not None and not self._matches(self.include, rel)
            and not (extension_of(rel) in ARCHIVE_EXTENSIONS and self.claims(rel)
                     and may_match_below(self.policy.include, rel))
        )  # fmt: skip

    def _link(self, path: bytes, rel: str, st: os.stat_result, mail: bool) -> Entry:
        try:
            target = os.stat(path)
        except OSError as exc:
            reason = _LINK_ERRORS.get(exc.errno or 0, "unreadable")
            return record(path, rel, reason, st, exc.strerror or str(exc))
        if stat.S_ISDIR(target.st_mode):
            return record(path, rel, "directory_symlink", st)
        real = os.path.realpath(path)
        if not real.startswith(self.inside):
            return record(path, rel, "symlink_outside_source", st, escape_name(real))
        # A linked message is marked as mail but, unlike a message file, still sniffed.
        found = self._regular(real, rel, target)
        return replace(found, mail=True) if mail and found.skip is None else found

    def _regular(self, path: bytes, rel: str, st: os.stat_result, mail: bool = False) -> Entry:
        """Return the entry for a file that `st` describes; a message file when `mail`."""
        unusual = not S_ISREG(st.st_mode) or st.st_size > self.max_file_bytes
        if unusual and (verdict := self._verdict(path, rel, st)) is not None:
            return verdict
        if mail or self.claims(rel) or self.streams(rel):  # claims first: it is usually True
            return _unsniffed(path, rel, st, mail)
        if (ext := extension_of(rel)) in self.policy.binary_extensions:
            return record(path, rel, binary_reason(ext), st, f".{ext}")
        if self.noted is not None and self.noted.holds(rel, st, *self.here):
            return _unsniffed(path, rel, st)  # chmod keeps the stat: readability still asked
        return self._sniffed(path, rel, st)

    def _sniffed(self, path: bytes, rel: str, st: os.stat_result) -> Entry:
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            return _failed(path, rel, exc, st)
        try:  # check what was opened: the path may have been replaced since the lstat
            st = os.fstat(fd)
            if (verdict := self._verdict(path, rel, st)) is not None:
                return verdict
            head = os.read(fd, SNIFF_BYTES)
        except OSError as exc:
            return _failed(path, rel, exc, st)
        finally:
            os.close(fd)
        if binary_head(head):
            return record(path, rel, "binary", st, "NUL byte in the first 8 KiB")
        return record(path, rel, None, st)

    def _verdict(self, path: bytes, rel: str, st: os.stat_result) -> Entry | None:
        if not S_ISREG(st.st_mode):
            return record(path, rel, "not_regular_file", st, _file_type(st.st_mode))
        if st.st_size > self.max_file_bytes and not self.streams(rel):
            detail = f"{st.st_size} > {self.max_file_bytes} bytes"
            return record(path, rel, "too_large", st, detail)
        return None

    @staticmethod
    def _matches(globs: re.Pattern[str] | None, *candidates: str) -> bool:
        return globs is not None and any(globs.fullmatch(c) for c in candidates)


def _unsniffed(path: bytes, rel: str, st: os.stat_result, mail: bool = False) -> Entry:
    """Not sniffed: an unreadable file is told by `_readable`; the reader checks what it opens."""
    if not _readable(path, st):
        return record(path, rel, "unreadable", st, os.strerror(errno.EACCES))
    return record(path, rel, None, st, mail=mail)


_UID = os.getuid()


def _readable(path: bytes, st: os.stat_result) -> bool:
    """What access(R_OK) answers, asked only where the lstat's mode does not tell.

    The owner's read bit grants its owner (no ACL entry overrides the owner's bits),
    and root reads a file the other class may (a squashed root reads as they do); in
    every other case access() is asked, as before. On an unchanged re-run nearly every
    file is its reader's own: one system call a file, the lstat, instead of two.
    """
    if st.st_mode & stat.S_IRUSR and st.st_uid == _UID:
        return True
    if st.st_mode & stat.S_IROTH and _UID == 0:
        return True
    return os.access(path, os.R_OK)


def _file_type(mode: int) -> str:
    kinds = {stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket", stat.S_IFCHR: "character device"}
    return kinds.get(stat.S_IFMT(mode), "block device" if stat.S_ISBLK(mode) else "other")


def _lstat(path: bytes) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _failed(path: bytes, rel: str, exc: OSError, st: os.stat_result | None) -> Entry:
    gone = exc.errno in (errno.ENOENT, errno.ENOTDIR)
    return record(path, rel, "vanished" if gone else "unreadable", st, exc.strerror or str(exc))
