"""`rtf`: Rich Text Format as plain text, one chunk per paragraph, `{"para": i}` meta.

`rtf_to_text` is the reader for other callers (RTF mail bodies). Text comes
from `rtf.scan`, which jumps over pictures and embedded objects rather than
reading them. Document properties (`\\info`: title, author, created, modified)
go into `metadata`. A document without text (pictures or objects only) fails as
`no text`. A file named `.rtf` that is not RTF is read as plain text
(`degraded`) when it is text, and fails as `corrupt: not RTF` when it is not.
"""

from __future__ import annotations

import re

from indexer._text import decode, split_paragraphs
from indexer._types import Extracted, Options, make_chunk
from indexer.formats import VERSIONS
from indexer.formats.office.container import failed
from indexer.formats.office.sniff import sniff
from indexer.formats.rtf.scan import read_rtf

__all__ = ["KIND", "VERSION", "extract", "rtf_to_text"]

KIND = "rtf"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
_HEADER = b"{\\rtf"
_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+\n")
_BLANK_RUNS = re.compile(r"\n{3,}")


def rtf_to_text(rtf: str | bytes) -> str:
    """The text of an RTF document: paragraphs separated by blank lines, trimmed.

    Bytes are read as RTF's 8-bit source (`\\'hh` escapes and the declared
    codepages give the characters). Never raises on malformed input.
    """
    source = rtf.decode("latin-1") if isinstance(rtf, bytes) else rtf
    return _tidy(read_rtf(source).text)


def _tidy(text: str) -> str:
    text = _TRAILING_SPACE.sub("\n", text.replace("\r", ""))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract an RTF document's text by paragraph; never raises for bad input."""
    if data.lstrip()[:5] != _HEADER:
        return _not_rtf(data)
    read = read_rtf(data.decode("latin-1"))
    text = _tidy(read.text)
    chunks = tuple(make_chunk(para, {"para": i}) for i, para in enumerate(split_paragraphs(text)))
    if not chunks:  # pictures or embedded objects only, or a document cut short
        return failed(KIND, "no text", dict(read.properties))
    return Extracted(kind=KIND, text=text, chunks=chunks, metadata=dict(read.properties))


def _not_rtf(data: bytes) -> Extracted:
    if sniff(data) not in ("text", "html", "xml"):
        return failed(KIND, "corrupt: not RTF (no {\\rtf header)")
    text = decode(data).strip()
    chunks = tuple(make_chunk(para, {"para": i}) for i, para in enumerate(split_paragraphs(text)))
    return Extracted(
        kind=KIND, text=text, chunks=chunks, degraded=True, metadata={"format": "text"}
    )
