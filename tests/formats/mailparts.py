"""Mails carrying one attachment, and a run over one file, for the mail-format tests."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path
from typing import Any

from outputs import documents

import indexer
from indexer.config import Config

CONFIG = Config(workers=1, pdf_workers=1, max_failures=100)


def mail_with(data: bytes, content_type: str, filename: str | None = None) -> bytes:
    """A small mail whose one attachment is `data`, declared `content_type`."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "ann@example.com", "bob@example.com", "Files"
    mail["Message-ID"] = "<files@example.com>"
    mail.set_content("See the attachment.")
    maintype, subtype = content_type.split("/")
    mail.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return mail.as_bytes()


def run_one(tmp_path: Path, name: str, data: bytes) -> dict[str, dict[str, Any]]:
    """The document records, by path, of a run over a folder holding only `name`."""
    (tmp_path / "src").mkdir(parents=True)
    (tmp_path / "src" / name).write_bytes(data)
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    return documents(tmp_path / "out")
