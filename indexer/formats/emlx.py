"""`emlx`: an Apple Mail message file, read as the `eml` extractor reads the message.

An `.emlx` is a line holding the message's length in bytes, the RFC 822 message, and
an XML property list of Apple Mail's flags. The message is handed to `eml` whole:
the same chunks, metadata and (in a run) attachments `x.emlx#att/<k>/<name>` as the
same message saved as `.eml`, kind `eml`. The plist is not text of the message and
is left out. A length line that is missing or larger than the file reads what is
there, `degraded` with a note.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from indexer._spec import Held, Nesting
from indexer._text import decode, limit_chunks
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats import eml as _eml
from indexer.formats.eml.children import attachments

__all__ = ["VERSION", "children", "chunk", "extract", "message_of"]

VERSION = VERSIONS["emlx"]  # bumped in indexer/formats/__init__.py
_MAX_DIGITS = 12


def message_of(data: bytes) -> tuple[bytes, str | None]:
    """The RFC 822 message inside the `.emlx` bytes `data`, and what was wrong with the
    framing (None when the length line is there and true)."""
    line, newline, rest = data.partition(b"\n")
    count = line.strip()
    if not newline or not count.isdigit() or len(count) > _MAX_DIGITS:
        return data, "no length line: the whole file read as the message"
    size = int(count)
    if size > len(rest):
        return rest, f"the length line says {size} bytes, {len(rest)} follow"
    return rest[:size], None


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract the message of an `.emlx` file (kind `eml`); never raises."""
    if not data.strip():
        return Extracted(kind="eml", text="")
    message, problem = message_of(data)
    doc = _eml.extract(message, path, options)
    if not doc.chunks and (raw := decode(message).strip()):
        # what a run gives the same message as .eml (its raw text), not the plist's text
        chunks = limit_chunks((Chunk(text=raw),), options.max_chunk_chars)
        doc = replace(doc, chunks=chunks, degraded=True)
    if problem is None:
        return doc
    notes = [*doc.metadata.get("notes", ()), problem]
    return replace(doc, degraded=True, metadata={**doc.metadata, "notes": notes})


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield the message's attachments (`ChildrenFn`); return its own document."""
    doc = extract(data, path, options)
    yield from attachments(message_of(data)[0], doc)
    return doc


def chunk(text: str, options: Options) -> Extracted:
    """Chunk a file given as text (encoded as UTF-8 and read as `extract` reads bytes)."""
    return extract(text.encode("utf-8", "replace"), "", options)
