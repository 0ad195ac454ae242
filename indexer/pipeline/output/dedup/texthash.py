"""The normalised text hash of a document: the same words, in the same order, whatever
the format they came in, give the same hash.

Each block's text (a chunk's, without the context prefix packing gave it, when the
blocks are gone) is NFKC-normalised and case-folded, and only its words (runs of
letters and digits, `\\w+`) are kept, joined by one space: re-wrapped lines, markup
punctuation (Markdown headings, list bullets) and spacing do not change it. Computed
where a document is packed (a worker, `extract.tasks`), so the pass only compares
hashes.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from indexer._types import Chunk

_WORD = re.compile(r"\w+")
TEXT_HASH = "\x00text_sha256"
"""Where packing leaves the text hash of a document's blocks in its metadata, for its
record's `text_sha256` (`records.render` takes it out)."""


def words(text: str) -> list[str]:
    """The words of `text`, normalised (NFKC, case-folded)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


_NOT_WORD = bytes(c if chr(c).isalnum() or c == ord("_") else 32 for c in range(128)) + b" " * 128
"""For ASCII text: a word byte (what `\\w` matches) kept, any other made a space."""


def encoded_words(text: str) -> list[bytes]:
    """The UTF-8 of `words(text)`; for ASCII text (NFKC and case-folding change nothing
    but the case there) without a pattern: several times faster."""
    if text.isascii():
        return text.encode().lower().translate(_NOT_WORD).split()
    return [w.encode() for w in words(text)]


def text_hash(chunks: Iterable[Chunk]) -> str:
    """The sha256 (hex) of the chunks' normalised words; `""` when they hold none."""
    digest, any_word = hashlib.sha256(), False
    for chunk in chunks:
        found = words(_own_text(chunk))
        if found:
            digest.update((" " if any_word else "").encode() + " ".join(found).encode())
            any_word = True
    return digest.hexdigest() if any_word else ""


def _own_text(chunk: Chunk) -> str:
    return own_text(chunk.text, chunk.meta.get("context"))


def own_text(text: str, context: object) -> str:
    """A chunk's text without the context prefix packing put before it (`chunk_prefix`)."""
    if isinstance(context, str) and context and text.startswith(context):
        return text[len(context) :]
    return text
