"""Member names as record paths: safe, printable, unique within their archive.

Nothing is written to disk, but a member's name becomes part of a record's path,
so a name that would escape a folder when unpacked (`..`, an absolute path, a
NUL) is never used as one: the member is recorded as `unsafe_name` instead.
Backslashes are read as folder separators (old Windows zip tools wrote them),
before that check, so `..\\..\\x` is caught too.
"""

from __future__ import annotations

__all__ = ["MemberNames", "clean_name", "zip_name"]

_SURROGATES = "utf-8", "surrogateescape"


def zip_name(name: str, utf8_flag: bool) -> str:
    """A zip member's name as its creator meant it: zipfile decodes names without the
    UTF-8 flag as cp437, which most tools that omit the flag wrote UTF-8 in anyway."""
    if utf8_flag:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return name


def clean_name(name: str) -> tuple[str, str | None]:
    """The record form of a member name, and why it is unsafe (None when it is not).

    The record form has `/` separators, no empty or `.` components and no trailing
    `/`; bytes that are not UTF-8 (surrogate-escaped by the reader) read `\\xNN`.
    """
    raw = name.encode(*_SURROGATES)
    printable = raw.replace(b"\\", b"/").decode("utf-8", "backslashreplace")
    if b"\0" in raw:
        return printable.replace("\0", "\\x00"), "unsafe_name: NUL in the name"
    if printable.startswith("/") or (len(printable) > 1 and printable[1] == ":"):
        return printable, "unsafe_name: absolute path"
    parts = [p for p in printable.split("/") if p not in ("", ".")]
    if ".." in parts:
        return printable, "unsafe_name: '..' in the path"
    return "/".join(parts), None


class MemberNames:
    """Hands out each record path once: a repeated name gets `~2`, `~3`, ..."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def claim(self, path: str) -> str:
        """`path`, or the first `path~<n>` not handed out yet."""
        found, n = path, 1
        while found in self._used:
            n += 1
            found = f"{path}~{n}"
        self._used.add(found)
        return found
