"""Near duplicates: MinHash clusters decided in walk order, fresh equal to incremental."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from outputs import committed, document_records

import indexer
from indexer.config import Config
from indexer.pipeline.output.dedup import minhash, texthash
from indexer.pipeline.output.dedup.near import Clusters
from indexer.pipeline.output.records import doc_id

CONFIG = Config(
    workers=1, pdf_workers=1, shard_files=64, shard_min_files=4, shard_boundary_bits=3,
    near="mark",
)  # fmt: skip
TOPIC = [f"grid{i}" for i in range(300)]


def _text(seed: int, words: int = 200) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(TOPIC) for _ in range(words)]


def _edited(words: list[str], share: float, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"edit{rng.randrange(10**6)}" if rng.random() < share else w for w in words]


def _replaced(words: list[str], count: int, seed: int) -> list[str]:
    """`words` with `count` of them (by position) replaced by new words: the word
    multisets' Jaccard similarity is then exactly (n - count) / (n + count)."""
    out = list(words)
    for n, i in enumerate(random.Random(seed).sample(range(len(out)), count)):
        out[i] = f"new{seed}x{n}"
    return out


def _tree(root: Path) -> None:
    """Twelve distinct notes on one topic, and near copies of the first in later folders."""
    for i in range(12):
        (root / f"n{i:02d}").mkdir(parents=True)
        (root / f"n{i:02d}" / "note.txt").write_text(" ".join(_text(i)) + "\n")
    base = _text(0)
    (root / "n03" / "edited.txt").write_text(" ".join(_edited(base, 0.01, 1)) + "\n")
    rewrapped = "\n".join(" ".join(base[j : j + 9]) for j in range(0, len(base), 9))
    (root / "n07" / "rewrapped.md").write_text(rewrapped + "\n")
    (root / "n09" / "far.txt").write_text(" ".join(_edited(base, 0.5, 2)) + "\n")
    (root / "n10" / "tenth.txt").write_text(" ".join(_replaced(base, 18, 4)) + "\n")


def _clusters(out: Path) -> dict[str, tuple[str, bool]]:
    return {
        str(r["path"]): (r["metadata"]["near_duplicate"]["cluster"],
                         r["metadata"]["near_duplicate"]["representative"])
        for r in document_records(out)
    }  # fmt: skip


def test_near_copies_join_the_first_documents_cluster_and_distinct_notes_keep_their_own(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    clusters = _clusters(tmp_path / "out")
    first = doc_id("n00/note.txt")
    assert clusters["n00/note.txt"] == (first, True)
    assert clusters["n03/edited.txt"] == clusters["n07/rewrapped.md"] == (first, False)
    assert clusters["n10/tenth.txt"] == (first, False)  # 9% of its words replaced: 0.83
    for path in [f"n{i:02d}/note.txt" for i in range(1, 12)] + ["n09/far.txt"]:
        assert clusters[path] == (doc_id(path), True)


def test_drop_writes_no_chunks_for_a_near_duplicate_and_off_clusters_nothing(
    tmp_path: Path,
) -> None:
    _tree(tmp_path / "src")
    indexer.run(tmp_path / "src", tmp_path / "drop", replace(CONFIG, near="drop"))
    records = {r["path"]: r for r in document_records(tmp_path / "drop")}
    assert records["n03/edited.txt"]["chunks"] == records["n07/rewrapped.md"]["chunks"] == 0
    assert records["n03/edited.txt"]["duplicate_of"] == ""  # near, not exact
    assert records["n00/note.txt"]["chunks"] == 1
    indexer.run(tmp_path / "src", tmp_path / "off", replace(CONFIG, near="off"))
    assert all(c == (doc_id(p), True) for p, c in _clusters(tmp_path / "off").items())


def _new_near_copy_first(src: Path) -> None:
    (src / "a").mkdir()
    (src / "a" / "early.txt").write_text(" ".join(_edited(_text(0), 0.02, 3)) + "\n")


def _representative_deleted(src: Path) -> None:
    (src / "n00" / "note.txt").unlink()


def _representative_renamed_last(src: Path) -> None:
    (src / "z").mkdir()
    (src / "n00" / "note.txt").rename(src / "z" / "note.txt")


NIGHTS: dict[str, Callable[[Path], None]] = {
    "a new near duplicate first in the walk": _new_near_copy_first,
    "the representative deleted": _representative_deleted,
    "the representative renamed to the end": _representative_renamed_last,
}


@pytest.mark.parametrize("mode", ["mark", "drop"])
@pytest.mark.parametrize("night", NIGHTS)
def test_each_incremental_night_commits_a_fresh_runs_clusters_and_bytes(
    tmp_path: Path, night: str, mode: str
) -> None:
    src, out, fresh = tmp_path / "src", tmp_path / "out", tmp_path / "fresh"
    config = replace(CONFIG, near=mode)
    _tree(src)
    indexer.run(src, out, config)
    NIGHTS[night](src)
    indexer.run(src, out, config)
    indexer.run(src, fresh, config)
    assert committed(out) == committed(fresh)
    clusters = _clusters(fresh)
    representative = {
        "a new near duplicate first in the walk": "a/early.txt",
        "the representative deleted": "n03/edited.txt",
        "the representative renamed to the end": "n03/edited.txt",
    }[night]
    assert clusters[representative] == (doc_id(representative), True)
    assert clusters["n07/rewrapped.md"] == (doc_id(representative), False)


@pytest.mark.parametrize("threshold", [0.7, 0.8, 0.9])
def test_the_threshold_is_the_exact_jaccard_of_the_word_multisets(threshold: float) -> None:
    """Replacing k of n words leaves (n - k) / (n + k): the largest k at or above the
    threshold joins, one more does not, for every seed (an estimate would err near it)."""
    n = 300
    k = max(k for k in range(n) if (n - k) / (n + k) >= threshold)
    for seed in range(8):
        base = [random.Random(seed).choice(TOPIC) for _ in range(n)]
        clusters = Clusters(threshold)
        assert clusters.assign("base", base) == "base"
        assert clusters.assign("near", _replaced(base, k, seed)) == "base"
        assert clusters.assign("far", _replaced(base, k + 1, seed + 100)) == "far"
        clusters.close()


def test_word_multisets_count_repeats_and_ignore_order() -> None:
    words = ["tax", "tax", "form", "due"]
    assert minhash.jaccard(minhash.tokens(words), minhash.tokens(words[::-1])) == 1.0
    assert minhash.jaccard(minhash.tokens(words), minhash.tokens(words[1:])) == 0.75
    assert minhash.jaccard(minhash.tokens(words), minhash.tokens(words, 3)) == 0.0


@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.8, 0.9, 0.95])
def test_the_band_layout_makes_nearly_every_pair_at_the_threshold_a_candidate(
    threshold: float,
) -> None:
    bands, rows = minhash.layout(threshold)
    assert bands * rows <= minhash.PERMUTATIONS
    assert (1 - threshold**rows) ** bands <= minhash.MISSED
    assert (1 - threshold ** (rows + 1)) ** (minhash.PERMUTATIONS // (rows + 1)) > minhash.MISSED


def test_the_clustering_version_is_in_the_config_digest_only_with_near_duplicates_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unchanged tree is re-decided when the clustering changes, and only then."""
    import indexer.config

    on, off = Config(near="mark"), Config()
    before = on.digest(), off.digest()
    monkeypatch.setattr(indexer.config, "NEAR_VERSION", indexer.config.NEAR_VERSION + 1)
    assert on.digest() != before[0]
    assert off.digest() == before[1]
    assert replace(off, near_shingle=3, near_threshold=0.5).digest() == before[1]
    assert replace(on, near_shingle=3).digest() != on.digest()


def test_the_ascii_word_split_is_the_patterns_and_tokens_take_either_form() -> None:
    """`encoded_words` splits ASCII by a byte table, other text by the pattern: the same
    words; and the MinHash tokens of a word's text and of its UTF-8 are the same."""
    texts = [
        "Tax_Form-2024 is DUE.\tNow\x1fthen\x0bagain",
        "Ünïcode ﬁne İstanbul straße",
        "a\x00b\x7fc  d,e;f",
        "",
        "   ",
    ]
    rng = random.Random(3)
    alphabet = [chr(c) for c in range(128)]
    texts += ["".join(rng.choice(alphabet) for _ in range(60)) for _ in range(300)]
    for text in texts:
        encoded = texthash.encoded_words(text)
        assert encoded == [w.encode() for w in texthash.words(text)], repr(text)
        for size in (1, 3):
            as_text = minhash.tokens(texthash.words(text), size)
            assert minhash.tokens(encoded, size).tolist() == as_text.tolist()


def test_the_signature_is_datasketchs_arithmetic() -> None:
    """The remainder by the Mersenne prime taken by shifts equals numpy's `%` of the
    wrapped `a * x + b`, at the extremes of a 32-bit token too."""
    import numpy as np

    rng = np.random.default_rng(5)
    sets = [np.array([0, 1, 0xFFFFFFFE, 0xFFFFFFFF], dtype=np.uint32)]
    sets += [np.unique(rng.integers(0, 1 << 32, size=n).astype(np.uint32)) for n in (1, 999, 3000)]
    for tokens in sets:
        x = tokens[:, None].astype(np.uint64)
        with np.errstate(over="ignore"):
            values = ((x * minhash._A + minhash._B) % minhash._PRIME) & minhash._MASK
        expected = values.min(axis=0).astype(np.uint32)
        assert (minhash.signature(tokens) == expected).all()
