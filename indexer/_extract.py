"""The one boundary where exceptions become data: `extract()` never raises."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from indexer._text import decode, limit_chunks
from indexer._types import DEFAULT_OPTIONS, Chunk, Extracted, Options
from indexer.registry import (
    ExtractorSpec,
    Held,
    Nesting,
    Registry,
    default_registry,
    dispatching,
)

log = logging.getLogger(__name__)

EXCEPTION_PREFIX = "exception in"
"""How `Extracted.error` starts when an extractor raised instead of returning."""


def extract(
    path: str | os.PathLike[str],
    data: bytes | None = None,
    options: Options | None = None,
    *,
    registry: Registry | None = None,
) -> Extracted:
    """Extract `data`, named `path`, with the extractor its extension selects; without
    `data`, the file at `path` is read (an `OSError` reading it is raised: there is no
    document yet to fail).

    Returns an `Extracted` whose chunks keep the four invariants: never raises;
    empty or whitespace-only input gives no chunks; other input gives at least one
    non-blank chunk, none longer than `options.max_chunk_chars`; equal input gives
    equal output.
    """
    name = os.fspath(path)
    if data is None:
        with open(name, "rb") as f:
            data = f.read()
    registry = registry or default_registry()
    with dispatching(registry):
        return run_extractor(registry.for_path(name), name, data, options or DEFAULT_OPTIONS)


def run_extractor(spec: ExtractorSpec, path: str, data: bytes, options: Options) -> Extracted:
    """Run one extractor on one document, turning any exception into a failed result."""
    if not data or data.isspace():  # as `not data.strip()`, without copying the input
        return Extracted(kind=spec.kind, text="")
    return _guarded(spec, "extractor", lambda: spec.extract(data, path, options), data, options)


def run_container(
    spec: ExtractorSpec,
    path: str,
    data: bytes,
    options: Options,
    nesting: Nesting,
    take: Callable[[Held], object],
) -> Extracted:
    """Open the container `data` with `spec.children`, handing each child to `take` as it
    is read; return the container's own document, with `run_extractor`'s guarantees
    (an exception in the reader makes it failed; the children taken before stay)."""
    children = spec.children
    assert children is not None
    if not data or data.isspace():
        return Extracted(kind=spec.kind, text="")

    def call() -> Extracted:
        reader = children(data, path, options, nesting)
        while True:
            try:
                held = next(reader)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            take(held)

    return _guarded(spec, "extractor", call, data, options)


def _guarded(
    spec: ExtractorSpec,
    role: str,
    call: Callable[[], Extracted],
    data: bytes,
    options: Options,
) -> Extracted:
    """Run `call`; turn any exception (but Ctrl-C) into a failed result, enforce limits."""
    try:
        result = call()
        if problem := _misshapen(result):
            raise TypeError(f"returned {problem}")
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        reason = _reason(spec, role, exc)
        log.debug("%s %s: %s", spec.name, role, reason, exc_info=True)
        return failed(spec, data, reason, options)
    return _enforce(result, spec, data, options)


_FIELDS = (("kind", str), ("text", str), ("metadata", dict), ("degraded", bool))


def _misshapen(result: object) -> str | None:
    """What is of the wrong type in an extractor's `result` (`dict, not Extracted`,
    `Extracted whose chunks[0] is str, not Chunk`), or None. A plugin's mistake then
    fails its document with this, not with an error from far downstream."""
    if not isinstance(result, Extracted):
        return f"{type(result).__name__}, not Extracted"
    for name, kind in _FIELDS:
        if not isinstance(value := getattr(result, name), kind):
            return f"Extracted whose {name} is {type(value).__name__}, not {kind.__name__}"
    if not isinstance(result.chunks, tuple | list):
        return f"Extracted whose chunks is {type(result.chunks).__name__}, not tuple"
    for i, chunk in enumerate(result.chunks):
        if not isinstance(chunk, Chunk):
            return f"Extracted whose chunks[{i}] is {type(chunk).__name__}, not Chunk"
        if not isinstance(chunk.text, str) or not isinstance(chunk.meta, dict):
            bad, want = ("text", "str") if not isinstance(chunk.text, str) else ("meta", "dict")
            found = type(getattr(chunk, bad)).__name__
            return f"Extracted whose chunks[{i}].{bad} is {found}, not {want}"
    return None


def _enforce(result: Extracted, spec: ExtractorSpec, data: bytes, options: Options) -> Extracted:
    chunks = limit_chunks(result.chunks, options.max_chunk_chars)
    if chunks:
        if chunks is result.chunks:
            return result
        return replace(result, chunks=chunks)
    raw = _raw_chunks(spec, data, options)
    if not raw:
        return replace(result, chunks=())
    return replace(result, chunks=raw, degraded=True)


def failed(spec: ExtractorSpec, data: bytes, reason: str, options: Options) -> Extracted:
    """Return the failed result for `data`: its raw text when it is text, else a marker chunk."""
    chunks = _raw_chunks(spec, data, options) if spec.chunker is not None else ()
    if not chunks:
        return failure(spec.kind, reason)
    return Extracted(kind=spec.kind, text="", chunks=chunks, degraded=True, error=reason)


def failure(kind: str, reason: str, metadata: dict[str, Any] | None = None) -> Extracted:
    """The failed result of a `kind` document: `degraded`, `error` the reason (a code
    from `indexer.reasons`, then its detail), one marker chunk that extract() callers
    see and runs leave out of the shards."""
    chunk = Chunk(text=failure_text(kind, reason))
    return Extracted(
        kind=kind, text="", chunks=(chunk,), degraded=True, error=reason, metadata=metadata or {}
    )


def failure_text(kind: str, reason: str) -> str:
    """The marker chunk of a document that could not be extracted."""
    return f"[{kind} extraction failed: {reason}]"


def _raw_chunks(spec: ExtractorSpec, data: bytes, options: Options) -> tuple[Chunk, ...]:
    if spec.chunker is None:
        return ()
    text = decode(data).strip()
    return limit_chunks((Chunk(text=text),), options.max_chunk_chars) if text else ()


def run_chunker(spec: ExtractorSpec, text: str, options: Options) -> Extracted:
    """Run `spec`'s text-to-chunks form on `text` with the same guarantees as `extract()`.

    Raises `ValueError` when `spec` has no chunker (binary formats such as pdf).
    """
    if spec.chunker is None:
        raise ValueError(f"extractor {spec.name!r} has no text chunker")
    data = text.encode("utf-8", errors="surrogatepass")
    if not text.strip():
        return Extracted(kind=spec.kind, text="")
    chunker = spec.chunker
    return _guarded(spec, "chunker", lambda: chunker(text, options), data, options)


def _reason(spec: ExtractorSpec, role: str, exc: BaseException) -> str:
    if isinstance(exc, MemoryError):  # the isolated pool's memory cap, or a real shortage
        return "out_of_memory"
    return f"{EXCEPTION_PREFIX} {spec.name} {role}: {type(exc).__name__}: {exc}"[:500]


def raised(result: Extracted) -> bool:
    """True when `result` records an exception escaping an extractor or chunker."""
    return result.error is not None and result.error.startswith(EXCEPTION_PREFIX)
