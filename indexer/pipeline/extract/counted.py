"""One document's extraction with what OCR did for it counted (`formats.ocr.tally`).

Each document a worker extracts (a file, an attachment, an archive's member) is counted
on its own: a container's count leaves out its children's, which are documents of
their own. The counts ride in the document's metadata (`output.ocrcounts`) to its
record's `Rendered`, and from there to `run.json`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

from indexer._types import Extracted
from indexer.formats.ocr import tally
from indexer.pipeline.output.ocrcounts import noted

P = ParamSpec("P")


def counted(extract: Callable[P, Extracted], *args: P.args, **kwargs: P.kwargs) -> Extracted:
    """`extract(*args, **kwargs)`, with OCR's counts of it in its metadata."""
    with tally.counting() as found:
        doc = extract(*args, **kwargs)
    return noted(doc, found)
