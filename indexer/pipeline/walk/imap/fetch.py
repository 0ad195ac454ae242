"""Messages fetched from a folder, a batch at a time.

`UID FETCH ... BODY.PEEK[]` leaves each message unseen. A message comes over IMAP with
CRLF line ends, which a Maildir (Dovecot's, for one) stores as LF: they are turned back
into LF here, so that a message's bytes, its sha256 and its records are those of the
same message in a Maildir.
"""

from __future__ import annotations

import imaplib
import re

from indexer.pipeline.walk.imap.listing import examine
from indexer.pipeline.walk.imap.names import decode_folder
from indexer.pipeline.walk.imap.session import Refused, Session

__all__ = ["fetch"]

_UID = re.compile(rb"\bUID (\d+)")


def fetch(
    session: Session, raw: bytes, uidvalidity: int, uids: list[int]
) -> dict[int, bytes | str]:
    """Each of `uids` of folder `raw` as its bytes, or as why the server would not send
    it (a str); a UID missing from the result is gone: expunged, or the folder's
    UIDVALIDITY is no longer `uidvalidity` (its UIDs name other messages now). A batch
    the server refuses is asked for a message at a time, so one bad message fails
    alone. Raises `SourceLost` when the connection cannot be kept."""

    def once(conn: imaplib.IMAP4) -> dict[int, bytes | str]:
        try:
            current, _ = examine(session, conn, raw)
        except Refused:  # the folder is gone since the listing: so are its messages
            return {}
        if current != uidvalidity:
            return {}
        wanted = ",".join(str(uid) for uid in uids)
        typ, data = conn.uid("FETCH", wanted, "(UID BODY.PEEK[])")
        if typ != "OK":
            raise Refused(f"FETCH: {_said(data)}")
        return _messages(data, set(uids))

    try:
        return session.run(once, f"fetching {len(uids)} message(s) of {decode_folder(raw)}")
    except Refused as refusal:
        if len(uids) == 1:
            return {uids[0]: f"the IMAP server would not send it: {refusal}"}
    found: dict[int, bytes | str] = {}
    for uid in uids:
        found.update(fetch(session, raw, uidvalidity, [uid]))
    return found


def _messages(data: list[object], wanted: set[int]) -> dict[int, bytes | str]:
    """The messages of a FETCH reply, by UID (a server may put the UID after the body)."""
    found: dict[int, bytes | str] = {}
    pending: bytes | None = None
    for item in data:
        if isinstance(item, tuple) and len(item) == 2:
            head, body = item
            if pending is not None:  # the UID of the last one never came
                pending = None
            m = _UID.search(head) if isinstance(head, bytes) else None
            if m is not None and int(m[1]) in wanted:
                found[int(m[1])] = _lf(body)
            elif m is None and isinstance(body, bytes):
                pending = body
        elif isinstance(item, bytes) and pending is not None:
            if (m := _UID.search(item)) is not None and int(m[1]) in wanted:
                found[int(m[1])] = _lf(pending)
            pending = None
    return found


def _lf(body: bytes) -> bytes:
    return body.replace(b"\r\n", b"\n")


def _said(data: list[object]) -> str:
    return " ".join(d.decode("utf-8", "replace") for d in data if isinstance(d, bytes))
