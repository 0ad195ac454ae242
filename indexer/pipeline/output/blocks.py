"""A unit's blocks as the state keeps them: what an extraction gave, before packing.

The packed chunks are a function of these blocks and the packing settings
(`indexer.chunking`), so a run with other `[chunking]` settings re-packs them
instead of extracting the file again. JSON, no pickle: the state is a file on disk
that may be damaged, and damage must read as an error, never run code. Compressed
(zlib level 1): blocks are repetitive text, and a state holding them whole was 1.8
times the size of one holding the rendered output alone (docs/chunking.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from indexer._types import Extracted, make_chunk
from indexer.pipeline.output.units import Child, Unit


def freeze(unit: Unit, size: int, more: Sequence[bytes] = ()) -> bytes:
    """`unit` (complete, keyed, whole texts dropped) and its file's `size`, as bytes:
    the JSON `[size, doc, children]`, compressed as it is encoded, a slice of chunks at a
    time (a large document's JSON is never held whole). `more` are further children,
    encoded already by `child_json` where they were extracted (an archive's members)."""
    squeeze = zlib.compressobj(_LEVEL)
    parts = [squeeze.compress(piece) for piece in _json(unit, size, more)]
    parts.append(squeeze.flush())
    return b"".join(parts)


def child_json(child: Child) -> bytes:
    """One child's JSON in `freeze`'s children list."""
    return b"".join(_child_json(child))


def _json(unit: Unit, size: int, more: Sequence[bytes]) -> Iterator[bytes]:
    """The JSON of `freeze`, in pieces."""
    yield b"[%d," % size
    yield from _doc_json(unit.doc)
    yield b",["
    for i, c in enumerate(unit.children):
        yield b"," if i else b""
        yield from _child_json(c)
    for i, encoded in enumerate(more):
        yield b"," if i or unit.children else b""
        yield encoded
    yield b"]]"


def _child_json(c: Child) -> Iterator[bytes]:
    yield orjson.dumps([c.suffix, c.kind, c.size, c.sha256, c.extractor])[:-1] + b","
    yield from _doc_json(c.extracted)
    yield b"," + orjson.dumps([c.skip, c.context, c.key])[1:]


def _doc_json(doc: Extracted | None) -> Iterator[bytes]:
    """`[kind, degraded, error, metadata, skipped, [[text, meta], ...]]`, or `null`."""
    if doc is None:
        yield b"null"
        return
    yield orjson.dumps([doc.kind, doc.degraded, doc.error, doc.metadata, doc.skipped])[:-1]
    yield b",["
    chunks = doc.chunks
    for at in range(0, len(chunks), _SLICE):
        yield b"," if at else b""
        yield orjson.dumps([[c.text, c.meta] for c in chunks[at : at + _SLICE]])[1:-1]
    yield b"]]"


def thaw(blocks: bytes) -> tuple[Unit, int]:
    """Inverse of `freeze`. Raises ValueError (or TypeError) for bytes it did not make."""
    try:
        size, doc, children = orjson.loads(zlib.decompress(blocks))
    except zlib.error as exc:
        raise ValueError(f"stored blocks do not decompress: {exc}") from exc
    thawed = tuple(
        Child(
            suffix=suffix, kind=kind, size=csize, sha256=sha, extractor=extractor,
            extracted=_extracted(extracted), skip=skip, context=context, key=key,
        )
        for suffix, kind, csize, sha, extractor, extracted, skip, context, key in children
    )  # fmt: skip
    unit_doc = _extracted(doc)
    if unit_doc is None or not isinstance(size, int):
        raise ValueError("stored blocks without a document")
    return Unit(doc=unit_doc, children=thawed), size


_LEVEL = 1
"""zlib's fastest level: it costs a fresh run a few percent, and higher levels save
little more on text."""
_SLICE = 4096
"""Chunks encoded at a time."""


def _extracted(doc: list[Any] | None) -> Extracted | None:
    if doc is None:
        return None
    kind, degraded, error, metadata, skipped, chunks = doc
    return Extracted(
        kind=kind, text="", chunks=tuple(make_chunk(text, meta) for text, meta in chunks),
        degraded=degraded, error=error, metadata=metadata, skipped=skipped,
    )  # fmt: skip
