"""A file's output as the incremental state stores it: the rendered documents, tagged
with the packing they were rendered under, and the extractor's blocks they came from.

A stored output is found by a cache key that names the content, the extractor and
the options it uses, not the packing (`incremental.keys`): when the packing differs,
the reuse path re-packs the blocks (`extract.reuse`) instead of extracting again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import orjson

from indexer.pipeline.output.records import Rendered, doc_id


@dataclass(frozen=True, slots=True)
class StoredOutput:
    """What `decode` reads back."""

    tag: str
    """The packing the documents were rendered under (`CacheKeys.tag`)."""
    docs: tuple[Rendered, ...]
    blocks: bytes
    """The unit they were rendered from, before packing (`blocks.freeze`); empty when
    none was stored."""


def encode(docs: tuple[Rendered, ...], tag: str, blocks: bytes) -> list[bytes | bytearray]:
    """Serialise a file's output for the state, as parts to store one after the other
    (not joined: a large block is not copied).

    A JSON header line (the tag and the blocks' length), the blocks, then each
    document: a JSON header line (with the byte lengths of what follows, then its OCR
    counts when it has any), its document record line and its chunk block, so `decode`
    only slices.
    """
    parts: list[bytes | bytearray] = [_line([tag, len(blocks)]), blocks]
    for d in docs:
        head: list[object] = [d.path, d.doc_id, d.status, d.kind, d.pages, d.count, d.digest]
        head += [len(d.line), len(d.block)]
        if d.ocr:  # only then: a state of documents OCR never saw keeps its bytes
            head.append(d.ocr)
        parts += (_line(head), d.line, d.block)
    return parts


def decode(blob: bytes) -> StoredOutput:
    """Inverse of `encode`, its parts joined."""
    end = blob.index(b"\n") + 1
    tag, blocks_len = orjson.loads(blob[:end])
    blocks = blob[end : end + blocks_len]
    docs: list[Rendered] = []
    at = end + blocks_len
    while at < len(blob):
        end = blob.index(b"\n", at) + 1
        path, did, status, kind, pages, count, digest, line_len, block_len, *ocr = orjson.loads(
            blob[at:end]
        )
        docs.append(
            Rendered(
                path=path, doc_id=did, line=blob[end : end + line_len],
                block=blob[end + line_len : end + line_len + block_len], count=count,
                digest=digest, status=status, kind=kind, pages=pages,
                ocr=tuple(ocr[0]) if ocr else (),
            )
        )  # fmt: skip
        at = end + line_len + block_len
    return StoredOutput(tag, tuple(docs), blocks)


def _line(value: object) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


def rebase(docs: tuple[Rendered, ...], old: str, new: str) -> tuple[Rendered, ...] | None:
    """`docs` rendered for the file at `old`, re-rendered for the same content at `new`
    (a rename or a copy): the same bytes `render` gives for `new`. None when a record
    cannot be read back exactly (the caller extracts the file again then)."""
    out: list[Rendered] = []
    try:
        for d in docs:
            if not d.path.startswith(old):
                return None
            out.append(_rebased(d, new + d.path[len(old) :]))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, KeyError, TypeError):
        return None
    return tuple(out)


def _rebased(d: Rendered, path: str) -> Rendered:
    did = doc_id(path)
    lines = []
    for line in d.block.splitlines(keepends=True):
        record = orjson.loads(line)
        record.update(id=f"{did}:{record['chunk']}", doc_id=did, path=path)
        lines.append(_line(record))
    block = b"".join(lines)
    digest = hashlib.sha256(block).hexdigest()[:32]
    record = orjson.loads(d.line)
    record.update(path=path, doc_id=did, digest=digest)
    near = record["metadata"]["near_duplicate"]
    if near["cluster"]:  # a cluster of its own, as `render` gives one (`records._own_cluster`)
        near["cluster"] = did
    return replace(d, path=path, doc_id=did, block=block, digest=digest, line=_line(record))
