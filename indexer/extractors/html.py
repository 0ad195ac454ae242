"""`html`: placeholder until the real extractor lands (being written now)."""

from __future__ import annotations

from indexer._types import Extracted, Options

VERSION = "0"


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Temporary: plain-text chunking."""
    raise NotImplementedError("html extractor not written yet")


def chunk(text_: str, options: Options) -> Extracted:
    """Temporary: plain-text chunking."""
    raise NotImplementedError("html chunker not written yet")
