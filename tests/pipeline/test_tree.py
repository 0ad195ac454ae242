"""Walk digests: what the unchanged-tree check compares (`indexer.pipeline.incremental.tree`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from indexer.config import Config
from indexer.pipeline.incremental.tree import (
    BATCH,
    DIGEST_BYTES,
    Digests,
    Tree,
    batch_digest,
    digest_batches,
)
from indexer.pipeline.walk.walker import Entry, iter_batches, policy_for, walk
from indexer.registry import default_registry

ENTRY = Entry(
    rel="mail/a.eml", path=b"/src/mail/a.eml", size=120,
    version="120:1700000000000000000:42:2049", skip=None,
)  # fmt: skip


@pytest.mark.parametrize(
    "change",
    [
        {"rel": "mail/b.eml"},
        {"version": "121:1700000000000000000:42:2049"},
        {"version": "120:1700000000000000001:42:2049"},
        {"version": "etag-1"},
        {"skip": "unreadable"},
        {"detail": "Permission denied"},
        {"mail": True},
    ],
)
def test_every_fact_of_an_entry_moves_its_batch_digest(change: dict[str, object]) -> None:
    assert batch_digest([ENTRY, replace(ENTRY, **change)]) != batch_digest([ENTRY, ENTRY])  # type: ignore[arg-type]


def test_the_order_and_the_number_of_entries_move_the_digest() -> None:
    other = replace(ENTRY, rel="mail/b.eml")
    assert batch_digest([ENTRY, other]) != batch_digest([other, ENTRY])
    assert batch_digest([ENTRY]) != batch_digest([ENTRY, ENTRY])


@pytest.mark.slow
def test_following_a_walk_yields_it_unchanged_and_digests_it_per_batch(corpus: Path) -> None:
    policy = policy_for(Config(), default_registry())
    entries = list(walk(corpus, policy))
    assert len(entries) > 2 * BATCH  # full batches and a partial last one
    digests = Digests()
    follow = digests.follow(iter(entries))
    assert [next(follow) for _ in range(BATCH + 1)] == entries[: BATCH + 1]
    assert digests.value is None, "set only when the walk has ended"
    assert list(follow) == entries[BATCH + 1 :]
    assert digests.value is not None
    parts = digest_batches(digests.value)
    assert parts == [batch_digest(batch) for batch in iter_batches(entries, BATCH)]
    assert all(len(part) == DIGEST_BYTES for part in parts)
    again = Digests()
    assert list(again.follow(walk(corpus, policy))) == entries
    assert again.value == digests.value, "the same tree, the same digests"


def test_an_entry_that_cannot_be_digested_leaves_no_digests() -> None:
    digests = Digests()
    odd = replace(ENTRY, version=2**64)  # type: ignore[arg-type]  # a plugin source's token
    list(digests.follow(iter([ENTRY, odd])))
    assert digests.value is None
    with pytest.raises(TypeError):
        batch_digest([odd])


def test_an_empty_walk_has_empty_digests() -> None:
    digests = Digests()
    assert list(digests.follow(iter([]))) == []
    assert digests.value == b""


def test_a_tree_survives_the_state_and_an_older_note_reads_as_none() -> None:
    tree = Tree(manifest="ab" * 32, keys="cd" * 32, pages=7, reused=9, digests=bytes(range(32)))
    assert Tree.from_json(tree.to_json()) == tree
    assert Tree.from_json("17") is None  # schema 5 states noted the run number
    assert Tree.from_json("{") is None
    assert Tree.from_json('{"manifest": "x"}') is None
    assert Tree.from_json('{"manifest":"","keys":"","pages":0,"reused":0,"digests":"zz"}') is None
