"""`json`: one chunk per top-level array element or object entry, or per JSONL record.

Values are pretty-printed by orjson with a 2-space indent, keys in source order
and non-ASCII kept as is. Numbers a double or a 64-bit integer cannot hold
exactly (`123456789012345678901234`, `1E400`) keep their source literal instead
of being rounded or rejected (`values`). Input that is not JSON degrades to one
chunk of the trimmed text; a bad JSONL record degrades on its own (`lines`).
An array, object or JSON Lines file over `large.GROUP_ABOVE` bytes gives blocks of
several elements, entries or records.
"""

from __future__ import annotations

from indexer._spec import extension_of
from indexer._text import decode, gc_paused, normalize_newlines
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.json import large
from indexer.formats.json.elements import array_in_groups, degraded, document
from indexer.formats.json.large_lines import lines_in_blocks
from indexer.formats.json.lines import parse_lines, records
from indexer.formats.json.values import parse, render

__all__ = ["VERSION", "chunk", "extract", "parse", "render"]

VERSION = VERSIONS["json"]  # bumped in indexer/formats/__init__.py

_RECORD_EXTENSIONS = frozenset({"jsonl", "ndjson"})


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Decode `data` and chunk it; `.jsonl`/`.ndjson` paths are read record by record.

    Returns an `Extracted` of kind `json`, `degraded` when some or all of the
    input did not parse. Never raises for any input.
    """
    with gc_paused():
        if extension_of(path) in _RECORD_EXTENSIONS:
            lines = lines_in_blocks(data, options.max_chunk_chars)
            return lines or _records_or_document(decode(data))
        read = large.in_blocks(data, options.max_chunk_chars) or array_in_groups(data)
        if read is not None:
            return read
        return _document_or_records(decode(data), data, options.max_chunk_chars)


def chunk(text: str, options: Options) -> Extracted:
    """Chunk already-decoded JSON text: a document, else newline-delimited records.

    Returns the document's chunks (meta `{"index": i}` or `{"key": k}`), or, when
    the whole does not parse but it has 2+ non-blank lines that each do, one
    chunk per record (meta `{"line": n}`); otherwise one degraded text chunk.
    """
    text = normalize_newlines(text)
    with gc_paused():
        if len(text) > large.GROUP_ABOVE:  # not encoded otherwise
            data = text.encode(errors="surrogatepass")
            read = large.in_blocks(data, options.max_chunk_chars)
            if read is not None:
                return read
        return _document_or_records(text)


def _document_or_records(
    text: str, data: bytes | None = None, max_chars: int = large.BLOCK_CHARS
) -> Extracted:
    try:
        return document(*parse(text, data))
    except ValueError:
        pass
    # Large JSON Lines named `.json`: every line a record, or the whole text degraded.
    # (Two records at least: one good line alone would have parsed as the document.)
    large_lines = None if data is None else lines_in_blocks(data, max_chars)
    if large_lines is not None:
        return degraded(text) if large_lines.degraded else large_lines
    lines = parse_lines(text, stop_at_bad=True)
    if len(lines.rendered) >= 2 and lines.rendered[-1] is not None:  # no bad line
        return records(lines)
    return degraded(text)


def _records_or_document(text: str) -> Extracted:
    """Chunk `.jsonl` text per line, unless it is one (pretty-printed) document."""
    lines = parse_lines(text, stop_at_bad=False)
    if None not in lines.rendered:
        return records(lines)
    try:
        return document(*parse(text))
    except ValueError:
        pass
    if lines.rendered.count(None) < len(lines.rendered):
        return records(lines)
    return degraded(text)
