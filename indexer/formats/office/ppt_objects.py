"""Objects embedded in a PowerPoint 97 file, as the files they wrap (`ppt_objects`).

A `.ppt` keeps each embedded object (a workbook, a Word document, a packaged file) as an
`ExOleObjStg` record of its `PowerPoint Document` stream: a compound file, stored as it
is or deflated after a 4-byte size. Each one is read as the OOXML formats' embedded
parts are (`embedded.unwrap`), named after its place among them
(`embeddings/oleObject<n>.bin`, as a `.pptx` names its parts), and charged to the
nesting budget before it is inflated, at its declared size.

A deflated object whose output reaches its declared size is taken even when its stream
ends early or its checksum is wrong (PowerPoint writes both); the reading of its bytes
then decides its record. One that falls short is a damaged child, `corrupt`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

from indexer._spec import Held, Nesting
from indexer.formats.office.container import ContainerError
from indexer.formats.office.embedded import charge, unwrap
from indexer.formats.office.ole import open_ole, stream

__all__ = ["ppt_objects"]

_EX_OLE_OBJ_STG = 0x1011
_HEADER = struct.Struct("<HHI")
_DOCUMENT = "PowerPoint Document"


def ppt_objects(data: bytes, nesting: Nesting) -> Iterator[Held]:
    """The files the `ExOleObjStg` records of the presentation `data` wrap, in stream
    order; none when it is no readable presentation. Never raises."""
    try:
        with open_ole(data) as ole:
            document = stream(ole, _DOCUMENT)
    except ContainerError:  # its extractor says what is wrong with the file
        return
    for n, (instance, body) in enumerate(_records(document), start=1):
        yield _held(f"embeddings/oleObject{n}.bin", instance, body, nesting)


def _records(document: bytes) -> Iterator[tuple[int, memoryview]]:
    """The (instance, body) of each top-level `ExOleObjStg` record, up to the first
    record that runs past the stream's end."""
    view, at = memoryview(document), 0
    while at + _HEADER.size <= len(document):
        version, kind, length = _HEADER.unpack_from(document, at)
        body = at + _HEADER.size
        if body + length > len(document):
            return
        if kind == _EX_OLE_OBJ_STG:
            yield version >> 4, view[body : body + length]
        at = body + length


def _held(path: str, instance: int, body: memoryview, nesting: Nesting) -> Held:
    base = path.rsplit("/", 1)[-1]
    compressed = instance == 1
    size = struct.unpack_from("<I", body)[0] if compressed and len(body) >= 4 else len(body)
    problem = charge(nesting, size)
    if problem is not None:
        return Held(path=path, name=base, data=None, size=size, problem=problem)
    try:
        raw = _inflated(body, size) if compressed else bytes(body)
        name, payload = unwrap(path, raw)
    except ContainerError as exc:
        damaged = not exc.reason.startswith("refused")
        return Held(path=path, name=base, data=None, size=size, problem=exc.reason, damaged=damaged)
    # As in a .pptx: a package's label names the file, a workbook keeps the part's path.
    inner = path if name.rsplit(".", 1)[0] == base.rsplit(".", 1)[0] else f"{path}/{name}"
    return Held(path=inner, name=name, data=payload, size=len(payload))


def _inflated(body: memoryview, size: int) -> bytes:
    """A deflated object's `size` bytes (never more inflated than that); raises
    `ContainerError` `corrupt` when its stream gives fewer."""
    raw = b""
    for wbits, skip in ((zlib.MAX_WBITS, 4), (-zlib.MAX_WBITS, 6)):  # zlib, else raw deflate
        try:
            raw = zlib.decompressobj(wbits).decompress(body[skip:], size)
        except zlib.error:  # a bad checksum: the raw stream gives the same bytes unchecked
            continue
        if len(raw) == size:
            return raw
    raise ContainerError(f"corrupt: an embedded object inflates to {len(raw)} of {size} bytes")
