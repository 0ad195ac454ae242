"""Mail threads and quotes over the whole corpus (docs/mail.md): each message's parent
`doc_id` and thread id, quoted text left out where its original is indexed, a quote
whose original is not kept once; whatever the walk order, worker count or night."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from outputs import committed, documents, threads_by_content

import indexer
from indexer.config import Config
from indexer.formats.eml.threads import thread_of

CONFIG = Config(
    workers=1, pdf_workers=1, shard_files=64, shard_min_files=2, shard_boundary_bits=2,
)  # fmt: skip
ALICE, BOB, CAROL = (
    "Alice <alice@example.org>",
    "Bob <bob@example.org>",
    "Carol <carol@example.org>",
)
ORIGINAL = (
    "The budget review moves to Thursday at ten in the large room upstairs.\n\n"
    "Please bring the quarterly figures for the northern region with you."
)
REPLY = "Thursday suits me, I will bring the figures and the projector."
LOST = "This paragraph comes from a message nobody kept in any folder at all."


def _mail(sender: str, to: str, subject: str, date: str, body: str, **ids: str) -> str:
    """A plain-text message; `ids` its Message-ID, In-Reply-To and References."""
    heads = {"message_id": "Message-ID", "in_reply_to": "In-Reply-To", "references": "References"}
    lines = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Date: {date}"]
    lines += [f"{heads[k]}: {v}" for k, v in ids.items()]
    return "\n".join([*lines, "", body, ""])


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _tree(src: Path, original: bool = True) -> None:
    """A thread over folders and formats, the replies first in walk order:

    - `a/sent.mbox`: Bob's reply (In-Reply-To the original), quoting it, re-wrapped,
      and quoting a paragraph of a message that is nowhere;
    - `b/later/answer.eml`: Carol's reply to Bob's, no threading headers (only the
      subject and the people), quoting Bob and the lost paragraph again;
    - `z/inbox/original.eml`: Alice's original (`original=False` leaves it out).
    """
    wrapped = ORIGINAL.replace("ten in the ", "ten in the\n")  # the quoting client re-wraps
    bob = _mail(
        BOB, ALICE, "Re: Budget review", "Tue, 2 Jun 2026 09:00:00 +0000",
        f"{REPLY}\n\nOn Mon, 1 Jun 2026, Alice wrote:\n{_quoted(wrapped)}\n>\n> {LOST}",
        message_id="<bob.1@example.org>", in_reply_to="<alice.1@example.org>",
        references="<alice.1@example.org>",
    )  # fmt: skip
    carol = _mail(
        CAROL, BOB, "AW: Budget review", "Wed, 3 Jun 2026 09:00:00 +0000",
        f"I will join you both.\n\nOn Tue, 2 Jun 2026, Bob wrote:\n{_quoted(REPLY)}\n>\n> {LOST}",
    )  # fmt: skip
    alice = _mail(
        ALICE, BOB, "Budget review", "Mon, 1 Jun 2026 09:00:00 +0000", ORIGINAL,
        message_id="<alice.1@example.org>",
    )  # fmt: skip
    (src / "a").mkdir(parents=True)
    (src / "a" / "sent.mbox").write_text(f"From bob@example.org Tue Jun  2 09:00:00 2026\n{bob}")
    (src / "b" / "later").mkdir(parents=True)
    (src / "b" / "later" / "answer.eml").write_text(carol)
    if original:
        _add_original(src, alice)


def _add_original(src: Path, alice: str | None = None) -> None:
    (src / "z" / "inbox").mkdir(parents=True, exist_ok=True)
    text = alice or _mail(
        ALICE, BOB, "Budget review", "Mon, 1 Jun 2026 09:00:00 +0000", ORIGINAL,
        message_id="<alice.1@example.org>",
    )  # fmt: skip
    (src / "z" / "inbox" / "original.eml").write_text(text)


def _messages(out: Path) -> dict[str, dict[str, Any]]:
    """The message records by a short name (`bob`, `carol`, `alice`)."""
    names = {"a/sent.mbox#1": "bob", "b/later/answer.eml": "carol", "z/inbox/original.eml": "alice"}
    return {names[p]: r for p, r in documents(out).items() if p in names}


def _texts(out: Path) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    for shard in sorted(out.glob("chunks-*.ndjson")):
        for line in shard.read_bytes().splitlines():
            chunk = json.loads(line)
            found.setdefault(chunk["path"], []).append(chunk["text"])
    return {p: "\n\n".join(t) for p, t in found.items()}


def test_parents_are_doc_ids_across_files_and_folders_whatever_the_walk_order(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    mails = _messages(tmp_path / "out")
    assert mails["alice"]["metadata"]["thread"]["parent"] == ""
    assert mails["bob"]["metadata"]["thread"]["parent"] == mails["alice"]["doc_id"]
    # no threading headers: joined by the subject and a shared address, within the window
    assert mails["carol"]["metadata"]["thread"]["parent"] == mails["bob"]["doc_id"]
    ids = {m["metadata"]["thread"]["id"] for m in mails.values()}
    assert len(ids) == 1
    indexer.run(tmp_path / "src", tmp_path / "two", replace(CONFIG, workers=2))
    assert committed(tmp_path / "two") == committed(tmp_path / "out")


def test_a_quote_goes_where_its_original_is_indexed_and_an_orphan_quote_stays_once(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    texts = _texts(tmp_path / "out")
    bob, carol = texts["a/sent.mbox#1"], texts["b/later/answer.eml"]
    assert REPLY in bob and "quarterly figures" not in bob  # Alice's words are hers alone
    assert texts["z/inbox/original.eml"].count("quarterly figures") == 1
    assert LOST in bob and LOST not in carol  # kept once: in the first that quotes it
    assert "I will join you both." in carol and carol.count(REPLY) == 0
    assert "wrote:" not in bob + carol  # an attribution goes with the quote it introduces
    assert sum(t.count("northern region") for t in texts.values()) == 1
    records = _messages(tmp_path / "out")
    shards = sorted((tmp_path / "out").glob("chunks-*.ndjson"))
    lines = [json.loads(x) for s in shards for x in s.read_text().splitlines()]
    bobs = [c for c in lines if c["path"] == "a/sent.mbox#1"]
    assert (
        [c["chunk"] for c in bobs]
        == list(range(len(bobs)))
        == list(range(records["bob"]["chunks"]))
    )
    assert any(c["meta"]["quoted"] and LOST in c["text"] for c in bobs)


def test_without_the_original_every_quote_is_kept_once_and_keep_quotes_keeps_all(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src", original=False)
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    texts = _texts(tmp_path / "out")
    assert "quarterly figures" in texts["a/sent.mbox#1"]  # no word of the archive lost
    assert "Alice wrote:" in texts["a/sent.mbox#1"]  # and what introduces it
    assert texts["b/later/answer.eml"].count(REPLY) == 0  # Bob's own words are indexed
    assert _messages(tmp_path / "out")["bob"]["metadata"]["thread"]["parent"] == ""
    indexer.run(tmp_path / "src", tmp_path / "kept", replace(CONFIG, keep_quotes=True))
    kept = _texts(tmp_path / "kept")
    assert LOST in kept["a/sent.mbox#1"] and LOST in kept["b/later/answer.eml"]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_night_the_original_arrives_commits_a_fresh_runs_bytes(
    tmp_path: Path, workers: int
) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    config = replace(CONFIG, workers=workers)
    _tree(src, original=False)
    indexer.run(src, out, config)
    assert "quarterly figures" in _texts(out)["a/sent.mbox#1"]
    _add_original(src)
    summary = indexer.run(src, out, config)
    assert summary.extracted == 1  # the replies' shards come from the previous run
    indexer.run(src, fresh, config)
    assert committed(out) == committed(fresh)
    mails = _messages(out)
    assert mails["bob"]["metadata"]["thread"]["parent"] == mails["alice"]["doc_id"]
    assert "quarterly figures" not in _texts(out)["a/sent.mbox#1"]
    (src / "z" / "inbox" / "original.eml").unlink()  # and the night it goes again
    indexer.run(src, out, config)
    indexer.run(src, tmp_path / "fresh2", config)
    assert committed(out) == committed(tmp_path / "fresh2")
    assert "quarterly figures" in _texts(out)["a/sent.mbox#1"]


def test_exact_duplicates_off_still_threads_and_a_run_without_mail_is_untouched(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", replace(CONFIG, exact="off"))
    mails = _messages(tmp_path / "out")
    assert mails["bob"]["metadata"]["thread"]["parent"] == mails["alice"]["doc_id"]
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("A note quoting nothing.\n")
    indexer.run(notes, tmp_path / "plain", CONFIG)
    assert all(
        r["metadata"]["thread"] == {"id": "", "parent": ""}
        for r in documents(tmp_path / "plain").values()
    )


def _plans(src: Path, names: list[str]) -> None:
    """Mails without threading headers, of one subject, between Alice and Bob, under
    `names`: three undated (in no order by date: told apart by Message-ID) and a dated
    reply naming none of them."""
    mails = [
        _mail(ALICE, BOB, "Plan", "", "The first plan.", message_id="<p1@example.org>"),
        _mail(BOB, ALICE, "Re: Plan", "", "A second plan.", message_id="<p2@example.org>"),
        _mail(ALICE, BOB, "AW: Plan", "", "A third plan.", message_id="<p3@example.org>"),
        _mail(BOB, ALICE, "Re: Plan", "Tue, 2 Jun 2026 09:00:00 +0000", "Agreed.",
              message_id="<p4@example.org>"),
    ]  # fmt: skip
    for name, mail in zip(names, mails, strict=True):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(mail)


def test_subject_linked_threads_are_the_same_under_paths_that_sort_otherwise(
    tmp_path: Path,
) -> None:
    """Which undated mail names the thread, and which is the dated reply's parent, is
    told by content: the same under other paths (other doc ids, another walk order)."""
    runs = {}
    for n, names in enumerate([
        ["a.eml", "b.eml", "c.eml", "d.eml"], ["d.eml", "c/b.eml", "b.eml", "a.eml"],
        ["m/3.eml", "m/1.eml", "z.eml", "m/2.eml"], ["x/y.eml", "q.eml", "r/s.eml", "b.eml"],
    ]):  # fmt: skip
        _plans(tmp_path / f"src{n}", names)
        indexer.run(tmp_path / f"src{n}", tmp_path / f"out{n}", CONFIG)
        runs[n] = threads_by_content(tmp_path / f"out{n}")
    assert runs[0] == runs[1] == runs[2] == runs[3]
    first = thread_of(message_id="<p1@example.org>").id
    assert {tid for tid, _ in runs[0].values()} == {first}
    by_path = documents(tmp_path / "out0")
    assert by_path["d.eml"]["metadata"]["thread"]["parent"] == by_path["c.eml"]["doc_id"]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_night_an_earlier_original_arrives_after_its_subject_only_reply(
    tmp_path: Path, workers: int
) -> None:
    """The first plan, undated and so first by content, arrives after the others, under
    a path that sorts after theirs: it names the thread from then on, as in a fresh run."""
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    config = replace(CONFIG, workers=workers)
    _plans(src, ["a/1.eml", "a/2.eml", "a/3.eml", "a/4.eml"])
    (src / "a" / "1.eml").unlink()
    indexer.run(src, out, config)
    before = threads_by_content(out)
    _plans(src, ["z/1.eml", "a/2.eml", "a/3.eml", "a/4.eml"])
    summary = indexer.run(src, out, config)
    assert summary.extracted == 1
    indexer.run(src, fresh, config)
    assert committed(out) == committed(fresh)
    mails = documents(out)
    first = thread_of(message_id="<p1@example.org>").id  # what the original's headers give
    assert {m["metadata"]["thread"]["id"] for m in mails.values()} == {first}
    assert {tid for tid, _ in before.values()} != {first}  # it names the thread it joins
    assert mails["a/4.eml"]["metadata"]["thread"]["parent"] == mails["a/3.eml"]["doc_id"]


@pytest.mark.slow
def test_the_dask_engine_threads_and_strips_quotes_as_the_local_engine(tmp_path: Path) -> None:
    _tree(tmp_path / "src")
    config = replace(CONFIG, workers=2, shard_files=8, shard_min_files=1)
    indexer.run(tmp_path / "src", tmp_path / "local", config)
    indexer.run(tmp_path / "src", tmp_path / "dask", replace(config, engine="dask"))
    assert committed(tmp_path / "dask") == committed(tmp_path / "local")
