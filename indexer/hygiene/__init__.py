"""Language, quality and personal data: what a corpus build filters on, added to each
document's chunks and metadata as the pipeline renders them (`annotate`).

Pure functions of the chunks and the `[hygiene]` settings (and, to pseudonymise, the
key in the environment), so the same input gives the same bytes in any worker.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from indexer._types import Chunk, Extracted, Hygiene
from indexer.hygiene import language, quality
from indexer.hygiene.redact import Scrubber, key_fingerprint, scrubber

__all__ = ["VERSION", "annotate", "tag"]

VERSION = 1
"""The annotations' version: bumped when what they write for the same text changes."""

_ANNOTATED = ("ok", "degraded")
"""The statuses whose documents have text to annotate (the others' chunks are not written)."""


def annotate(doc: Extracted, settings: Hygiene, kind: str | None = None) -> Extracted:
    """Return `doc` with `metadata.language`, `metadata.quality` and each chunk's
    `meta.language` and `meta.pii` as `settings` ask (with personal data replaced in
    its chunk texts and mail headers under `redact` and `pseudonymise`); `doc` itself
    when it has no text written (`failed`, `skipped`, `empty`) or every signal is off.
    Raises `KeyError` naming the variable when `pseudonymise` finds no key."""
    off = not (settings.language or settings.quality or settings.pii != "off")
    if off or doc.status not in _ANNOTATED or kind == "archive":
        return doc
    scrub = scrubber(settings)
    metadata = dict(doc.metadata)
    chunks = doc.chunks
    if scrub is not None and scrub.replaces:
        metadata = scrub.metadata(metadata)
    if scrub is not None:
        chunks = tuple(_with_pii(c, scrub) for c in chunks)
    found = None  # the chunks' letters, when language counted them
    if settings.language:
        guesses = language.guesses([c.text for c in chunks])
        chunks = tuple(_with(c, language=g.code) for c, g in zip(chunks, guesses, strict=True))
        metadata["language"] = language.of_document(guesses)
        found = sum(g.letters for g in guesses)
    if settings.quality:
        texts = [c.text for c in chunks]
        metadata["quality"] = quality.score(texts, metadata.get("ocr"), found)
    return replace(doc, chunks=chunks, metadata=metadata)


def tag(settings: Hygiene) -> str:
    """What annotated records depend on besides their chunks, for the cache keys: the
    settings, this module's `VERSION`, the language model's version and the
    pseudonymisation key's fingerprint (never the key)."""
    model = _model_version() if settings.language else ""
    key = key_fingerprint(settings)
    return (
        f"hygiene.{VERSION}:{settings.language:d}{settings.quality:d}:{settings.pii}:{model}:{key}"
    )


def _model_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"py3langid-{version('py3langid')}"
    except PackageNotFoundError:  # pragma: no cover (a dependency: always installed)
        return "py3langid"


def _with_pii(chunk: Chunk, scrub: Scrubber) -> Chunk:
    text, spans = scrub.text(chunk.text)
    meta: dict[str, Any] = {**chunk.meta, "pii": spans}
    if scrub.replaces and isinstance(chunk.meta.get("mail"), dict):
        meta["mail"] = scrub.metadata(chunk.meta["mail"])
    return Chunk(text=text, meta=meta)


def _with(chunk: Chunk, **meta: Any) -> Chunk:
    return Chunk(text=chunk.text, meta={**chunk.meta, **meta})
