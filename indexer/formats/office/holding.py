"""Office and OpenDocument files as containers: their embedded objects become documents.

Each function here is a `ChildrenFn` (`indexer._spec`) for one extractor: it extracts
the file as its `extract` does, then yields the objects embedded in the package
(`embedded.objects`; a Word 97 or Excel 97 file's object storages, `ole_objects`; a
PowerPoint 97 file's object records, `ppt_objects`), each a child document
`<file>#<part>` read by its own extractor, and returns the file's own document. A file
that holds no text of its own but embedded objects is not `empty`: its document is one
chunk naming them (`meta.part` `embedded`), the text being theirs. A file its extractor
failed on (encrypted, corrupt, refused) or passed over (a Word 6 file) is not opened
for objects; one skipped for its pictures with OCR off still is.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Generator, Iterator

from indexer._spec import ExtractorFn, Held, Nesting
from indexer._types import Chunk, Extracted, Options
from indexer.formats.office.container import ContainerError, open_zip
from indexer.formats.office.embedded import objects
from indexer.formats.office.ole_objects import ole_objects
from indexer.formats.office.ppt_objects import ppt_objects
from indexer.formats.office.sniff import OLE_MAGIC

__all__ = ["doc", "docx", "odp", "odt", "ppt", "pptx", "spreadsheet"]

_Children = Generator[Held, None, Extracted]


def _holding(
    extract: ExtractorFn, data: bytes, path: str, options: Options, nesting: Nesting,
    legacy: Callable[[bytes, Nesting], Iterator[Held]] = ole_objects,
) -> _Children:  # fmt: skip
    """Yield the objects embedded in `data` (`legacy` finds those of a compound file);
    return its own document as `extract` reads it."""
    own = extract(data, path, options)
    if own.status == "failed" or own.skipped is not None:  # not read: nor are its objects
        return own
    if data.startswith(OLE_MAGIC):  # a Word, Excel or PowerPoint 97 file
        found: Iterator[Held] = legacy(data, nesting)
    else:
        try:
            found = objects(open_zip(data), nesting)
        except ContainerError:  # a Word 2003 XML file, a mislabelled one: no parts
            return own
    names: list[str] = []
    for held in found:
        names.append(held.name)
        yield held
    if names and own.status == "empty":
        text = "\n".join(f"[embedded: {name}]" for name in names)
        chunk = Chunk(text=text, meta={"headings": [], "part": "embedded"})
        return Extracted(kind=own.kind, text=text, chunks=(chunk,), metadata=own.metadata)
    return own


def _extractor(module: str) -> ExtractorFn:
    function: ExtractorFn = importlib.import_module(f"indexer.formats.{module}").extract
    return function


def doc(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of a Word 97 document (see the module)."""
    return (yield from _holding(_extractor("office.doc"), data, path, options, nesting))


def docx(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of a Word document (see the module)."""
    return (yield from _holding(_extractor("office.docx"), data, path, options, nesting))


def ppt(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of a PowerPoint 97 presentation (see the module)."""
    extract = _extractor("office.ppt")
    return (yield from _holding(extract, data, path, options, nesting, ppt_objects))


def pptx(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of a PowerPoint presentation (see the module)."""
    return (yield from _holding(_extractor("office.pptx"), data, path, options, nesting))


def odt(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of an OpenDocument text (see the module)."""
    return (yield from _holding(_extractor("office.odt"), data, path, options, nesting))


def odp(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of an OpenDocument presentation (see the module)."""
    return (yield from _holding(_extractor("office.odp"), data, path, options, nesting))


def spreadsheet(data: bytes, path: str, options: Options, nesting: Nesting) -> _Children:
    """The children of a workbook (xlsx, xlsm, ods, xls; see the module)."""
    return (yield from _holding(_extractor("sheets"), data, path, options, nesting))
