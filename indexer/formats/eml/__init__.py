"""`eml`: a header summary chunk, then the paragraphs of the mail's body text.

The first chunk lists the salient headers (`From`, `To`, `Cc`, `Date`, `Subject`)
as `Name: value` lines, decoded, in the order the message has them, duplicates kept
(as the reference implementation does); `meta` is `{"part": "headers"}`. Then the
paragraphs of every inline `text/plain` part at any depth, in order; when there is
no such text, the `text/html` parts rendered by the html extractor; when there is
none either, a `multipart/report`'s preamble (where some bounces put their text);
`meta` is `{"part": "body"}`. Attachments and enclosed messages are not body text: see
`indexer.formats.eml.mime.iter_attachments`. Threading headers go in `metadata`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from email.message import Message
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from indexer._text import split_paragraphs
from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS, html
from indexer.formats.eml.mime import (
    Leaf,
    decode_bytes,
    has_raw_bytes,
    header_text,
    message_charset,
    part_text,
    walk,
)
from indexer.formats.eml.scan import parse_shallow

__all__ = ["VERSION", "chunk", "extract", "mail_headers", "mail_metadata"]

VERSION = VERSIONS["eml"]  # bumped in indexer/formats/__init__.py

_SALIENT = {"from": "From", "to": "To", "cc": "Cc", "date": "Date", "subject": "Subject"}
_METADATA = {
    "message-id": "message_id",
    "in-reply-to": "in_reply_to",
    "references": "references",
    "subject": "subject",
    "from": "from",
    "to": "to",
    "date": "date",
}
_FROM_WITH_SPACE = re.compile(r"From[ \t]+:(.*)", re.DOTALL)
_MESSAGE_ID = re.compile(r"<[^<>]*>")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Parse a mail and chunk it; never raises short of absurd MIME nesting.

    Input without any header (not a mail) gives its paragraphs, `degraded`. Returns
    an `Extracted` of kind `eml` whose `metadata` holds the threading headers.
    """
    message = parse_shallow(data)  # enclosed messages are not body text: left unparsed
    headers = mail_headers(message)
    summary = "\n".join(
        f"{_SALIENT[name]}: {value}" for name, value in headers if name in _SALIENT and value
    )
    chunks = [Chunk(text=summary, meta={"part": "headers"})] if summary else []
    chunks.extend(Chunk(text=para, meta={"part": "body"}) for para in _body(message, options))
    return Extracted(
        kind="eml",
        text="\n\n".join(c.text for c in chunks),
        chunks=tuple(chunks),
        degraded=len(message) == 0 and not headers,
        metadata=mail_metadata(headers),
    )


def chunk(text: str, options: Options) -> Extracted:
    """Chunk a mail given as text (encoded as UTF-8 and parsed as `extract` does)."""
    return extract(text.encode("utf-8", "replace"), "", options)


def mail_headers(message: Message) -> list[tuple[str, str]]:
    """Return the salient and threading headers as (lower-case name, decoded value) pairs.

    In message order; other headers are left out (and so never decoded).
    A first line `From : x` (obsolete space before the colon, which the parser
    takes for an mbox envelope line) counts as a `From` header. Raw 8-bit header
    bytes are read in the message's body charset when they are not UTF-8.
    """
    # raw_items: the stored values; items() would turn 8-bit ones into lossy Header objects
    raw = [(name.strip().lower(), str(value)) for name, value in message.raw_items()]
    envelope = _FROM_WITH_SPACE.fullmatch(message.get_unixfrom() or "")
    if envelope is not None:
        raw.insert(0, ("from", envelope.group(1)))
    wanted = [(key, value) for key, value in raw if key in _SALIENT or key in _METADATA]
    charset = message_charset(message) if any(has_raw_bytes(v) for _, v in wanted) else None
    return [(key, header_text(value, charset)) for key, value in wanted]


def mail_metadata(headers: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Return the document metadata found in decoded `mail_headers`.

    Keys, in this order and only when present with a value: `message_id`,
    `in_reply_to`, `references` (a list of ids), `subject`, `from`, `to`, `date`.
    The first occurrence of a header wins, except that all `To` headers are
    joined and all `References` headers contribute their ids.
    """
    found: dict[str, str] = {}
    for name, value in headers:
        key = _METADATA.get(name)
        if key is None or not value:
            continue
        if key not in found:
            found[key] = value
        elif key == "to":
            found[key] += f", {value}"
        elif key == "references":
            found[key] += f" {value}"
    meta: dict[str, Any] = {}
    for key in _METADATA.values():
        if key in found:
            meta[key] = _ids(found[key]) if key == "references" else found[key]
    return meta


def _ids(value: str) -> list[str]:
    return _MESSAGE_ID.findall(value) or value.split()


def _body(message: Message, options: Options) -> list[str]:
    leaves = [leaf for _, leaf in walk(message) if leaf is not None]
    plain = [p for leaf in leaves if not leaf.html for p in split_paragraphs(part_text(leaf.part))]
    if plain:
        return plain
    html_ = [p for leaf in leaves if leaf.html for p in _render_html(leaf, options)]
    if html_:
        return html_
    # Some bounces (multipart/report) carry their only human text in the preamble;
    # elsewhere the preamble is "This is a multi-part message in MIME format." noise.
    if message.get_content_type() != "multipart/report":
        return []
    preamble = message.preamble or ""
    return split_paragraphs(decode_bytes(preamble.encode("utf-8", "surrogateescape"), None))


def _render_html(leaf: Leaf, options: Options) -> list[str]:
    markup = part_text(leaf.part)
    # A mail is its own main content: rendered whole unless asked otherwise.
    options = replace(options, html_main_content=options.html_mail_main_content)
    try:
        return [c.text for c in html.chunk(markup, options).chunks]
    except Exception:  # a failing renderer must not cost the mail its headers and other parts
        tree = LexborHTMLParser(markup)
        tree.strip_tags(["script", "style", "head"])
        return split_paragraphs(tree.text(separator="\n"))
