"""Real texts for the tests that compare a fast formula with the one it replaced: the
text-like files of ../shared/corpus read as UTF-8 (undecodable bytes replaced), cut
into pieces of the size of a chunk."""

from __future__ import annotations

import functools

from sharedfiles import CORPUS, corpus_rows

_FORMATS = frozenset(("text", "eml", "html", "csv", "json", "ndjson", "tsv", "xhtml"))
PIECE = 1500
"""Characters a piece: about a packed chunk's."""


@functools.cache
def texts() -> tuple[str, ...]:
    """The pieces, in manifest order; empty without ../shared/corpus."""
    found: list[str] = []
    for row in corpus_rows():
        if row["format"] in _FORMATS:
            text = (CORPUS / row["relpath"]).read_bytes().decode("utf-8", "replace")
            found += [text[at : at + PIECE] for at in range(0, min(len(text), 40 * PIECE), PIECE)]
    return tuple(found)
