"""Reading an indexed OUT for `indexer search` and the MCP tools: its `fts` index
brought up to date, and a document's chunks from the committed output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.sinks.committed import Doc, chunks_of, documents


def up_to_date(out: Path) -> str:
    """Bring OUT's index up to its committed output, under OUT's lock (what a run with
    `sinks = ["fts"]` does after each commit); return a warning, "" when none.

    While a run holds the lock, the index is searched as it is (the warning says so).
    Raises FileNotFoundError when OUT holds no committed output, and `LockHeld` when a
    run holds it and there is no index yet."""
    from indexer.errors import LockHeld
    from indexer.pipeline.run.lock import hold
    from indexer.sinks.fts import index_path
    from indexer.sinks.search import refresh, stale

    try:
        if not stale(out):
            return ""
        with hold(out):
            refresh(out)
    except LockHeld:
        if not index_path(out).is_file():
            raise
        return f"a run holds {out}: searching its index as it is"
    return ""


def document_chunks(out: Path, *, doc_id: str = "", path: str = "") -> dict[str, Any]:
    """The chunk records of the document of OUT's committed output named by `doc_id`
    (or else `path`): `{"doc_id", "path", "kind", "chunks": [...]}`, in chunk order.

    Raises ValueError when neither is given, LookupError when no document has it,
    FileNotFoundError when OUT holds no committed output."""
    if not doc_id and not path:
        raise ValueError("name the document: doc_id or path")
    generation = (out / ".current").resolve()
    if not (generation / "manifest.json").is_file():
        raise FileNotFoundError(f"{out} holds no committed output")
    found = _find(generation, doc_id, path)
    if found is None:
        raise LookupError(f"{out} has no document {doc_id or path!r}")
    chunks = sorted(chunks_of(generation, [found]), key=lambda c: int(c["chunk"]))
    return {"doc_id": found.doc_id, "path": found.path, "kind": found.kind, "chunks": chunks}


def _find(generation: Path, doc_id: str, path: str) -> Doc | None:
    for doc in documents(generation):
        if (doc.doc_id == doc_id) if doc_id else (doc.path == path):
            return doc
    return None
