"""`text`: the fallback for every unclaimed extension; paragraphs split on blank lines."""

from __future__ import annotations

from indexer._text import decode, normalize_newlines, split_paragraphs
from indexer._types import Extracted, Options, make_chunk
from indexer.formats import VERSIONS

VERSION = VERSIONS["text"]  # bumped in indexer/formats/__init__.py


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Decode `data` and chunk it by paragraph; `meta` is `{"para": i}`."""
    return chunk(decode(data), options)


def chunk(text: str, options: Options) -> Extracted:
    """Chunk already-decoded text by paragraph (blank-line split, trimmed)."""
    text = normalize_newlines(text)
    chunks = tuple(make_chunk(para, {"para": i}) for i, para in enumerate(split_paragraphs(text)))
    return Extracted(kind="text", text=text, chunks=chunks)
