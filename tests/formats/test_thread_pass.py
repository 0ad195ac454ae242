"""The corpus pass's threads on disk (`dedup.threading.Threads`) follow `threads.group`."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import mailthreads

from indexer._types import DEFAULT_OPTIONS
from indexer.formats import eml
from indexer.formats.eml.threads import Mail, group, thread_of
from indexer.pipeline.output import shape
from indexer.pipeline.output.dedup.mail import introduces
from indexer.pipeline.output.dedup.threading import Threads


def _records(seed: int, count: int) -> list[dict[str, Any]]:
    """Document records (the stable shape) of generated conversations' messages."""
    found = []
    for n, mail in enumerate(mailthreads.threads(seed, count)):
        doc = eml.extract(mail.mime, "", DEFAULT_OPTIONS)
        text = "\n".join(c.text for c in doc.chunks).encode()
        found.append({
            "doc_id": f"{n:04d}", "sha256": hashlib.sha256(mail.mime).hexdigest(),
            "text_sha256": hashlib.sha256(text).hexdigest(),
            "metadata": shape.metadata(doc.metadata),
        })  # fmt: skip
    return found


def _on_disk(records: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    threads = Threads()
    try:
        for record in records:
            threads.add(record)
        threads.finish()
        threads.assign(records)
    finally:
        threads.close()
    return {
        str(r["doc_id"]): (r["metadata"]["thread"]["id"], r["metadata"]["thread"]["parent"])
        for r in records
    }


def _mail(record: dict[str, Any]) -> Mail:
    meta = record["metadata"]
    return Mail(
        key=str(record["doc_id"]), message_id=meta["message_id"], in_reply_to=meta["in_reply_to"],
        references=meta["references"].split(), subject=meta["subject"],
        people=[meta["from"], meta["to"]], date=meta["date"],
        content=f"{record['text_sha256']} {record['sha256']}",
    )  # fmt: skip


def _message(doc_id: str, mid: str, subject: str, *, date: str = "", irt: str = "",
             body: str = "") -> dict[str, Any]:  # fmt: skip
    """A message's document record as staging writes it (its thread from itself)."""
    people = ("ann@example.org", "bob@example.org")
    meta: dict[str, Any] = {
        "message_id": mid, "in_reply_to": irt, "subject": subject, "from": people[0],
        "to": people[1], "date": date,
    }  # fmt: skip
    found = thread_of(message_id=mid, in_reply_to=irt, subject=subject, people=people)
    meta["thread"] = {"id": found.id, "parent": ""}
    content = "\n".join([mid, subject, date, body]).encode()
    return {
        "doc_id": doc_id, "sha256": hashlib.sha256(content).hexdigest(),
        "text_sha256": hashlib.sha256(content + b"text").hexdigest(),
        "metadata": shape.metadata(meta),
    }  # fmt: skip


def _by_content(records: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """The pass's threads, each message and its parent named by content (its sha256),
    not by `doc_id` (a path's): what two trees of the same mails must agree on."""
    found = _on_disk(records)
    assert found == group([_mail(r) for r in records])
    sha = {r["doc_id"]: r["sha256"] for r in records}
    return {sha[did]: (tid, sha.get(parent, "")) for did, (tid, parent) in found.items()}


def test_the_pass_on_disk_gives_groups_threads_in_any_walk_order() -> None:
    records = _records(5, 40)
    expected = group([_mail(r) for r in records])
    assert sum(1 for _, parent in expected.values() if parent) > len(records) / 2
    assert _on_disk(records) == expected
    shuffled = _records(5, 40)
    random.Random(1).shuffle(shuffled)
    assert _on_disk(shuffled) == expected


def test_subject_links_and_thread_ids_follow_content_not_paths_or_walk_order() -> None:
    """Two undated mails of one subject, and a dated reply naming neither: which of
    the two is first (and names the thread) and which is the reply's parent are told
    by Message-ID, whatever their doc_ids (paths) and walk order. A `doc_id` order
    decided both before."""
    mails = [
        ("<u1@example.org>", "Plan", ""), ("<u2@example.org>", "Re: Plan", ""),
        ("<d@example.org>", "AW: Plan", "Tue, 2 Jan 2024 10:00:00 +0000"),
    ]  # fmt: skip
    one = [_message(f"k{n}", mid, subject, date=d) for n, (mid, subject, d) in enumerate(mails)]
    two = [_message(f"k{1 - n if n < 2 else n}", *m[:2], date=m[2]) for n, m in enumerate(mails)]
    found = _by_content(one)
    assert _by_content(two) == found == _by_content(one[::-1]) == _by_content(two[::-1])
    u1, u2, d = (r["sha256"] for r in one)
    first = thread_of(message_id="<u1@example.org>").id
    assert found == {u1: (first, ""), u2: (first, ""), d: (first, u2)}


def test_a_reply_to_a_message_id_two_unlike_messages_carry_names_one_by_content() -> None:
    """A Message-ID in two folders, the copies' bytes unlike (one more header, say):
    the reply's parent is the same copy in any walk order and under any paths."""
    copies = [_message("c1", "<a@x>", "Plan", body="Status: RO"), _message("c2", "<a@x>", "Plan")]
    reply = _message("r", "<b@x>", "Re: Plan", irt="<a@x>")
    found = _by_content([copies[0], reply, copies[1]])
    assert found == _by_content([copies[1], reply, copies[0]])
    renamed = [{**copies[0], "doc_id": "c2"}, reply, {**copies[1], "doc_id": "c1"}]
    assert found == _by_content(renamed)
    earlier = min(copies, key=lambda r: (r["text_sha256"], r["sha256"]))
    assert found[reply["sha256"]][1] == earlier["sha256"]


def test_of_byte_identical_copies_a_reply_names_the_first_in_walk_order() -> None:
    """Copies alike in every byte are told apart by walk order alone: the parent is
    the first, the one exact duplicates keep."""
    walk = [_message("z-copy", "<a@x>", "Plan"), _message("reply", "<b@x>", "Re: Plan",
            irt="<a@x>"), _message("a", "<a@x>", "Plan")]  # fmt: skip
    found = _on_disk(walk)
    assert found["reply"][1] == "z-copy"
    assert found["a"][1] == found["z-copy"][1] == ""  # a copy is not its copy's reply
    parents = {key: parent for key, (_, parent) in group([_mail(r) for r in walk]).items()}
    assert parents == {key: parent for key, (_, parent) in found.items()}


def test_what_introduces_a_quote_is_told_from_quoted_text() -> None:
    for intro in (
        "On Mon, 1 Jun 2026, Alice <alice@example.org> wrote:",
        "Am Montag, 1. Juni 2026 um 10:00 schrieb Alice\n<alice@example.org>:",
        "-----Original Message-----",
        "Bob Chen <bob@example.org> 于2024年6月5日周一 上午10:00写道：",
    ):
        assert introduces(intro), intro
    header = "From: Alice\nSent: Monday, June 1, 2026 10:00\nTo: Bob; Carol; Dan\nSubject: Budget"
    for text in ("Please bring the figures: all of them.", "Thanks,\nBob", "", header):
        assert not introduces(text), text


def test_participants_of_a_header_too_long_for_the_email_parser_are_still_found() -> None:
    """email's address parser recurses once per address: a header of 20,000 addresses
    raised RecursionError in the corpus pass and failed the whole run."""
    from indexer.formats.eml.threads import participants

    many = ", ".join(f"user{i}@example.com" for i in range(20_000))
    found = participants([many, "Ann <Ann@Example.com>"])
    assert len(found) == 20_001 and "ann@example.com" in found
