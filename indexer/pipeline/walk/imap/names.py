"""Folder names: IMAP's modified UTF-7 (RFC 3501 5.1.3) both ways, and the path a
folder's messages take in the records.

A message of folder `Archive.2023` (hierarchy separator ".") on `mail.example.com`
is `imap/mail.example.com/Archive/2023/<UID>.eml`: each level of the folder one
name, decoded from modified UTF-7 (`Entw&APw-rfe` is `Entwürfe`), escaped as a
walk's file names are (`escape_name`) and a "/" inside a level as `\\x2f`.
"""

from __future__ import annotations

import base64
import binascii

from indexer.pipeline.walk.entry import escape_name

__all__ = ["decode_folder", "encode_folder", "folder_rel", "message_rel"]

_PRINTABLE = range(0x20, 0x7F)


def decode_folder(raw: bytes) -> str:
    """The name `raw` (modified UTF-7, as a server sends it) stands for; a name that
    is not valid modified UTF-7 is returned as its bytes read as UTF-8 (some servers
    send UTF-8), undecodable bytes as `\\xNN`."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] != ord("&"):
            j = raw.find(b"&", i)
            j = len(raw) if j < 0 else j
            out.append(raw[i:j].decode("utf-8", "backslashreplace"))
            i = j
            continue
        end = raw.find(b"-", i)
        if end < 0:
            return raw.decode("utf-8", "backslashreplace")
        chunk = raw[i + 1 : end]
        if not chunk:
            out.append("&")
        else:
            try:
                padded = chunk.replace(b",", b"/") + b"=" * (-len(chunk) % 4)
                out.append(base64.b64decode(padded, validate=True).decode("utf-16-be"))
            except (binascii.Error, UnicodeDecodeError):
                return raw.decode("utf-8", "backslashreplace")
        i = end + 1
    return "".join(out)


def encode_folder(name: str) -> bytes:
    """`name` in modified UTF-7, as a server expects it in a command."""
    out: list[bytes] = []
    run: list[str] = []

    def shift() -> None:
        if run:
            wide = "".join(run).encode("utf-16-be")
            out.append(b"&" + base64.b64encode(wide).rstrip(b"=").replace(b"/", b",") + b"-")
            run.clear()

    for char in name:
        if ord(char) in _PRINTABLE:
            shift()
            out.append(b"&-" if char == "&" else char.encode("ascii"))
        else:
            run.append(char)
    shift()
    return b"".join(out)


def folder_rel(host: str, raw: bytes, delimiter: str) -> str:
    """The path prefix of folder `raw`'s messages (see the module doc)."""
    levels = decode_folder(raw).split(delimiter) if delimiter else [decode_folder(raw)]
    names = [escape_name(level.encode()).replace("/", "\\x2f") for level in levels]
    return "/".join(["imap", escape_name(host.encode()), *names])


def message_rel(folder: str, uid: int) -> str:
    """The path of message `uid` of the folder whose prefix is `folder`."""
    return f"{folder}/{uid}.eml"
