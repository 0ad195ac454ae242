"""`odt`: OpenDocument text (`.odt .ott`) as Markdown blocks with heading paths, like `docx`.

`content.xml`'s body is read in order (`office.odf`): `text:h` headings become Markdown
headings and each chunk's `meta` is `{"headings": [...]}`; lists become list blocks,
tables GFM tables. Footnotes and endnotes follow the body (`part` `notes`, cited as
`[^n]`), then comments (`part` `comments`). The text OCR reads in a picture
(`office.picture_text`, under `ocr_mode`) follows the paragraph that shows it, and
`metadata["ocr"]` lists the pictures read. Title, author and dates go in `metadata`.
An encrypted document fails with `encrypted`.
"""

from __future__ import annotations

from functools import partial

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc
from indexer.formats.office.entry import run
from indexer.formats.office.odf import OdfWalker, open_body, properties
from indexer.formats.office.picture_text import PictureText

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["odt"]  # bumped in indexer/formats/__init__.py

_ACCEPTS = ("odt",)


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract an OpenDocument text; never raises for bad input (see `entry.run`)."""
    return run("odt", _ACCEPTS, partial(read, path=path), data, path, options)


def read(data: bytes, options: Options, path: str = "") -> Doc:
    """Read an OpenDocument text package into blocks, the text in its pictures by OCR
    where they sit; raises `ContainerError`."""
    package, body = open_body(data, "text")
    pictures = PictureText(package, options, path)
    walker = OdfWalker(picture=pictures.blocks)
    blocks = walker.walk(body)
    notes = [Block(f"[^{n}]: {text}", "para", ()) for n, text in enumerate(walker.notes, 1) if text]
    comments = [Block(text, "para", ()) for text in walker.comments]
    doc = Doc(
        sections=[(None, blocks), ("notes", notes), ("comments", comments)],
        metadata=properties(package),
    )
    pictures.place(doc)
    return doc
