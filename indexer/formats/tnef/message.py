"""A TNEF stream as a `Mail` (the message and its attachments), for `msg.mail.render`.

The message's headers and bodies come from its MAPI properties where they are
(subject, sender, times, Message-ID, the plain, HTML and compressed RTF bodies) and
from the legacy attributes otherwise (attSubject, attFrom, attDateSent, attBody).
An attachment starts at its attAttachRendData; its name, type and data come from its
attAttachment properties, else attAttachTitle and attAttachData. An attached message
(an embedded TNEF message) becomes an attachment `<name>.tnef` of its own.
"""

from __future__ import annotations

import codecs
import email.utils
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.eml.mime import _types
from indexer.formats.msg.mail import Mail, Part
from indexer.formats.msg.outlook import address
from indexer.formats.msg.rtf import decompress
from indexer.formats.office.sniff import sniff
from indexer.formats.rtf import rtf_to_text
from indexer.formats.tnef.mapi import Properties, read_properties
from indexer.formats.tnef.stream import Attribute, Stream, is_tnef

__all__ = ["Read", "read_mail"]

_MESSAGE, _ATTACHMENT = 1, 2
_FROM, _SUBJECT, _DATE_SENT, _MESSAGE_ID, _BODY = 0x8000, 0x8004, 0x8005, 0x8009, 0x800C
_ATTACH_DATA, _ATTACH_TITLE, _RENDDATA, _MAPI, _ATTACH_PROPS, _CODEPAGE = (
    0x800F, 0x8010, 0x9002, 0x9003, 0x9005, 0x9007,
)  # fmt: skip
_PR = {"subject": 0x0037, "submitted": 0x0039, "to": 0x0E04, "cc": 0x0E03, "delivered": 0x0E06,
       "sender_name": 0x0C1A, "sender_email": 0x0C1F, "sender_smtp": 0x5D01, "body": 0x1000,
       "rtf": 0x1009, "html": 0x1013, "message_id": 0x1035, "references": 0x1039,
       "in_reply_to": 0x1042, "topic": 0x0070}  # fmt: skip
_ATTACH_DATA_OBJ, _ATTACH_FILENAME, _ATTACH_LONG_FILENAME, _ATTACH_MIME, _DISPLAY_NAME = (
    0x3701, 0x3704, 0x3707, 0x370E, 0x3001,
)  # fmt: skip
_OCTETS = "application/octet-stream"
_SNIFF = 8192


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """What `read_mail` made of a stream, and what was wrong with it."""

    mail: Mail
    problems: tuple[str, ...]


@dataclass(slots=True)
class _Attachment:
    title: str = ""
    data: bytes = b""
    props: Properties = field(default_factory=dict)


def read_mail(stream: Stream) -> Read:
    """The message of the TNEF `stream`; never raises."""
    problems = list(stream.problems)
    codepage = _codepage(stream.attributes)
    legacy: dict[int, bytes] = {}
    props: Properties = {}
    found: list[_Attachment] = []
    for attr in stream.attributes:
        if attr.level == _ATTACHMENT or attr.id == _RENDDATA:
            _attachment(attr, found, codepage, problems)
        elif attr.id == _MAPI:
            props = _props(attr.data, codepage, "the message's", problems)
        else:
            legacy.setdefault(attr.id, attr.data)
    mail = Mail(
        headers=tuple(_headers(props, legacy, codepage)),
        plain=_plain(props, legacy, codepage),
        html=_html(props),
        attachments=tuple(_part(k, att) for k, att in enumerate(found, start=1)),
    )
    return Read(mail=mail, problems=tuple(problems))


def _codepage(attributes: tuple[Attribute, ...]) -> str:
    for attr in attributes:
        if attr.id == _CODEPAGE and len(attr.data) >= 4:
            name = f"cp{int.from_bytes(attr.data[:4], 'little')}"
            try:
                codecs.lookup(name)
            except LookupError:
                return "cp1252"
            return name
    return "cp1252"


def _attachment(
    attr: Attribute, found: list[_Attachment], codepage: str, problems: list[str]
) -> None:
    if attr.id == _RENDDATA or not found:
        found.append(_Attachment())
    current = found[-1]
    if attr.id == _ATTACH_TITLE:
        current.title = attr.data.split(b"\0", 1)[0].decode(codepage, "replace")
    elif attr.id == _ATTACH_DATA:
        current.data = attr.data
    elif attr.id == _ATTACH_PROPS:
        current.props = _props(attr.data, codepage, f"attachment {len(found)}'s", problems)


def _props(data: bytes, codepage: str, whose: str, problems: list[str]) -> Properties:
    props, whole = read_properties(data, codepage)
    if not whole:
        problems.append(f"{whose} properties cut short")
    return props


def _text(props: Properties, key: str) -> str:
    value = props.get(_PR[key])
    return value.strip() if isinstance(value, str) else ""


def _legacy_text(legacy: dict[int, bytes], ident: int, codepage: str) -> str:
    return legacy.get(ident, b"").split(b"\0", 1)[0].decode(codepage, "replace").strip()


def _headers(
    props: Properties, legacy: dict[int, bytes], codepage: str
) -> Iterator[tuple[str, str]]:
    sender = _text(props, "sender_smtp") or _text(props, "sender_email")
    yield "From", address(_text(props, "sender_name"), sender) or _triple(legacy.get(_FROM))
    yield "To", _text(props, "to")
    yield "Cc", _text(props, "cc")
    yield "Date", _date(props, legacy.get(_DATE_SENT))
    subject = _text(props, "subject") or _legacy_text(legacy, _SUBJECT, codepage)
    yield "Subject", subject or _text(props, "topic")
    yield "Message-ID", _text(props, "message_id") or _legacy_text(legacy, _MESSAGE_ID, codepage)
    yield "In-Reply-To", _text(props, "in_reply_to")
    yield "References", _text(props, "references")


def _triple(data: bytes | None) -> str:
    """attFrom: a TRP structure, then the display name and the address (`SMTP:a@b`)."""
    if not data or len(data) < 8:
        return ""
    names, size = int.from_bytes(data[4:6], "little"), int.from_bytes(data[6:8], "little")
    name = data[8 : 8 + names].split(b"\0", 1)[0].decode("cp1252", "replace")
    addr = data[8 + names : 8 + names + size].split(b"\0", 1)[0].decode("cp1252", "replace")
    return address(name, addr.partition(":")[2] if ":" in addr else addr)


def _date(props: Properties, legacy: bytes | None) -> str:
    when = props.get(_PR["submitted"]) or props.get(_PR["delivered"])
    if not isinstance(when, datetime) and legacy is not None and len(legacy) >= 12:
        y, mo, d, h, mi, s = (int.from_bytes(legacy[i : i + 2], "little") for i in range(0, 12, 2))
        try:
            when = datetime(y, mo, d, h, mi, s, tzinfo=UTC)
        except ValueError:
            when = None
    return email.utils.format_datetime(when) if isinstance(when, datetime) else ""


def _plain(props: Properties, legacy: dict[int, bytes], codepage: str) -> str | None:
    body = props.get(_PR["body"])
    if isinstance(body, str) and body.strip():
        return body
    if legacy_body := _legacy_text(legacy, _BODY, codepage):
        return legacy_body
    if _html(props):
        return None
    rtf = props.get(_PR["rtf"])
    if not isinstance(rtf, bytes):
        return None
    try:
        return rtf_to_text(decompress(rtf)) or None
    except ValueError:  # not compressed RTF
        return None


def _html(props: Properties) -> str | None:
    html = props.get(_PR["html"])
    if isinstance(html, bytes):
        html = html.decode("utf-8", "replace")
    return html if isinstance(html, str) and html.strip() else None


def _part(index: int, att: _Attachment) -> Part:
    props = att.props
    name = next(
        (v.strip() for k in (_ATTACH_LONG_FILENAME, _ATTACH_FILENAME, _DISPLAY_NAME)
         if isinstance(v := props.get(k), str) and v.strip()),
        att.title.strip() or f"attachment-{index}",
    )  # fmt: skip
    mime: Any = props.get(_ATTACH_MIME)
    data = att.data
    obj = props.get(_ATTACH_DATA_OBJ)  # an attached message or OLE object (its IID gone)
    if not data and isinstance(obj, bytes):
        data = obj
    if is_tnef(data):
        return Part(filename=f"{name}.tnef", content_type="application/ms-tnef", data=data)
    if isinstance(mime, str) and mime.strip():
        return Part(filename=name, content_type=mime.strip(), data=data)
    # TNEF seldom says a type: the name's, as a mail's part would declare it, else text
    # when the bytes are (README, boot.ini), else none
    guessed = _types().guess_type(name, strict=False)[0]
    if guessed is None and data and sniff(data[:_SNIFF]) == "text":
        guessed = "text/plain"
    return Part(filename=name, content_type=guessed or _OCTETS, data=data)
