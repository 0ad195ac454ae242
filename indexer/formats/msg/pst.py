"""The messages of an Outlook `.pst`/`.ost` mailbox (libpff-python), each as MIME bytes.

`iter_messages(path)` reads folder by folder, depth-first, messages in folder
order, one at a time from disk, so memory does not grow with the mailbox. Each
message is a `Mail` written by `mail.render`, read from its transport headers
when it has them, else from its properties, as `outlook` does for a `.msg`.
A message or folder libpff cannot read gives an error in its place.

Run as `python -m indexer.formats.msg.pst FILE MEMORY_MB`, it writes them as frames
on stdout (see `formats/msg/listing.py`): libpff is C, and a crash on a damaged
mailbox must end that process, not the run.
"""

from __future__ import annotations

import email.utils
import resource
import struct
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from email.parser import HeaderParser
from typing import Any

import orjson
import pypff

from indexer._text import decode
from indexer.formats.msg.mail import Mail, Part, render
from indexer.formats.msg.outlook import address
from indexer.formats.rtf import rtf_to_text

__all__ = ["Message", "iter_messages", "main"]

Message = tuple[str, int, bytes | None, str | None]
"""(folder path, number in the folder from 1, MIME bytes or None, error or None)."""
FRAME = struct.Struct(">II")
EMBEDDED_TYPE = "application/x-pst-embedded-message"
"""An enclosed message: libpff-python gives no access to its content."""
_SMTP, _ADDRESS_TYPE, _EMAIL, _SENT_SMTP = 0x5D01, 0x0C1E, 0x0C1F, 0x5D02
_NAME, _RECIPIENT_EMAIL, _RECIPIENT_SMTP, _RECIPIENT_TYPE = 0x3001, 0x3003, 0x39FE, 0x0C15
_THREADING = (("Message-ID", 0x1035), ("In-Reply-To", 0x1042), ("References", 0x1039))
_ATTACH_METHOD, _ATTACH_MIME = 0x3705, 0x370E


def iter_messages(path: str) -> Iterator[Message]:
    """Every message of the mailbox at `path`; raises OSError when it cannot be opened."""
    mailbox = pypff.file()
    mailbox.open(path)
    try:
        yield from _folder(mailbox.get_root_folder(), "")
    finally:
        mailbox.close()


def _folder(folder: Any, prefix: str) -> Iterator[Message]:
    try:
        count = folder.number_of_sub_messages
    except OSError as exc:
        yield prefix or "/", 1, None, f"unreadable folder: {exc}"
        return
    for n in range(1, count + 1):
        try:
            yield prefix, n, render(_mail(folder.get_sub_message(n - 1))), None
        except Exception as exc:  # a broken node: this message only
            yield prefix, n, None, f"unreadable message: {exc}"[:300]
    try:
        subfolders = [folder.get_sub_folder(i) for i in range(folder.number_of_sub_folders)]
    except OSError as exc:
        yield prefix or "/", count + 1, None, f"unreadable folder: {exc}"
        return
    for sub in subfolders:
        name = (sub.name or "unnamed").replace("/", "_").replace("#", "_")
        yield from _folder(sub, f"{prefix}/{name}" if prefix else name)


def _props(item: Any) -> dict[int, Any]:
    found: dict[int, Any] = {}
    for record_set in item.record_sets:
        for entry in record_set.entries:
            found.setdefault(entry.entry_type, entry)
    return found


def _text(props: dict[int, Any], pid: int) -> str:
    entry = props.get(pid)
    if entry is None or entry.value_type not in (0x1E, 0x1F):
        return ""
    try:
        return str(entry.data_as_string or "")
    except (OSError, UnicodeError):
        return ""


def _mail(message: Any) -> Mail:
    props = _props(message)
    transport = HeaderParser().parsestr(message.transport_headers or "")
    plain = decode(message.plain_text_body) if message.plain_text_body else None
    html = None if plain else decode(message.html_body) if message.html_body else None
    if not plain and not html and message.rtf_body:
        plain = rtf_to_text(message.rtf_body)
    return Mail(
        headers=tuple(_headers(message, props, transport)),
        plain=plain,
        html=html,
        attachments=tuple(_attachments(message)),
    )


def _headers(message: Any, props: dict[int, Any], transport: Any) -> Iterator[tuple[str, str]]:
    def header(name: str) -> str:
        values = transport.get_all(name) or []
        return ", ".join(str(v) for v in values)

    smtp = _text(props, _SMTP) or _text(props, _SENT_SMTP)
    if not smtp and _text(props, _ADDRESS_TYPE).upper() == "SMTP":
        smtp = _text(props, _EMAIL)
    yield "From", header("From") or address(message.sender_name or "", smtp)
    for name, kind in (("To", 1), ("Cc", 2)):
        yield name, header(name) or _recipients(message, kind)
    yield "Date", header("Date") or _date(message)
    yield "Subject", message.subject or header("Subject")
    for name, pid in _THREADING:
        yield name, header(name) or _text(props, pid)


def _recipients(message: Any, kind: int) -> str:
    found = []
    recipients = message.recipients
    for record_set in [] if recipients is None else recipients.record_sets:
        entries = {e.entry_type: e for e in record_set.entries}
        kind_entry = entries.get(_RECIPIENT_TYPE)
        if kind_entry is None or kind_entry.data_as_integer != kind:
            continue
        props = {
            pid: entries[pid]
            for pid in (_NAME, _RECIPIENT_EMAIL, _RECIPIENT_SMTP)
            if pid in entries
        }
        addr = _text(props, _RECIPIENT_SMTP) or _text(props, _RECIPIENT_EMAIL)
        found.append(address(_text(props, _NAME), addr))
    return ", ".join(a for a in found if a)


def _date(message: Any) -> str:
    when: datetime | None = message.client_submit_time or message.delivery_time
    return "" if when is None else email.utils.format_datetime(when.replace(tzinfo=UTC))


def _attachments(message: Any) -> Iterator[Part]:
    for index in range(message.number_of_attachments):
        attachment = message.get_attachment(index)
        props = _props(attachment)
        method = props.get(_ATTACH_METHOD)
        name = attachment.long_filename or _text(props, _NAME) or None
        if method is not None and method.data_as_integer == 5:
            yield Part(filename=name, content_type=EMBEDDED_TYPE)
            continue
        size = attachment.size or 0
        data = attachment.read_buffer(size) if size else b""
        content_type = _text(props, _ATTACH_MIME) or "application/octet-stream"
        yield Part(filename=name, content_type=content_type, data=data)


def main(argv: list[str]) -> int:
    """Write the messages of mailbox `argv[0]` as frames on stdout, under a memory cap of
    `argv[1]` MB: per message a JSON header `[folder, n, error]` and the MIME bytes."""
    cap = int(argv[1]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    out = sys.stdout.buffer
    for folder, n, data, error in iter_messages(argv[0]):
        head = orjson.dumps([folder, n, error])
        out.write(FRAME.pack(len(head), len(data or b"")) + head + (data or b""))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
