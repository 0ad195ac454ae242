"""What one walked file became, and the NDJSON records written for it.

Every path the walker meets ends in exactly one `FileOutcome` with at least one
`DocOutcome` (a skipped file gets a `skipped` document), so nothing vanishes.
Record builders are pure functions of the outcome: no clocks, no randomness, no
dict-order accidents, so the same input gives the same bytes.
"""

from __future__ import annotations

import copyreg
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pickle import PickleBuffer
from typing import TYPE_CHECKING, Any, cast

import orjson

from indexer._pickling import slotted_state
from indexer._types import Chunk, Extracted
from indexer.pipeline.output import shape
from indexer.pipeline.output.dedup.texthash import TEXT_HASH, text_hash
from indexer.pipeline.output.ocrcounts import COUNTS, private, taken
from indexer.reasons import explain, status_of

if TYPE_CHECKING:  # the walk and its config are the parent's: a worker never imports them
    from indexer.pipeline.output.segments import Whole
    from indexer.pipeline.output.units import Unit
    from indexer.pipeline.walk.walker import Entry


@dataclass(frozen=True, slots=True, kw_only=True)
class DocOutcome:
    """One document: a file, or a part of one (a message of an mbox, an attachment)."""

    path: str
    """Relative POSIX path; children append `#<n>` or `#att/<k>/<name>`."""
    kind: str | None
    size: int
    sha256: str | None
    """Hash of the document's own bytes; None when they were never read."""
    extractor: str | None = None
    extracted: Extracted | None = None
    """None for skipped documents."""
    skip: str | None = None
    """Why the document was passed over, else None."""
    seconds: float = 0.0
    """Extraction time; reported in run.json only, never in the output."""
    container: bool = False
    """An archive (an mbox) whose documents follow it; `ok` with no chunks of its own
    (`empty` when its file has no bytes at all)."""

    @property
    def status(self) -> str:
        """`skipped` (`failed` for a walk's `unreadable`), or the extraction's status (`ok`,
        `degraded`, `empty`, `failed`)."""
        if self.extracted is None:
            failed = self.skip is not None and status_of(self.skip, "skipped") == "failed"
            return "failed" if failed else "skipped"
        if self.container:
            return "ok" if self.size else "empty"
        return self.extracted.status

    @property
    def reason(self) -> str | None:
        """The skip reason or the failure reason, else None."""
        if self.extracted is None:
            return self.skip
        return self.extracted.error or self.extracted.skipped


@dataclass(frozen=True, slots=True, kw_only=True)
class FileOutcome:
    """Everything one walk entry produced, tagged with its position in the walk."""

    seq: int
    docs: tuple[Rendered, ...]
    extracted_now: int = 0
    """How many documents were extracted in this run."""
    reused: int = 0
    """How many documents were reused from an earlier run's extraction."""
    repacked: int = 0
    """How many of the `reused` were re-packed from their stored blocks."""
    in_archive: bool = False
    """A message split out of an mbox: counted as a document, not as a file."""
    cached: bool = False
    """Its output was reused (stored, or a copy's in this run), not extracted now."""
    bytes_read: int = 0
    whole: Whole | None = None
    """A segment of the previous generation taken whole, in place of its entries."""


def doc_id(path: str) -> str:
    """A document's stable id: derived from its relative path, never random."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@slotted_state
@dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    """A document's output, as bytes: rendered where it was extracted (a worker process)."""

    path: str
    doc_id: str
    block: bytes | bytearray
    """Its chunk records, one NDJSON line each, joined (a buffer for a large document)."""
    count: int
    """How many chunk records `block` holds."""
    digest: str
    """A hash of `block` (in the document record too)."""
    line: bytes
    """Its document record line (`documents-NNNNN.ndjson`)."""
    status: str
    kind: str | None
    pages: int = 0
    seconds: float = 0.0
    excluded: bool = False
    """Left out by the walk's include/exclude globs: counted apart from what was indexed."""
    ocr: tuple[int, ...] = ()
    """What OCR did for it (`ocrcounts`, `OcrTally.counts()`): stored with its output."""
    ocr_seconds: float = 0.0
    """The engine's CPU seconds on it where it was extracted; run.json only, never stored."""


_slotted_state = cast(Callable[[Rendered], tuple[Any, ...]], Rendered.__getstate__)


def _reduce_ex(self: Rendered, protocol: int) -> tuple[Any, ...]:
    """How `Rendered` pickles: its slots' state, where, from protocol 5 on, a large
    document's block (a bytearray) is a `PickleBuffer`, which the worker pool sends
    out of band, without a copy."""
    state = _slotted_state(self)
    if protocol >= 5 and isinstance(self.block, bytearray):
        state = (*state[:2], PickleBuffer(self.block), *state[3:])
    return _NEWOBJ, (Rendered,), state


_NEWOBJ = getattr(copyreg, "__newobj__")  # noqa: B009 (pickled as NEWOBJ; untyped in typeshed)
setattr(Rendered, "__reduce_ex__", _reduce_ex)  # noqa: B010 (as `slotted_state` does)


def render(doc: DocOutcome) -> Rendered:
    """Return `doc`'s output lines and the facts the run's tallies need."""
    did = doc_id(doc.path)
    block, count = chunk_block(doc, did)
    digest = hashlib.sha256(block).hexdigest()[:32]
    text_sha256 = _text_sha256(doc) if count else ""
    record = document_record(doc, did, digest, count, text_sha256)
    pages = 0 if doc.extracted is None else doc.extracted.metadata.get("pages", 0)
    ocr, ocr_seconds = ((), 0.0) if doc.extracted is None else taken(doc.extracted.metadata)
    return Rendered(
        path=doc.path,
        doc_id=did,
        block=block,
        count=count,
        digest=digest,
        line=orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE),
        status=doc.status,
        kind=doc.kind,
        pages=pages if isinstance(pages, int) else 0,
        seconds=doc.seconds,
        excluded=doc.skip == "excluded",
        ocr=ocr,
        ocr_seconds=ocr_seconds,
    )


def unit_docs(
    rel: str,
    kind: str,
    extractor: str,
    sha256: str | None,
    size: int,
    unit: Unit,
    seconds: float = 0.0,
) -> list[DocOutcome]:
    """The documents of one extraction unit: the file, then its children in order."""
    return [
        DocOutcome(
            path=rel, kind=kind, size=size, sha256=sha256,
            extractor=extractor, extracted=unit.doc, seconds=seconds,
        ),
        *(
            DocOutcome(
                path=rel + child.suffix, kind=child.kind, size=child.size,
                sha256=child.sha256, extractor=child.extractor, extracted=child.with_meta(),
                skip=child.skip,
            )
            for child in unit.children
        ),
    ]  # fmt: skip


def chunk_block(doc: DocOutcome, did: str) -> tuple[bytes | bytearray, int]:
    """Return `doc`'s chunk records, one NDJSON line each in chunk order, joined; and
    how many there are. None for a document with no text of its own: `failed`,
    `skipped` or `empty` (their marker chunks are `extract()`'s, not text to embed), and
    an archive's own document (the list of its members, each a document of its own).

    Each line is the bytes `orjson.dumps` gives for the record
    `{"id", "doc_id", "path", "kind", "chunk", "text", "meta", "degraded", "sha256"}`:
    the fields a document's chunks share are encoded once into a line template, so a
    chunk costs two `dumps` (its text, its meta) and a `%`, not a nine-key dict and
    its dump.
    """
    if doc.extracted is None or doc.status not in _WRITTEN or doc.kind == "archive":
        return b"", 0
    chunks = doc.extracted.chunks
    line = _chunk_line(doc, did, doc.extracted.degraded)
    dump = orjson.dumps
    mail = doc.extracted.metadata if doc.kind in _MAIL_KINDS else None

    def meta(i: int, chunk: Chunk) -> bytes:
        shaped = shape.chunk_meta(chunk.meta, mail)
        if "blocks" not in chunk.meta:  # a blocks run: each chunk is its own block
            shaped["blocks"] = [i, i]
        return dump(shaped)

    if len(chunks) <= _SLICE:
        block = b"".join([line % (i, i, dump(c.text), meta(i, c)) for i, c in enumerate(chunks)])
        return block, len(chunks)
    # Many chunks: a slice of lines at a time into one buffer, which is the block (a
    # list of every line, then their join, held the document's output twice).
    grown = bytearray()
    for at in range(0, len(chunks), _SLICE):
        part = enumerate(chunks[at : at + _SLICE], at)
        grown += b"".join([line % (i, i, dump(c.text), meta(i, c)) for i, c in part])
    return grown, len(chunks)


_WRITTEN = ("ok", "degraded")
"""The statuses whose chunks a run writes."""
_SLICE = 4096
"""Chunks rendered per slice of a large document's block."""
_MAIL_KINDS = ("eml", "msg", "tnef")
"""Kinds whose documents are messages: their chunks' `meta.mail` is their own headers."""


def _chunk_line(doc: DocOutcome, did: str, degraded: bool) -> bytes:
    """The `%`-template of `doc`'s chunk lines: `%d` the chunk's number (twice), then
    `%b` its encoded text and meta; every other field is encoded already."""
    return b"".join(
        (
            b'{"id":', _literal(did)[:-1], b':%d"',  # "<doc id>:<chunk>"
            b',"doc_id":', _literal(did),
            b',"path":', _literal(doc.path),
            b',"kind":', _literal(shape.text(doc.kind)),
            b',"chunk":%d,"text":%b,"meta":%b',
            b',"degraded":', _literal(degraded),
            b',"sha256":', _literal(shape.text(doc.sha256)),
            b"}\n",
        )
    )  # fmt: skip


def _literal(value: object) -> bytes:
    """`value` as JSON, escaped for a `%`-template."""
    return orjson.dumps(value).replace(b"%", b"%%")


def document_record(
    doc: DocOutcome, did: str, digest: str, chunks: int, text_sha256: str = ""
) -> dict[str, Any]:
    """Return the document record of `doc`; `digest` hashes its `chunks` chunk lines,
    `text_sha256` their normalised words (`dedup.texthash`). Every record has every
    key, none null (`shape`); `duplicate_of` is decided later, in walk order
    (`dedup.exact`)."""
    extracted = doc.extracted
    metadata = {} if extracted is None else extracted.metadata
    if TEXT_HASH in metadata or COUNTS in metadata:
        metadata = {k: v for k, v in metadata.items() if not private(k)}
    status = doc.status
    reason, reason_text = explain(status, doc.reason, metadata)
    return {
        "path": doc.path,
        "doc_id": did,
        "kind": shape.text(doc.kind),
        "bytes": doc.size,
        "sha256": shape.text(doc.sha256),
        "text_sha256": text_sha256,
        "status": status,
        "reason": shape.text(reason),
        "reason_text": shape.text(reason_text),
        "extractor": shape.text(doc.extractor),
        "chunks": chunks,
        "digest": digest,
        "duplicate_of": "",
        "metadata": _own_cluster(shape.metadata(metadata), did, chunks),
    }


_DETAILED = frozenset(("too_large", "binary", "unreadable", "not_regular_file"))
"""Walk reasons whose detail joins `reason_text` (the size and the limit, the extension
or the NUL found, the error, the file type). Not the symlink ones: their detail is a
path outside SOURCE, which would make the output depend on where SOURCE lies."""


def _text_sha256(doc: DocOutcome) -> str:
    """The text hash of `doc`'s blocks: the one packing noted, else (blocks written as
    they are) of its chunks."""
    assert doc.extracted is not None
    noted = doc.extracted.metadata.get(TEXT_HASH)
    return noted if isinstance(noted, str) else text_hash(doc.extracted.chunks)


def _own_cluster(metadata: dict[str, Any], did: str, chunks: int) -> dict[str, Any]:
    """`metadata` with a document with chunks the representative of a near-duplicate
    cluster of its own: what it stays unless an earlier one is like it (`dedup.near`)."""
    if chunks:
        metadata["near_duplicate"] = {"cluster": did, "representative": True}
    return metadata


def skipped(seq: int, entry: Entry) -> FileOutcome:
    """The outcome of an entry the walk passed over: one `skipped` document (`failed`
    when it could not be read), its reason's detail in `reason_text` where it has one."""
    skip = entry.skip
    if skip in _DETAILED and entry.detail:
        skip = f"{skip}: {entry.detail}"
    doc = DocOutcome(path=entry.rel, kind=None, size=entry.size, sha256=None, skip=skip)
    return FileOutcome(seq=seq, docs=(render(doc),))


def container_outcome(seq: int, entry: Entry) -> FileOutcome:
    """The outcome of a mailbox file itself (mbox, pst): `ok`, no chunks (its messages
    follow it); `empty` for a file of no bytes, which has no messages."""
    kind = entry.holds
    doc = DocOutcome(
        path=entry.rel, kind=kind, size=entry.size, sha256=None, container=True,
        extracted=Extracted(kind=kind, text="", metadata={"container": kind}),
    )  # fmt: skip
    return FileOutcome(seq=seq, docs=(render(doc),))
