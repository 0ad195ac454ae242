"""`eml`: a header summary chunk, then the paragraphs of the mail's body text.

The first chunk lists the salient headers (`From`, `To`, `Cc`, `Date`, `Subject`)
as `Name: value` lines, decoded, in the order the message has them, duplicates kept
(as the reference implementation does); `meta` is `{"part": "headers"}`. Then the
paragraphs of the body (`indexer.formats.eml.body`): the sender's own text as
`{"part": "body"}`, what it quotes as `{"part": "quoted", "quoted": true}`, its
signature, disclaimer and forwarded messages each as a part of their own.
Attachments and enclosed messages are not body text: see
`indexer.formats.eml.mime.iter_attachments`. Threading headers go in `metadata`, and
`metadata.thread` (`threads.thread_of`): the thread's id, and `parent` `""` (a parent
is resolved to its `doc_id` by a pass over the whole corpus, not from one message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from email.message import Message
from typing import Any

from indexer._types import Chunk, Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.eml.body import body_chunks
from indexer.formats.eml.mime import has_raw_bytes, header_text, message_charset
from indexer.formats.eml.quotes import is_forward_subject
from indexer.formats.eml.scan import parse_shallow
from indexer.formats.eml.threads import thread_of

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
    metadata = mail_metadata(headers)
    forward = is_forward_subject(str(metadata.get("subject", "")))
    if not headers:  # not a mail (text that starts like a header block): kept as written
        options = replace(options, mail_keep_quotes=True)
    chunks.extend(body_chunks(message, options, forward=forward))
    if headers:
        metadata["thread"] = mail_thread(metadata, headers)
    return Extracted(
        kind="eml",
        text="\n\n".join(c.text for c in chunks),
        chunks=tuple(chunks),
        degraded=len(message) == 0 and not headers,
        metadata=metadata,
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


def mail_thread(metadata: dict[str, Any], headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`metadata.thread` of a message: `{"id": ..., "parent": ""}` (see the module doc)."""
    thread = thread_of(
        message_id=str(metadata.get("message_id", "")),
        in_reply_to=str(metadata.get("in_reply_to", "")),
        references=metadata.get("references", ()),
        subject=str(metadata.get("subject", "")),
        people=[value for name, value in headers if name in ("from", "to", "cc")],
        date=str(metadata.get("date", "")),
    )
    return {"id": thread.id, "parent": ""}


def _ids(value: str) -> list[str]:
    return _MESSAGE_ID.findall(value) or value.split()
