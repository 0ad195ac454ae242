"""`mhtml`: a web page saved as one file (`.mhtml`, `.mht`): MIME parts, the page first.

The page is the part the `multipart/related` root names by its `start` Content-ID,
else the first `text/html` part; it is rendered by the html extractor (main content,
`html_main_content`), as a `.html` file would be, kind `mhtml`. The page's resources (pictures,
style sheets, scripts, fonts) are not documents and are not yielded; every other part
(a frame's page, a PDF the page embeds) becomes a child document
`page.mht#part/<k>/<name>` in a run. A file with no HTML part is read as a mail (its
text parts), `degraded`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from email.message import Message

from indexer._spec import Held, Nesting
from indexer._types import Extracted, Options
from indexer.formats import VERSIONS, html
from indexer.formats import eml as _eml
from indexer.formats.eml.mime import _safe_filename, parse_message, part_text

__all__ = ["KIND", "VERSION", "children", "chunk", "extract"]

KIND = "mhtml"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
_RESOURCES = ("image/", "font/", "audio/", "video/", "text/css", "text/javascript",
              "application/javascript", "application/x-javascript", "application/font",
              "application/x-font", "application/vnd.ms-fontobject")  # fmt: skip


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract the page of a saved web archive; never raises short of absurd MIME nesting."""
    if not data.strip():
        return Extracted(kind=KIND, text="")
    parts = _leaves(data)
    root = _root(parts[0] if parts else None, parts)
    if root is None:
        doc = _eml.extract(data, path, options)
        return replace(doc, kind=KIND, degraded=True)
    return replace(html.chunk(part_text(root), options), kind=KIND)


def children(
    data: bytes, path: str, options: Options, nesting: Nesting
) -> Generator[Held, None, Extracted]:
    """Yield the parts that are documents of their own (`ChildrenFn`); return the page."""
    doc = extract(data, path, options)
    parts = _leaves(data)
    root = _root(parts[0] if parts else None, parts)
    for index, part in enumerate(parts[1:], start=1):
        content_type = part.get_content_type()
        if part is root or content_type.startswith(_RESOURCES):
            continue
        name = _safe_filename(_name(part), content_type, index)
        payload = _payload(part)
        yield Held(
            path=f"part/{index}/{name}", name=name, data=payload, size=len(payload),
            content_type=content_type,
        )  # fmt: skip
    return doc


def _leaves(data: bytes) -> list[Message]:
    """The message itself, then its leaf parts in order."""
    try:
        message = parse_message(data)
        return [message, *(p for p in message.walk() if not p.is_multipart())]
    except RecursionError:
        return []


def _root(message: Message | None, parts: list[Message]) -> Message | None:
    if message is None:
        return None
    start = str(message.get_param("start", "") or "").strip("<>")
    pages = [p for p in parts[1:] if p.get_content_type() in ("text/html", "application/xhtml+xml")]
    named = [p for p in pages if start and str(p.get("content-id", "")).strip("<> ") == start]
    return next(iter(named or pages), None)


def _name(part: Message) -> str | None:
    filename = part.get_filename()
    if filename:
        return str(filename)
    location = str(part.get("content-location", "")).split("?", 1)[0].rstrip("/")
    return location.rsplit("/", 1)[-1] or None


def _payload(part: Message) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception:  # a broken transfer encoding: the bytes as they are
        data = None
    return data if isinstance(data, bytes) else str(part.get_payload()).encode("utf-8", "replace")


def chunk(text: str, options: Options) -> Extracted:
    """Chunk a file given as text (encoded as UTF-8 and read as `extract` reads bytes)."""
    return extract(text.encode("utf-8", "replace"), "", options)
