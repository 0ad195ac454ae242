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
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from indexer._types import Extracted, make_chunk
from indexer.pipeline.output.ocrcounts import SECONDS
from indexer.pipeline.output.units import Child, Unit


def freeze(unit: Unit, size: int, more: Sequence[bytes] = ()) -> bytes:
    """`unit` (complete, keyed, whole texts dropped) and its file's `size`, as bytes:
    a frame of the JSON `[size, doc, children]`, compressed as it is encoded, a slice of
    chunks at a time (a large document's JSON is never held whole); then `more`, frames
    of further children made by `child_frame` where they were extracted (an archive's
    members: the parent only joins them)."""
    return b"".join((_frame(_json(unit, size)), *more))


def child_frame(child: Child) -> bytes:
    """One child as a frame of its own, to follow its parent's in `freeze`."""
    return _frame(_child_json(child))


def _frame(pieces: Iterable[bytes]) -> bytes:
    """`pieces` of JSON compressed, after their compressed length (4 bytes, big-endian)."""
    squeeze = zlib.compressobj(_LEVEL)
    parts = [squeeze.compress(piece) for piece in pieces]
    parts.append(squeeze.flush())
    body = b"".join(parts)
    return len(body).to_bytes(4, "big") + body


def _json(unit: Unit, size: int) -> Iterator[bytes]:
    """The JSON of `freeze`'s first frame, in pieces."""
    yield b"[%d," % size
    yield from _doc_json(unit.doc)
    yield b",["
    for i, c in enumerate(unit.children):
        yield b"," if i else b""
        yield from _child_json(c)
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
    metadata = doc.metadata
    if SECONDS in metadata:  # a measurement: the state keeps the same bytes for the same input
        metadata = {k: v for k, v in metadata.items() if k != SECONDS}
    yield orjson.dumps([doc.kind, doc.degraded, doc.error, metadata, doc.skipped])[:-1]
    yield b",["
    chunks = doc.chunks
    for at in range(0, len(chunks), _SLICE):
        yield b"," if at else b""
        yield orjson.dumps([[c.text, c.meta] for c in chunks[at : at + _SLICE]])[1:-1]
    yield b"]]"


def thaw(blocks: bytes) -> tuple[Unit, int]:
    """Inverse of `freeze`. Raises ValueError (or TypeError) for bytes it did not make."""
    frames = list(_frames(blocks))
    if not frames:
        raise ValueError("stored blocks are empty")
    size, doc, children = frames[0]
    children = [*children, *frames[1:]]
    thawed = tuple(_child(c) for c in children)
    unit_doc = _extracted(doc)
    if unit_doc is None or not isinstance(size, int):
        raise ValueError("stored blocks without a document")
    return Unit(doc=unit_doc, children=thawed), size


def thaw_child(frame: bytes) -> Child:
    """Inverse of `child_frame`. Raises ValueError (or TypeError) for bytes it did not make."""
    values = list(_frames(frame))
    if len(values) != 1:
        raise ValueError(f"a child's blocks are one frame, not {len(values)}")
    return _child(values[0])


def _child(values: list[Any]) -> Child:
    suffix, kind, size, sha, extractor, extracted, skip, context, key = values
    return Child(
        suffix=suffix, kind=kind, size=size, sha256=sha, extractor=extractor,
        extracted=_extracted(extracted), skip=skip, context=context, key=key,
    )  # fmt: skip


def _frames(blocks: bytes) -> Iterator[Any]:
    """The JSON value of each frame of `blocks`."""
    at = 0
    while at < len(blocks):
        end = at + 4 + int.from_bytes(blocks[at : at + 4], "big")
        if end > len(blocks):
            raise ValueError("stored blocks are cut short")
        try:
            yield orjson.loads(zlib.decompress(blocks[at + 4 : end]))
        except zlib.error as exc:
            raise ValueError(f"stored blocks do not decompress: {exc}") from exc
        at = end


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
