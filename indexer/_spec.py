"""What an extractor declares about itself (`ExtractorSpec`), and dispatch by extension.

Below the registry and the formats alike, so the built-ins can declare their specs
without importing the registry that loads them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from indexer._pickling import slotted_state
from indexer._types import Extracted, Options

__all__ = ["ChunkerFn", "ExtractorFn", "ExtractorSpec", "extension_of"]

ExtractorFn = Callable[[bytes, str, Options], Extracted]
ChunkerFn = Callable[[str, Options], Extracted]


# Slot-wise pickling: a PDF's job carries its spec through the pipe on every call.
@slotted_state
@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractorSpec:
    """One registered extractor and what it declares about itself."""

    name: str
    """Unique name, e.g. `pdf`; also the cache key's extractor part."""
    kind: str
    """The `kind` tag its documents carry."""
    extensions: tuple[str, ...]
    """Lower-case extensions without the dot. Empty for the fallback (`text`)."""
    version: str
    """Bumped whenever its output changes; incremental runs re-extract on change."""
    extract: ExtractorFn
    """The extractor itself."""
    chunker: ChunkerFn | None = None
    """Text-to-chunks form, for text-based formats; None for binary ones."""
    isolated: bool = False
    """Run each document in the isolated process pool (timeout, memory cap)."""
    builtin: bool = False
    """True for the extractors shipped with indexer."""
    fallback: bool = False
    """Used for every path no other extractor claims (exactly one may be)."""
    options_used: tuple[str, ...] | None = None
    """The `Options` fields its output depends on; None means all of them. Incremental
    runs re-extract a document only when one of these (or `version`) changes."""


def extension_of(path: str) -> str:
    """Return the lower-cased ASCII extension of `path`'s last component, or ''.

    A dotfile with no other dot (`.json`), a name with no dot and a trailing dot
    all have no extension; a non-ASCII extension matches nothing.
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or not ext.isascii():
        return ""
    return ext.lower()
