"""A message's thread, from the message alone: `thread_of`, and the subject it is keyed by.

Deterministic and pure, so every worker count, engine and walk order gives the same ids,
and a corpus-wide pass (which sees every message) can finish what one message cannot:
resolve a parent in another file, group replies whose client dropped the threading
headers. See `thread_of` for the rules.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.utils import getaddresses

__all__ = ["Thread", "normalize_subject", "participants", "thread_of"]

_PREFIX = re.compile(
    r"^(?:\s*(?:\[[^\]]{0,40}\]\s*)?(?:re|aw|sv|vs|fw|fwd|fwdd|wg|tr|rv|r|ref|réf|antw|antwort"
    r"|odp|enc|res|rif|doorst|vb|vl|ynt|回复|回覆|答复|转发|轉寄|返信|転送)\s*(?:\[\d+\]|\(\d+\)"
    r"|\^\d+)?\s*[:：]\s*)+",
    re.I,
)
_TAG = re.compile(r"^\s*\[[^\]]{0,40}\]\s*")
_ID = re.compile(r"<[^<>\s]+>")


@dataclass(frozen=True, slots=True, kw_only=True)
class Thread:
    """Where a message sits in its conversation."""

    id: str
    """The thread's id: 24 hex digits, the same for every message of the thread."""
    parent: str
    """The parent's Message-ID (`<...>`) as the message names it; `""` for none."""
    root: str
    """What `id` hashes: the root's Message-ID, or `subject:` and the subject key."""


def thread_of(
    *,
    message_id: str = "",
    in_reply_to: str = "",
    references: Sequence[str] = (),
    subject: str = "",
    people: Iterable[str] = (),
    date: str = "",
) -> Thread:
    """Return the thread of one message, from its headers alone; never raises.

    `message_id`, `in_reply_to` and `references` are the headers' values (ids in angle
    brackets; anything else is ignored), `subject` the raw subject, `people` the From,
    To and Cc header values, `date` the Date header (unused by the id, accepted so that
    a corpus pass passes every message the same way: it, not this function, applies a
    time window to subject-keyed threads).

    The root is the first id of `References`, else the `In-Reply-To` id, else the
    message's own id; with none of them, the subject key: `normalize_subject(subject)`
    and the sorted addresses of `people`, so that a reply whose client dropped the
    threading headers still lands with the other such replies between the same people.
    `id` is the first 24 hex digits of the root's SHA-256. `parent` is the
    `In-Reply-To` id, else the last id of `References`, else `""`: the caller maps it
    to the parent's `doc_id` where the parent is indexed.
    """
    refs = [i for r in references for i in _ID.findall(r)]
    replied = _ID.findall(in_reply_to)
    own = _ID.findall(message_id)
    if refs:
        root = refs[0]
    elif replied:
        root = replied[0]
    elif own:
        root = own[0]
    else:
        root = f"subject:{normalize_subject(subject)}\n{' '.join(participants(people))}"
    parent = replied[0] if replied else refs[-1] if refs else ""
    if own and parent == own[0]:  # a message naming itself: no parent
        parent = ""
    digest = hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return Thread(id=digest, parent=parent, root=root)


def normalize_subject(subject: str) -> str:
    """`subject` without its reply and forward prefixes (`Re:`, `AW:`, `SV:`, `Fwd:`, `WG:`,
    `TR:`, `RE[2]:`, ...) and list tags (`[dev]`), lower-case, spaces collapsed."""
    text = " ".join(subject.split())
    while True:
        stripped = _TAG.sub("", _PREFIX.sub("", text))
        if stripped == text:
            break
        text = stripped
    return text.casefold()


def participants(people: Iterable[str]) -> list[str]:
    """The distinct addresses in the header values `people`, lower-case, sorted."""
    found = {addr.strip().lower() for _, addr in getaddresses(list(people)) if "@" in addr}
    return sorted(found)
