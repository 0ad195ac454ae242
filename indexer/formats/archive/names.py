"""Member names as record paths: safe, printable, unique within their archive.

Nothing is written to disk, but a member's name becomes part of a record's path,
so a name that would escape a folder when unpacked (`..`, an absolute path, a
NUL) is never used as one: the member is recorded as `unsafe_name` instead.
Backslashes are read as folder separators (old Windows zip tools wrote them),
before that check, so `..\\..\\x` is caught too.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

__all__ = ["LEGACY_ENCODINGS", "MemberNames", "clean_name", "zip_names"]

_SURROGATES = "utf-8", "surrogateescape"


def zip_names(infos: list[zipfile.ZipInfo]) -> list[str]:
    """Each zip member's name as its creator meant it, the way 7-Zip and Info-ZIP read
    them: as UTF-8 with the UTF-8 flag; else the Info-ZIP Unicode Path field when its
    checksum matches the name; else UTF-8 when the bytes are valid UTF-8 (what most
    tools that omit the flag wrote); else one legacy code page for the whole archive,
    guessed from all such names together (Shift-JIS from a Japanese archiver), and
    cp437, the format's own, when no guess decodes them all."""
    raws = [None if i.flag_bits & _UTF8_FLAG else i.orig_filename.encode("cp437") for i in infos]
    names = [
        i.orig_filename if raw is None else _unicode_path(i.extra, raw) or _utf8(raw)
        for i, raw in zip(infos, raws, strict=True)
    ]
    legacy = [raw for raw, name in zip(raws, names, strict=True) if raw and name is None]
    encoding = _legacy_encoding(legacy)
    return [
        name if name is not None else (raw or b"").decode(encoding)
        for raw, name in zip(raws, names, strict=True)
    ]


_UTF8_FLAG = 0x800
_UNICODE_PATH = 0x7075
"""The Info-ZIP Unicode Path extra field: version 1, the CRC-32 of the header's name,
the name in UTF-8."""
LEGACY_ENCODINGS = ("cp932", "gb18030", "big5", "cp949", "cp866", "cp437")
"""The code pages archivers wrote names in without saying so, the guesses allowed."""


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unicode_path(extra: bytes, raw: bytes) -> str | None:
    """The name in a Unicode Path field of `extra` made for the name `raw`, else None."""
    at = 0
    while at + 4 <= len(extra):
        kind, size = struct.unpack_from("<HH", extra, at)
        field = extra[at + 4 : at + 4 + size]
        at += 4 + size
        if kind != _UNICODE_PATH or size <= 5 or field[0] != 1:
            continue
        if struct.unpack_from("<L", field, 1)[0] == zlib.crc32(raw):
            return _utf8(field[5:])
    return None


def _legacy_encoding(raws: list[bytes]) -> str:
    """The one code page of `LEGACY_ENCODINGS` that charset detection picks for all of
    `raws` together and that decodes each; cp437 (decodes anything) otherwise."""
    if not raws:
        return "cp437"
    # Imported here: only an archive with legacy names pays for charset-normalizer
    from charset_normalizer import from_bytes

    best = from_bytes(b"\n".join(raws), cp_isolation=list(LEGACY_ENCODINGS)).best()
    if best is None:
        return "cp437"
    encoding = str(best.encoding)
    try:
        for raw in raws:
            raw.decode(encoding)
    except UnicodeDecodeError:
        return "cp437"
    return encoding


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
    """Hands out each record path once: a repeated name gets `~2`, `~3`, ...

    Linear in the names handed out: the next number to try is kept per name, since
    every number below it is taken already (`~n` is never handed back).
    """

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._next: dict[str, int] = {}

    def claim(self, path: str) -> str:
        """`path`, or the first `path~<n>` not handed out yet."""
        found, n = path, self._next.get(path, 1)
        if n > 1 or found in self._used:
            n += 1
            while (found := f"{path}~{n}") in self._used:
                n += 1
            self._next[path] = n
        self._used.add(found)
        return found
