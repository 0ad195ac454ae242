"""The guard for container formats: ZIP packages and their XML parts, and the failed result.

Office, OpenDocument, EPUB and spreadsheet files are ZIPs of XML parts (or OLE
compound files, `ole`), read here before any third-party parser sees them. `open_zip`
refuses a package whose members would unpack past `ZipLimits` before unpacking any;
`parse_xml` never expands entities (it drops their references) nor fetches anything.
Every refusal is a `ContainerError` whose `reason` is the record's: `encrypted`,
`corrupt: ...` or `refused: ...`; `failed` makes that record's result.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

from lxml import etree

from indexer._extract import failure_text
from indexer._types import Chunk, Extracted

__all__ = [
    "ENCRYPTED",
    "ContainerError",
    "Package",
    "ZipLimits",
    "failed",
    "open_zip",
    "parse_xml",
]

ENCRYPTED = "encrypted"


class ContainerError(Exception):
    """A container that cannot or must not be read; `reason` goes in the record."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def failed(kind: str, reason: str, metadata: dict[str, Any] | None = None) -> Extracted:
    """The failed result: one marker chunk, `degraded`, `error` the reason."""
    return Extracted(
        kind=kind,
        text="",
        chunks=(Chunk(text=failure_text(kind, reason)),),
        degraded=True,
        error=reason,
        metadata=metadata or {},
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ZipLimits:
    """What a package may unpack to; anything past them is refused before unpacking."""

    members: int = 20_000
    """Entries in the central directory."""
    total: int = 1 << 30
    """Declared uncompressed bytes of all entries together."""
    member: int = 256 << 20
    """Declared uncompressed bytes of one entry that is read."""
    ratio: int = 200
    """Uncompressed to compressed size of one entry that is read, once past `ratio_floor`."""
    ratio_floor: int = 4 << 20
    """Entries smaller than this are read whatever their ratio: small XML compresses well."""


class Package:
    """A ZIP whose directory passed `ZipLimits`; members read by case-insensitive name."""

    def __init__(self, archive: zipfile.ZipFile, limits: ZipLimits) -> None:
        self._zip = archive
        self._limits = limits
        self._names = {info.filename.lower(): info for info in archive.infolist()}

    def names(self) -> list[str]:
        """Every member's name, in directory order."""
        return [info.filename for info in self._zip.infolist()]

    def has(self, name: str) -> bool:
        """True when a member is called `name` (ignoring case, as OOXML part names do)."""
        return name.lower().lstrip("/") in self._names

    @property
    def archive(self) -> zipfile.ZipFile:
        """The ZIP itself, for a reader that streams members it has checked (`check_all`)."""
        return self._zip

    def check_all(self) -> None:
        """Check every member against the limits now, as `read` checks one: for a
        package a third-party reader will unpack whole. Raises `ContainerError`."""
        for info in self._zip.infolist():
            self._check(info)

    def _check(self, info: zipfile.ZipInfo) -> None:
        limits = self._limits
        if info.file_size > limits.member:
            raise ContainerError(f"refused: {info.filename} would unpack to {info.file_size} bytes")
        ratio = info.file_size / max(1, info.compress_size)
        if info.file_size > limits.ratio_floor and ratio > limits.ratio:
            raise ContainerError(f"refused: {info.filename} is compressed {ratio:.0f} to 1")
        if info.flag_bits & 0x1:
            raise ContainerError(ENCRYPTED)

    def read(self, name: str) -> bytes | None:
        """The member `name` unpacked, or None when there is none.

        Raises `ContainerError`: `refused` past the limits, `encrypted`, or `corrupt`.
        """
        info = self._names.get(name.lower().lstrip("/"))
        if info is None:
            return None
        self._check(info)
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
            raise ContainerError(f"corrupt: {info.filename}: {exc}") from None
        except NotImplementedError as exc:  # deflate64, bzip2 variants zipfile lacks
            raise ContainerError(f"corrupt: {info.filename}: {exc}") from None

    def xml(self, name: str) -> Any:
        """The member `name` parsed by `parse_xml`, or None when there is none."""
        data = self.read(name)
        return None if data is None else parse_xml(data, name)


def open_zip(data: bytes, limits: ZipLimits | None = None) -> Package:
    """Open `data` as a ZIP package, checking its directory against `limits`.

    Raises `ContainerError`: `corrupt` when it is no readable ZIP (truncated, not a
    ZIP), `refused` when its directory declares more than the limits allow.
    """
    limits = limits or ZipLimits()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    # NotImplementedError: a directory naming a ZIP version zipfile does not read
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        ValueError,
        OSError,
        NotImplementedError,
    ) as exc:
        raise ContainerError(f"corrupt: not a readable ZIP ({exc})") from None
    infos = archive.infolist()
    if len(infos) > limits.members:
        raise ContainerError(f"refused: {len(infos)} members in the ZIP")
    total = sum(info.file_size for info in infos)
    if total > limits.total:
        raise ContainerError(f"refused: the ZIP would unpack to {total} bytes")
    return Package(archive, limits)


def _parser() -> Any:
    # No entity is ever substituted, no DTD or URL is loaded, no node nests past
    # libxml2's own depth limit: billion laughs and external entities stay inert.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


_PARSER = _parser()


def parse_xml(data: bytes, name: str = "xml") -> Any:
    """Parse one XML part safely and return its root element.

    Raises `ContainerError` `corrupt: <name>: ...` when it is not well-formed XML.
    """
    try:
        root = etree.fromstring(data, _PARSER)
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise ContainerError(f"corrupt: {name}: {exc}"[:300]) from None
    if root is None:
        raise ContainerError(f"corrupt: {name}: no root element")
    if root.getroottree().docinfo.doctype:
        _drop_entities(root)
    return root


def _drop_entities(root: Any) -> None:
    """Remove the entity references a DTD left unexpanded, keeping the text after them:
    the readers then meet only elements, whose `tag` is a string."""
    for entity in list(root.iter(etree.Entity)):
        parent, before = entity.getparent(), entity.getprevious()
        if entity.tail and before is not None:
            before.tail = (before.tail or "") + entity.tail
        elif entity.tail:
            parent.text = (parent.text or "") + entity.tail
        parent.remove(entity)
