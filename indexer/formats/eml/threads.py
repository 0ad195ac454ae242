"""A message's thread, from the message alone: `thread_of`, and the subject it is keyed by.

Deterministic and pure, so every worker count, engine and walk order gives the same ids,
and a corpus-wide pass (which sees every message) can finish what one message cannot:
resolve a parent in another file, group replies whose client dropped the threading
headers. See `thread_of` for the rules.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from email.utils import getaddresses, parsedate_to_datetime

__all__ = [
    "Mail", "Thread", "Union", "group", "named_ids", "normalize_subject", "participants",
    "subject_links", "thread_of", "when",
]  # fmt: skip

_PREFIX = re.compile(
    r"^(?:\s*(?:\[[^\]]{0,40}\]\s*)?(?:re|aw|sv|vs|fw|fwd|fwdd|wg|tr|rv|r|ref|réf|antw|antwort"
    r"|odp|enc|res|rif|doorst|vb|vl|ynt|回复|回覆|答复|转发|轉寄|返信|転送)\s*(?:\[\d+\]|\(\d+\)"
    r"|\^\d+)?\s*[:：]\s*)+",
    re.I,
)
_TAG = re.compile(r"^\s*\[[^\]]{0,40}\]\s*")
_ID = re.compile(r"<[^<>\s]+>")
_ADDRESS = re.compile(r"[^\s<>,;:\"()\[\]]+@[^\s<>,;:\"()\[\]]+")
_LOOK_BACK = 20
"""How many earlier mails of the same subject a mail may be joined to (bounded work)."""


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
    values = list(people)
    try:
        pairs = getaddresses(values)
    except RecursionError:  # email's parser recurses per address: a hostile header's thousands
        pairs = [("", a) for v in values for a in _ADDRESS.findall(v)]
    found = {addr.strip().lower() for _, addr in pairs if "@" in addr}
    return sorted(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class Mail:
    """One message as a corpus-wide pass sees it (`group`)."""

    key: str
    """The caller's name for it (its `doc_id`)."""
    message_id: str = ""
    in_reply_to: str = ""
    references: Sequence[str] = ()
    subject: str = ""
    people: Sequence[str] = ()
    """Its From, To and Cc header values."""
    date: str = ""
    content: str = ""
    """A hash of its content (the corpus pass gives the record's `text_sha256` and
    `sha256`): what orders two mails of one date and Message-ID."""


def group(mails: Sequence[Mail], window_days: float = 30.0) -> dict[str, tuple[str, str]]:
    """Return, for the key of every mail in `mails`, its thread id and its parent's key
    (`""` for none); pure and deterministic.

    Mails are linked by the ids they name (`References`, `In-Reply-To` to a `Message-ID`,
    or two replies to the same missing root); and, for replies whose client dropped those
    headers, a mail to the one before it with the same `normalize_subject`, sharing an
    address, no more than `window_days` apart (any distance when a date is missing).
    "Before" is by content (`_order`): date (an undated mail first), then Message-ID,
    then `content`. A group's id is `thread_of`'s id of its first mail in that order. A
    parent is the mail `thread_of` names, else, for a mail linked by its subject alone,
    the one before it, when that was sent before it and is not a copy of it. A
    Message-ID two mails carry (a copy in two folders) names the first of them in that
    order. Only mails alike in all three (byte-identical copies) are told apart by their
    place in `mails`: the first is the one exact duplicates keep. The corpus pass
    applies the same rules on disk (`indexer.pipeline.output.dedup.threading`).
    """
    parents = Union({})
    rank = {m.key: (*_order(m.date, m.message_id, m.content), n) for n, m in enumerate(mails)}
    by_id: dict[str, str] = {}
    for m in sorted(mails, key=lambda m: rank[m.key]):
        if ids := _ID.findall(m.message_id):
            by_id.setdefault(ids[0], m.key)
    threads = {m.key: _thread(m) for m in mails}
    parent_of = {m.key: by_id.get(threads[m.key].parent, "") for m in mails}
    for m in mails:
        for named in named_ids(m.references, m.in_reply_to):
            parents.join(m.key, by_id.get(named, f"id:{named}"))
    buckets: dict[str, list[tuple[float | None, str, set[str], str]]] = {}
    for m in sorted(mails, key=lambda m: rank[m.key]):
        own = _ID.findall(m.message_id)
        item = (when(m.date), m.key, set(participants(m.people)), own[0] if own else "")
        buckets.setdefault(normalize_subject(m.subject), []).append(item)
    for subject, members in buckets.items():
        if not subject:  # an empty subject says nothing about a thread
            continue
        for k0, k1, parent in subject_links(members, window_days):
            parents.join(k0, k1)
            if parent and not threads[k1].parent:
                parent_of[k1] = k0
    first: dict[str, str] = {}
    for m in mails:
        root = parents.find(m.key)
        if root not in first or rank[m.key] < rank[first[root]]:
            first[root] = m.key
    return {m.key: (threads[first[parents.find(m.key)]].id, parent_of[m.key]) for m in mails}


def _order(date: str, message_id: str, content: str) -> tuple[float, str, str]:
    """Where a mail sits among others by its content alone (`group`): its date's time
    (0 for none: an undated mail is before every dated one), its Message-ID, `content`."""
    own = _ID.findall(message_id)
    return (when(date) or 0.0, own[0] if own else "", content)


def named_ids(references: Sequence[str], in_reply_to: str) -> list[str]:
    """The Message-IDs a mail names in its `References` values and its `In-Reply-To`."""
    return [i for r in (*references, in_reply_to) for i in _ID.findall(r)]


def subject_links(
    members: Iterable[tuple[float | None, str, set[str], str]], window_days: float
) -> Iterator[tuple[str, str, bool]]:
    """Yield `(earlier key, key, parent)` for each mail of one subject joined to one
    before it: the latest of the `_LOOK_BACK` before it within `window_days` sharing an
    address. `parent`: the earlier is the mail's parent: the mail is dated, later than the
    earlier (or the earlier has no date), and not a copy of it (the same Message-ID, in
    two folders, say). Two mails without a date are in no order: neither is a parent.

    `members` are `(time, key, addresses, Message-ID)` sorted by `group`'s order (then by place,
    for mails alike in it); they are read once, `_LOOK_BACK` held at a time (a subject
    may have a million mails)."""
    window = window_days * 86400
    recent: deque[tuple[float | None, str, set[str], str]] = deque(maxlen=_LOOK_BACK)
    for t1, k1, people, mid1 in members:
        for t0, k0, earlier, mid0 in reversed(recent):
            near = t0 is None or t1 is None or abs(t1 - t0) <= window
            if near and earlier & people:
                after = t1 is not None and (t0 is None or t0 < t1)
                yield k0, k1, after and not (mid0 and mid0 == mid1)
                break
        recent.append((t1, k1, people, mid1))


def _thread(m: Mail) -> Thread:
    return thread_of(
        message_id=m.message_id, in_reply_to=m.in_reply_to, references=m.references,
        subject=m.subject, people=m.people, date=m.date,
    )  # fmt: skip


def when(date: str) -> float | None:
    """The POSIX time of a Date header; None when there is none (no window applies)."""
    try:
        return parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


class Union:
    """Union-find over strings; `find` gives the smallest member, so roots are stable.

    `up` holds each member's link: a dict, or a mapping kept on disk (the corpus pass's
    SQLite table), so a million mails need not be in memory."""

    def __init__(self, up: MutableMapping[str, str]) -> None:
        self.up = up

    def find(self, item: str) -> str:
        up = self.up
        root = item
        while up.get(root, root) != root:
            root = up[root]
        while up.get(item, item) != root:
            up[item], item = root, up[item]
        return root

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            low, high = sorted((ra, rb))
            self.up[high] = low
