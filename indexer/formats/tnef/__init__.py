"""`tnef`: Outlook's `winmail.dat` (TNEF), read as the `eml` extractor reads a mail.

The stream (`stream.read_stream`, MAPI properties by `mapi`) is made a `Mail` whose
headers are those the message carries (often only a subject: the sending mail holds
the rest) and whose body is its plain text, else its HTML body rendered by the html
extractor, else the text of its compressed RTF body by the rtf extractor's reader;
it is then written as MIME and extracted by `eml`, as `msg` does. In a run the
attachments inside become child documents `winmail.dat#att/<k>/<name>`, an attached
message one of its own (`<name>.tnef`). A stream cut short, with a wrong checksum or
lying lengths gives what could be read, `degraded` with notes saying what was wrong.

TNEF reaches it by the extensions `.tnef` and `.dat` and the types
`application/ms-tnef` and `application/vnd.ms-tnef`. A `.dat` file without the TNEF
signature is read as the fallback reads any file when it is text, and passed over as
`binary` when it is not: claiming `.dat` must not change what other `.dat` files give.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from indexer._spec import Held, Nesting, extension_of
from indexer._text import wide_encoding
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS, text
from indexer.formats import eml as _eml
from indexer.formats.eml.children import attachments
from indexer.formats.msg.mail import render
from indexer.formats.office.container import failed
from indexer.formats.tnef.message import read_mail
from indexer.formats.tnef.stream import is_tnef, read_stream

__all__ = ["KIND", "VERSION", "children", "extract"]

KIND = "tnef"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
_SNIFF = 8192
_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a TNEF stream's message; never raises (a stream that is not TNEF fails
    `corrupt`, a `.dat` that is not TNEF is read as any other file is)."""
    if not data.strip():
        return Extracted(kind=KIND, text="")
    if not is_tnef(data):
        return _not_tnef(data, path, options)
    mime, problems = _mime(data)
    doc = replace(_eml.extract(mime, path, options), kind=KIND)
    if problems:
        notes = [*doc.metadata.get("notes", ()), *problems]
        doc = replace(doc, degraded=True, metadata={**doc.metadata, "notes": notes})
    if not doc.chunks:  # a receipt or a bare attachment carrier: nothing of its own to read
        return failed(KIND, "no text", doc.metadata)
    return doc


def _mime(data: bytes) -> tuple[bytes, tuple[str, ...]]:
    read = read_mail(read_stream(data))
    return render(read.mail), read.problems


def _not_tnef(data: bytes, path: str, options: Options) -> Extracted:
    if extension_of(path) == "dat":
        head = data[:_SNIFF]  # the walk's rule (walk/binary.binary_head), which it skips
        if b"\0" in head and not head.startswith(_BOMS) and wide_encoding(head) is None:
            return Extracted(kind="text", text="", skipped="binary: not TNEF")
        return text.extract(data, path, options)
    return failed(KIND, "corrupt: not TNEF (no TNEF signature)")


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield the attachments inside the stream `data` (`ChildrenFn`); return its message."""
    doc = extract(data, path, options)
    if is_tnef(data):
        yield from attachments(_mime(data)[0], doc)
    return doc
