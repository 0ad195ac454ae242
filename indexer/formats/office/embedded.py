"""Objects embedded in an Office or OpenDocument package, as the files they hold.

Word, PowerPoint and Excel keep an embedded object as a part under `word/`, `ppt/` or
`xl/embeddings/`: the file itself (`Microsoft_Excel_Worksheet.xlsx`) or an OLE compound
file (`oleObject1.bin`) that wraps it. `unwrap` finds the file an OLE wrapper holds: an
`Ole10Native` package (any file dropped into a document: a PDF, a zip, an `.exe`), an
Acrobat object's `CONTENTS` (a PDF), an OOXML `Package` stream (a workbook, a deck), or
the compound file itself when it is a Word, PowerPoint, Excel or Outlook file. An
OpenDocument file keeps an OLE object as `Object N` and an embedded text, spreadsheet or
presentation as the folder `Object N/`, repacked here into the file it stands for (charts
and formulas are drawn by the document itself, not documents).

`objects` yields each as a `Held` for the pipeline to nest: its path is the part's name
(and `/<file name>` when the wrapper names the file it holds), its name the file's, so
that its own extractor reads it; one whose name no extractor claims is judged by its
bytes (`binary`, or text). Every part read is charged to the unpacking budget the whole
top-level document shares; a part past it is `skipped` with the budget's reason, one
past the package's limits `refused`, a damaged one `failed`.
"""

from __future__ import annotations

import io
import posixpath
import re
import struct
import zipfile
from collections.abc import Iterator
from typing import Any

from indexer._spec import Held, Nesting
from indexer.formats.archive.budget import ArchiveError
from indexer.formats.archive.names import clean_name
from indexer.formats.office.container import ContainerError, Package
from indexer.formats.office.ole import kind_of, open_ole, stream
from indexer.formats.office.sniff import OLE_MAGIC, sniff, sniff_format

__all__ = ["charge", "objects", "unwrap", "wrapped"]

_OOXML = re.compile(r"(?:word|ppt|xl)/embeddings/[^/]+", re.I)
_ODF_OLE = re.compile(r"Object \d+")
_ODF_FOLDER = re.compile(r"(Object \d+)/")
_ODF_TYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
}
"""The embedded OpenDocument objects that are documents (not a chart or a formula)."""
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_NATIVE = "\x01ole10native"
_PROGID = "\x01ole10fmtprogid"
_PACKAGE = "0003000C-0000-0000-C000-000000000046"
"""The class of an OLE package, whose `Ole10Native` stream wraps a file."""
_HELD_KINDS = ("doc", "ppt", "xls", "msg")
"""OLE files that are documents themselves (a Word file embedded whole)."""


def objects(package: Package, nesting: Nesting) -> Iterator[Held]:
    """The objects embedded in `package`, in part-name order, each charged to
    `nesting.budget`; never raises for a damaged object (its `Held` says so)."""
    infos = {i.filename.lower(): i for i in package.archive.infolist() if not i.is_dir()}
    parts = sorted(i.filename for i in infos.values() if _is_object(i.filename))
    for part in parts:
        yield _held(package, infos[part.lower()], nesting)
    for folder, ext in _odf_folders(package):
        yield _repacked(package, folder, ext, nesting)


def _is_object(name: str) -> bool:
    return bool(_OOXML.fullmatch(name) or _ODF_OLE.fullmatch(name))


def _held(package: Package, info: zipfile.ZipInfo, nesting: Nesting) -> Held:
    path, unsafe = clean_name(info.filename)
    if unsafe is not None:
        return Held(path=path, name=path, data=None, size=info.file_size, problem=unsafe)
    problem = charge(nesting, info.file_size)
    if problem is not None:
        return Held(path=path, name=path, data=None, size=info.file_size, problem=problem)
    try:
        data = package.read(info.filename) or b""
        name, payload = unwrap(path, data)
    except ContainerError as exc:
        damaged = not exc.reason.startswith("refused")
        return Held(
            path=path, name=_named(path, "bin"), data=None, size=info.file_size,
            problem=exc.reason, damaged=damaged,
        )  # fmt: skip
    # A wrapper that names the file it holds (a package's label) adds the name to the
    # path; one that only says what it is (a PDF) keeps the part's path.
    inner = path if _stem(name) == _stem(posixpath.basename(path)) else f"{path}/{name}"
    return Held(path=inner, name=name, data=payload, size=len(payload))


def charge(nesting: Nesting, size: int) -> str | None:
    """Count one object of `size` bytes against the budget; why it does not fit, or None."""
    budget = nesting.budget
    try:
        budget.count()
        if size > budget.room():
            raise budget.unpacked_limit()
        budget.take(size)
    except ArchiveError as exc:
        return exc.reason
    return None


def unwrap(part: str, data: bytes) -> tuple[str, bytes]:
    """The file embedded as part `part`: its name (an extension its extractor claims
    where one is known) and its bytes. Raises `ContainerError` for a damaged wrapper."""
    base = posixpath.basename(part)
    if not data.startswith(OLE_MAGIC):
        if base.lower().endswith(".bin") and sniff(data) == "zip":
            return _named(base, sniff_format(data)), data
        return base, data
    with open_ole(data) as ole:
        streams = {"/".join(entry).lower(): entry for entry in ole.listdir()}
        found = wrapped(ole, streams, base, ole.root.clsid)
        if found is not None:
            return found
        kind = kind_of(ole)
    return (_named(base, kind), data) if kind in _HELD_KINDS else (base, data)


def wrapped(
    ole: Any, streams: dict[str, list[str]], base: str, clsid: str
) -> tuple[str, bytes] | None:
    """The file an OLE object's `streams` (lower-cased name -> entry; `clsid` its class)
    wrap, named after `base`: a package's, a PDF or RTF `CONTENTS`, an OOXML `Package`;
    None for none of these. Raises `ContainerError` for a damaged one."""
    if _NATIVE in streams and _packaged(ole, streams, clsid):
        return _native(stream(ole, streams[_NATIVE]), base)
    contents = stream(ole, streams["contents"]) if "contents" in streams else b""
    if contents.lstrip()[:5] == b"%PDF-":
        return _named(base, "pdf"), contents
    if contents.startswith(b"{\\rtf"):
        return _named(base, "rtf"), contents
    if "package" in streams:
        held = stream(ole, streams["package"])
        return _named(base, sniff_format(held)), held
    return None


def _packaged(ole: Any, streams: dict[str, list[str]], clsid: str) -> bool:
    """True when an object's `Ole10Native` stream is a package (a dropped-in file), not
    an OLE 1 object's own data (an equation's): by its class, else its ProgID."""
    if clsid:
        return clsid.upper() == _PACKAGE
    progid = stream(ole, streams[_PROGID]) if _PROGID in streams else b"Package"
    return b"Package" in progid


def _named(base: str, ext: str) -> str:
    """`base` with its extension replaced by `ext` (`oleObject1.bin` -> `oleObject1.pdf`)."""
    return f"{_stem(base)}.{ext}"


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


def _native(native: bytes, base: str) -> tuple[str, bytes]:
    """The file an `Ole10Native` stream packages: its label's name and its bytes.

    The stream is a size, a flag, the label and the source path (NUL-terminated),
    a 4-byte marker, the temporary path (a length, then the bytes), then the data's
    size and the data. Raises `ContainerError` `corrupt` when a length lies."""
    try:
        at = 6
        label, at = _cstring(native, at)
        _, at = _cstring(native, at)
        (length,) = struct.unpack_from("<I", native, at + 4)
        at += 8 + length
        (size,) = struct.unpack_from("<I", native, at)
    except struct.error:
        raise ContainerError("corrupt: the embedded package is cut short") from None
    at += 4
    if size > len(native) - at:
        held = max(0, len(native) - at)
        raise ContainerError(f"corrupt: the embedded package declares {size} bytes, holds {held}")
    return _label_name(label, base), native[at : at + size]


def _cstring(data: bytes, at: int) -> tuple[bytes, int]:
    end = data.index(b"\0", at) if b"\0" in data[at:] else -1
    if end < 0:
        raise struct.error("no NUL")
    return data[at:end], end + 1


def _label_name(label: bytes, base: str) -> str:
    """The last component of a package's label, printable; `base` as `.bin` without one."""
    try:
        text = label.decode("utf-8")
    except UnicodeDecodeError:
        text = label.decode("cp1252", "replace")
    name = re.sub(r"[\x00-\x1f\x7f]", "", text.replace("\\", "/")).rsplit("/", 1)[-1].strip()
    cleaned, unsafe = clean_name(name)
    return cleaned if cleaned and unsafe is None and cleaned not in (".", "..") else base


def _odf_folders(package: Package) -> list[tuple[str, str]]:
    """The `Object N/` folders of an OpenDocument package that hold a text, spreadsheet
    or presentation, with that format's extension, by the manifest."""
    folders = {m[1] for n in package.names() if (m := _ODF_FOLDER.match(n))}
    if not folders or not package.has("META-INF/manifest.xml"):
        return []
    try:
        root = package.xml("META-INF/manifest.xml")
    except ContainerError:
        return []
    found = []
    for entry in root.iter(_MANIFEST + "file-entry"):
        path = (entry.get(_MANIFEST + "full-path") or "").rstrip("/")
        ext = _ODF_TYPES.get(entry.get(_MANIFEST + "media-type") or "")
        if ext and path in folders:
            found.append((path, ext))
    return sorted(set(found))


def _repacked(package: Package, folder: str, ext: str, nesting: Nesting) -> Held:
    """The OpenDocument file folder `folder` of `package` stands for, zipped again."""
    infos = [i for i in package.archive.infolist() if i.filename.startswith(folder + "/")]
    size = sum(i.file_size for i in infos)
    problem = charge(nesting, size)
    if problem is not None:
        return Held(path=folder, name=f"{folder}.{ext}", data=None, size=size, problem=problem)
    buffer = io.BytesIO()
    mimetype = next(t for t, e in _ODF_TYPES.items() if e == ext)
    try:
        with zipfile.ZipFile(buffer, "w") as out:
            out.writestr("mimetype", mimetype)
            for info in infos:
                inner = info.filename[len(folder) + 1 :]
                if inner and not info.is_dir():
                    out.writestr(inner, package.read(info.filename) or b"")
    except ContainerError as exc:
        return Held(
            path=folder, name=f"{folder}.{ext}", data=None, size=size, problem=exc.reason,
            damaged=not exc.reason.startswith("refused"),
        )  # fmt: skip
    data = buffer.getvalue()
    return Held(path=folder, name=f"{folder}.{ext}", data=data, size=len(data))
