"""A `.msg` file (python-oxmsg) read into a `Mail`.

Headers come from the transport headers the message was received with, when it
has them; otherwise from its properties. The sender is always an SMTP address
where one is recorded: an Exchange sender (`/o=.../cn=...`) keeps only the name.
Attachments keep their order; an enclosed message (attach method 5) becomes a
message part, read the same way, to `MAX_NESTING` levels (and the file itself no
deeper, `ole`); an attachment whose
properties cannot be read becomes a named placeholder, so it is still recorded.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import datetime
from email.message import Message as Headers
from typing import Any

from oxmsg import Message
from oxmsg.attachment import Attachment
from oxmsg.domain import constants as c
from oxmsg.properties import Properties
from oxmsg.util import lazyproperty

from indexer.formats.msg.mail import Mail, Part
from indexer.formats.msg.ole import MAX_NESTING, load_message
from indexer.formats.msg.rtf import decompress
from indexer.formats.rtf import rtf_to_text

__all__ = ["UNREADABLE", "address", "read_msg"]

UNREADABLE = "application/x-unreadable-attachment"
"""The content type of an attachment whose properties could not be read."""
_EMBEDDED = 5  # PidTagAttachMethod: afEmbeddedMessage
_EMBEDDED_STORAGE = "__substg1.0_3701000D"
_EMBEDDED_HEADER = 24  # property stream header of an enclosed message (the root's is 32)
_SENT_REPRESENTING_SMTP = 0x5D02
_DISPLAY_NAME = 0x3001
_THREADING = (
    ("Message-ID", c.PID_INTERNET_MESSAGE_ID),
    ("In-Reply-To", c.PID_IN_REPLY_TO_ID),
    ("References", c.PID_INTERNET_REFERENCES),
)
_RECIPIENT_TYPES = {1: "To", 2: "Cc"}  # 3 (Bcc) is not shown, as in a received mail


class _Enclosed(Message):
    """A message stored inside an attachment: its property header is shorter."""

    @lazyproperty
    def _properties(self) -> Properties:
        return Properties(self._storage, properties_header_offset=_EMBEDDED_HEADER)


def read_msg(data: bytes) -> Mail:
    """The `Mail` of a `.msg` file's bytes; raises ValueError (or the OLE reader's
    error) when they are not an Outlook message."""
    return _mail(load_message(data), 0)


def _mail(message: Message, depth: int) -> Mail:
    plain, html = message.body, None
    if not plain:
        html = _html(message)
        plain = None if html else _rtf_body(message.properties)
    return Mail(
        headers=tuple(_headers(message, _transport(message))),
        plain=plain,
        html=html,
        attachments=tuple(_attachments(message, depth)),
    )


def _html(message: Message) -> str | None:
    try:
        return message.html_body
    except Exception:  # an unknown code page: the RTF body stands in
        return None


def _transport(message: Message) -> Headers:
    try:
        return message._message_headers  # the parsed PidTagTransportMessageHeaders
    except Exception:  # unreadable headers: the properties stand in
        return Headers()


def _headers(message: Message, transport: Headers) -> Iterator[tuple[str, str]]:
    props = message.properties
    yield "From", _header(transport, "From") or _sender(props)
    for name, kind in (("To", 1), ("Cc", 2)):
        yield name, _header(transport, name) or _recipients(message, kind)
    yield "Date", _header(transport, "Date") or _date(props)
    yield "Subject", message.subject or _header(transport, "Subject")
    for name, pid in _THREADING:
        yield name, _header(transport, name) or (props.str_prop_value(pid) or "")


def _header(transport: Headers, name: str) -> str:
    values = transport.get_all(name) or []
    return (
        ", ".join(str(v) for v in values)
        if name in ("To", "Cc")
        else str(values[0] if values else "")
    )


def _sender(props: Properties) -> str:
    name = (props.str_prop_value(c.PID_SENDER_NAME) or "").strip()
    smtp = props.str_prop_value(c.PID_SENDER_SMTP_ADDRESS) or props.str_prop_value(
        _SENT_REPRESENTING_SMTP
    )
    if not smtp and (props.str_prop_value(c.PID_SENDER_ADDRESS_TYPE) or "").upper() == "SMTP":
        smtp = props.str_prop_value(c.PID_SENDER_EMAIL_ADDRESS)
    return address(name, smtp or "")


def address(name: str, addr: str) -> str:
    """`Name <addr>` (quoted where needed); the name alone for an Exchange DN or none."""
    name = " ".join(name.split())
    if not addr or addr.startswith(("/o=", "/O=")) or "@" not in addr:
        return name
    if not name or name.strip("'\"") == addr:
        return addr
    if any(ch in name for ch in ',;:<>@"()[]'):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{addr}>"


def _recipients(message: Message, kind: int) -> str:
    found = []
    for recipient in message.recipients:
        if recipient.properties.int_prop_value(c.PID_RECIPIENT_TYPE) == kind:
            found.append(address(recipient.name, recipient.email_address))
    return ", ".join(a for a in found if a)


def _date(props: Properties) -> str:
    when: datetime | None = props.date_prop_value(
        c.PID_CLIENT_SUBMIT_TIME
    ) or props.date_prop_value(c.PID_MESSAGE_DELIVERY_TIME)
    return "" if when is None else email.utils.format_datetime(when)


def _rtf_body(props: Properties) -> str | None:
    try:
        compressed = props.binary_prop_value(c.PID_RTF_COMPRESSED)
        return rtf_to_text(decompress(compressed)) if compressed else None
    except Exception:  # a damaged RTF stream: no body rather than no message
        return None


def _attachments(message: Message, depth: int) -> Iterator[Part]:
    for index, attachment in enumerate(message.attachments, start=1):
        try:
            yield _part(attachment, depth)
        except Exception:  # a damaged attachment table entry: recorded, not dropped
            yield Part(filename=f"attachment-{index}", content_type=UNREADABLE)


def _part(attachment: Attachment, depth: int) -> Part:
    props = attachment.properties
    method = props.int_prop_value(c.PID_ATTACH_METHOD)
    if method is None:  # a property every attachment has: its table is damaged
        raise ValueError("attachment without an attach method")
    if method == _EMBEDDED:
        storage = _storage(attachment)
        name = props.str_prop_value(_DISPLAY_NAME)
        inner = (
            None
            if storage is None or depth >= MAX_NESTING
            else _mail(_Enclosed(storage), depth + 1)
        )
        if inner is not None:
            return Part(filename=f"{name}.eml" if name else None, message=inner)
    return Part(
        filename=attachment.file_name or props.str_prop_value(c.PID_ATTACH_FILENAME),
        content_type=attachment.mime_type or "application/octet-stream",
        data=attachment.file_bytes or b"",
    )


def _storage(attachment: Attachment) -> Any:
    storages = getattr(attachment._storage, "storages", ())  # the enclosed message's OLE folder
    return next((s for s in storages if s.name == _EMBEDDED_STORAGE), None)
