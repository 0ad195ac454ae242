"""The corpus pass's threads on disk (`dedup.threading.Threads`) follow `threads.group`."""

from __future__ import annotations

import random
from typing import Any

import mailthreads

from indexer._types import DEFAULT_OPTIONS
from indexer.formats import eml
from indexer.formats.eml.threads import Mail, group
from indexer.pipeline.output import shape
from indexer.pipeline.output.dedup.mail import introduces
from indexer.pipeline.output.dedup.threading import Threads


def _records(seed: int, count: int) -> list[dict[str, Any]]:
    """Document records (the stable shape) of generated conversations' messages."""
    found = []
    for n, mail in enumerate(mailthreads.threads(seed, count)):
        doc = eml.extract(mail.mime, "", DEFAULT_OPTIONS)
        found.append({"doc_id": f"{n:04d}", "metadata": shape.metadata(doc.metadata)})
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
    )  # fmt: skip


def test_the_pass_on_disk_gives_groups_threads_in_any_walk_order() -> None:
    records = _records(5, 40)
    expected = group([_mail(r) for r in records])
    assert sum(1 for _, parent in expected.values() if parent) > len(records) / 2
    assert _on_disk(records) == expected
    shuffled = _records(5, 40)
    random.Random(1).shuffle(shuffled)
    assert _on_disk(shuffled) == expected


def test_a_message_id_in_two_folders_names_the_first_copy_in_walk_order() -> None:
    def record(doc_id: str, mid: str, irt: str = "") -> dict[str, Any]:
        found = {"message_id": mid, "in_reply_to": irt, "subject": "Plan", "from": "a@x"}
        found["thread"] = {"id": f"id-{doc_id}", "parent": ""}
        return {"doc_id": doc_id, "metadata": shape.metadata(found)}

    walk = [record("z-copy", "<a@x>"), record("reply", "<b@x>", "<a@x>"), record("a", "<a@x>")]
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
