"""`msg`: an Outlook message file, read as the `eml` extractor reads a mail.

The message (python-oxmsg) is written as a MIME mail (`mail.render`) and extracted
by `eml`: the same header summary chunk (`From` as an SMTP address, `To`, `Cc`,
`Date`, `Subject`), the same body paragraphs (plain text, else the HTML body
rendered by the html extractor, else the text of the RTF body), the same
threading `metadata`. In a run its attachments and enclosed messages become child
documents `x.msg#att/<k>/<filename>`, from the same MIME.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from indexer._spec import Held, Nesting
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats import eml as _eml
from indexer.formats.eml.children import attachments
from indexer.formats.msg.mail import render
from indexer.formats.msg.outlook import read_msg
from indexer.formats.office.container import failed

__all__ = ["VERSION", "children", "extract"]

VERSION = VERSIONS["msg"]  # bumped in indexer/formats/__init__.py


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract an Outlook `.msg` file; never raises: a file that is not one, or is
    damaged, gives a `failed` result whose one chunk says why."""
    return _read(data, path, options)[0]


def _read(data: bytes, path: str, options: Options) -> tuple[Extracted, bytes | None]:
    """The message's document and its MIME bytes (None when it could not be read)."""
    if not data.strip():
        return Extracted(kind="msg", text=""), None
    try:
        mime = render(read_msg(data))
    except Exception as exc:  # oxmsg and olefile raise many kinds on damaged input
        return failed("msg", f"corrupt: {type(exc).__name__}: {exc}"[:300]), None
    return replace(_eml.extract(mime, path, options), kind="msg"), mime


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield the attachments and enclosed messages of the message `data` (`ChildrenFn`);
    return the message's own document."""
    doc, mime = _read(data, path, options)  # one reading of the Outlook file for both
    if mime:
        yield from attachments(mime, doc)
    return doc
