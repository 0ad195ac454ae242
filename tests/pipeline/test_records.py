"""Rendered records: the exact bytes of the output format, however they are built."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer._types import Chunk, Extracted
from indexer.pipeline.output import shape
from indexer.pipeline.output.blocks import child_frame, freeze, thaw
from indexer.pipeline.output.records import DocOutcome, doc_id, render
from indexer.pipeline.output.stored import decode, encode
from indexer.pipeline.output.units import Child, Unit

TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
"""Any text orjson can encode (lone surrogates are not JSON)."""
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
META = st.dictionaries(TEXT, JSON, max_size=4)


def _as_dumped(doc: DocOutcome) -> bytes:
    """The chunk block as the output format defines it: each record dumped whole, in the
    stable shape (`shape`: no nulls, every meta key)."""
    did = doc_id(doc.path)
    assert doc.extracted is not None
    records: list[dict[str, Any]] = [
        {
            "id": f"{did}:{i}", "doc_id": did, "path": doc.path, "kind": doc.kind or "",
            "chunk": i, "text": chunk.text, "meta": {**shape.chunk_meta(chunk.meta), **(
                {} if "blocks" in chunk.meta else {"blocks": [i, i]}
            )},
            "degraded": doc.extracted.degraded, "sha256": doc.sha256 or "",
        }
        for i, chunk in enumerate(doc.extracted.chunks)
    ]  # fmt: skip
    return b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records)


@given(
    path=TEXT,
    kind=st.none() | TEXT,
    sha256=st.none() | TEXT,
    degraded=st.booleans(),
    chunks=st.lists(st.builds(Chunk, text=TEXT, meta=META), max_size=12),
)
def test_chunk_lines_are_the_bytes_of_each_record_dumped_whole(
    path: str, kind: str | None, sha256: str | None, degraded: bool, chunks: list[Chunk]
) -> None:
    extracted = Extracted(kind="text", text="", chunks=tuple(chunks), degraded=degraded)
    doc = DocOutcome(path=path, kind=kind, size=1, sha256=sha256, extracted=extracted)
    rendered = render(doc)
    assert rendered.block == _as_dumped(doc)
    assert rendered.count == len(chunks)


def test_a_percent_sign_in_a_path_is_not_a_placeholder() -> None:
    chunks = (Chunk(text="100%d", meta={"%s": "%b"}), Chunk(text="b"))
    extracted = Extracted(kind="text", text="", chunks=chunks)
    doc = DocOutcome(path="50%d/%%s.txt", kind="text", size=1, sha256="s", extracted=extracted)
    assert render(doc).block == _as_dumped(doc)


def test_a_skipped_document_has_no_chunk_lines() -> None:
    doc = DocOutcome(path="a.bin", kind=None, size=3, sha256=None, skip="binary")
    rendered = render(doc)
    assert (rendered.block, rendered.count, rendered.status) == (b"", 0, "skipped")


def test_packed_documents_unpack_equal() -> None:
    chunks = (Chunk(text="one", meta={"page": 1}), Chunk(text="two"))
    extracted = Extracted(kind="pdf", text="", chunks=chunks, metadata={"pages": 2})
    docs = (
        render(DocOutcome(path="a.pdf", kind="pdf", size=9, sha256="h", extracted=extracted)),
        render(DocOutcome(path="b.bin", kind=None, size=3, sha256=None, skip="binary")),
    )
    stored = decode(b"".join(encode(docs, "blocks", b'[3,["pdf"]]')))
    assert (stored.docs, stored.tag, stored.blocks) == (docs, "blocks", b'[3,["pdf"]]')


def test_a_document_of_many_chunks_renders_the_same_bytes_and_crosses_pickle_whole() -> None:
    """Past a few thousand chunks the block is built in slices into one buffer: the same
    bytes, and pickled as an out-of-band buffer that loads back equal."""
    import pickle

    chunks = tuple(Chunk(text=f"element {i}", meta={"index": i}) for i in range(10_000))
    extracted = Extracted(kind="json", text="", chunks=chunks)
    big = render(DocOutcome(path="big.json", kind="json", size=1, sha256="h", extracted=extracted))
    few = render(
        DocOutcome(
            path="big.json",
            kind="json",
            size=1,
            sha256="h",
            extracted=Extracted(kind="json", text="", chunks=chunks[:10]),
        )
    )
    assert isinstance(big.block, bytearray) and isinstance(few.block, bytes)
    assert big.block.startswith(few.block) and big.block.count(b"\n") == 10_000
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(big, protocol=5, buffer_callback=buffers.append)
    # in band: the document record (about 1 KB) and the tallies, never the 10,000 chunk lines
    assert len(buffers) == 1 and len(data) < len(big.line) + 500  # the record, not the block
    assert pickle.loads(data, buffers=buffers) == big == pickle.loads(pickle.dumps(big))


def test_frozen_blocks_thaw_equal_with_children_and_more_chunks_than_a_slice() -> None:
    chunks = tuple(Chunk(text=f"block {i}", meta={"line": i}) for i in range(9000))
    doc = Extracted(kind="eml", text="", chunks=chunks, metadata={"subject": "s"})
    attached = Extracted(kind="text", text="", chunks=(Chunk(text="a note"),))
    children = (
        Child(
            suffix="#att/1/a.txt", kind="text", size=6, sha256="h", extractor="text",
            extracted=attached, context={"Subject": "s"}, key="h:text:d",
        ),
        Child(suffix="#att/2/b.bin", kind=None, size=4, sha256=None, skip="binary"),
    )  # fmt: skip
    for unit in (Unit(doc=doc, children=children), Unit(doc=Extracted(kind="text", text=""))):
        assert thaw(freeze(unit, 77)) == (unit, 77)
    # children framed where they were extracted (a worker) join their parent's frame
    framed = freeze(Unit(doc=doc, children=children[:1]), 77, (child_frame(children[1]),))
    assert thaw(framed) == (Unit(doc=doc, children=children), 77)
    for damaged in (b"not what freeze wrote", framed[:-3], framed[:4] + b"\0" + framed[5:]):
        with pytest.raises(ValueError):
            thaw(damaged)


@given(st.lists(st.tuples(TEXT, META), max_size=5), META)
def test_any_blocks_and_metadata_thaw_as_they_were_frozen(
    pairs: list[tuple[str, dict[str, Any]]], metadata: dict[str, Any]
) -> None:
    chunks = tuple(Chunk(text=text, meta=meta) for text, meta in pairs)
    unit = Unit(doc=Extracted(kind="json", text="", chunks=chunks, metadata=metadata))
    thawed, _ = thaw(freeze(unit, 1))
    assert thawed == unit
    assert [list(c.meta) for c in thawed.doc.chunks] == [list(m) for _, m in pairs]  # key order


def test_a_mails_own_chunks_name_it_and_a_long_subject_is_cut() -> None:
    metadata = {"subject": "s" * 5000, "from": "Ann <ann@example.com>", "message_id": "<m@x>"}
    chunks = (Chunk(text="body", meta={"part": "body"}),)
    extracted = Extracted(kind="eml", text="", chunks=chunks, metadata=metadata)
    doc = DocOutcome(path="m.eml", kind="eml", size=9, sha256="h", extracted=extracted)
    (line,) = render(doc).block.splitlines()
    mail = orjson.loads(line)["meta"]["mail"]
    assert mail == {
        "subject": "s" * 199 + "…", "from": "Ann <ann@example.com>", "date": "",
        "message_id": "<m@x>",
    }  # fmt: skip
