"""The fast reading of py3langid's model gives py3langid's own answers (`langmodel`),
from a cache of the decompressed model or without one; quality's numpy 3-gram count
gives the tuples' count."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import corpustexts
import numpy as np
import pytest
from py3langid import langid

from indexer.hygiene import langmodel, language, quality

DATA = Path(__file__).parents[2] / "benchmarks" / "data" / "languages.tsv"
ODD = [
    "",
    "?!?! ... ---",
    "12 345 6789",
    "ÉCOLE NATIONALE SUPÉRIEURE DES BEAUX-ARTS",
    "a lone surrogate \ud800 in the text",
    "e\u0301te\u0301 de\u0301compose\u0301",  # NFD: py3langid normalises to NFC
    "日本語のテキストと English words mixed 😀",
]


def texts() -> list[str]:
    rows = DATA.read_text(encoding="utf-8").splitlines()[1:]
    whole = [r.split("\t", 2)[2] for r in rows]
    return whole + [t[: language.SAMPLE_CHARS] for t in whole] + ODD


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own, the model loaded afresh from it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    langmodel._model.cache_clear()
    yield tmp_path / "indexer"
    langmodel._model.cache_clear()


@functools.cache
def reference() -> list[tuple[str, float]]:
    model = langid.MODEL_DIR / langid.MODEL_FILE
    identifier = langid.LanguageIdentifier.from_modelpath(model, norm_probs=True)
    return [identifier.classify(t) for t in texts()]


def test_the_answers_are_py3langids_own_in_56_languages(cache: Path) -> None:
    expected = reference()
    assert langmodel.classify(texts()) == expected  # together, as a document's chunks
    assert [langmodel.classify([t])[0] for t in texts()] == expected  # one at a time
    made = list(cache.iterdir())
    assert len(made) == 1 and (made[0] / "about.json").exists()
    langmodel._model.cache_clear()  # as a new worker process: read from the cache
    assert langmodel.classify(texts()) == expected


def test_without_a_writable_cache_the_model_is_read_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    langmodel._model.cache_clear()
    try:
        assert langmodel.classify(texts()[:40]) == reference()[:40]
    finally:
        langmodel._model.cache_clear()


def test_texts_too_short_to_classify_never_load_the_model(cache: Path) -> None:
    assert [g.code for g in language.guesses(["12", "Q3 2024", ""])] == ["", "", ""]
    assert langmodel._model.cache_info().currsize == 0
    assert not cache.exists()


def test_letters_count_str_isalpha_in_every_plane() -> None:
    samples = ["plain ascii 123", "Grüße, 東京 and ½ ⅓", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 \U00020000", "\ud800x"]
    for text in samples:
        assert language.letters(text) == sum(map(str.isalpha, text))


def counted(words: list[str]) -> float:
    """`top_trigram` as the tuples' Counter gives it."""
    if len(words) < 3:
        return 0.0
    counts = Counter(zip(words, words[1:], words[2:], strict=False))
    most = max(counts.values())
    if most < 2:
        return 0.0
    gram = min(g for g, n in counts.items() if n == most)
    total = sum(map(len, words))
    return round(min(most * sum(map(len, gram)), total) / total, 4)


def random_words(seed: int) -> list[str]:
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(rng.randint(2, 40))]
    return [rng.choice(vocabulary) for _ in range(rng.randint(0, 400))]


def test_the_top_trigram_is_the_tuples_count() -> None:
    for seed in range(200):
        words = random_words(seed)
        assert quality._top_trigram(words) == counted(words), seed


def test_a_hash_collision_falls_back_to_counting_tuples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quality, "_hash", lambda word: 7)  # every 3-gram one number
    words = ["a", "b", "c", "a", "b", "c", "x", "y", "z"]
    assert quality._top_grams(words) is None
    assert quality._top_trigram(words) == counted(words) == round(2 * 3 / 9, 4)
    for seed in range(50):
        words = random_words(seed)
        assert quality._top_trigram(words) == counted(words), seed


def walked_by_index(model: langmodel.Model, data: bytes, lengths: Any) -> Any:
    """The automaton's states as `_walk` found them before the pad bytes: each step
    taken by the positions far enough into their sample, chosen by an index array."""
    n = len(data)
    letters = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    into = np.arange(n, dtype=np.int64) - starts
    states = np.zeros(n, dtype=np.int64)
    for back in range(model.depth - 1, -1, -1):
        at = np.flatnonzero(into >= back)
        if len(at):
            states[at] = model.moves[model.rows[states[at]] + letters[at - back]]
    return states


def test_the_padded_walk_reaches_the_states_of_the_walk_by_index() -> None:
    """Over the corpus's texts, the benchmark's and random bytes (0xFF too: the pad
    itself inside a sample), in batches with empty and one-byte samples."""
    model = langmodel._model()
    assert model.pad == 0xFF and model.depth > 1
    rng = random.Random(9)
    samples = [langmodel._encode(t) for t in texts() + list(corpustexts.texts()[::5])]
    samples += [rng.randbytes(rng.randrange(12)) for _ in range(300)] + [b"", b"a", b"\xff" * 9]
    rng.shuffle(samples)
    for at in range(0, len(samples), 37):
        batch = samples[at : at + 37]
        lengths = np.fromiter(map(len, batch), dtype=np.int64, count=len(batch))
        data = b"".join(batch)
        got = langmodel._walk(model, data, lengths)
        assert got.tolist() == walked_by_index(model, data, lengths).tolist()


def test_the_corpus_samples_get_py3langids_answers() -> None:
    """What the pipeline asks: `SAMPLE_CHARS` from the middle of real texts, a
    document's worth at a time."""
    found = corpustexts.texts()
    if not found:
        pytest.skip("../shared/corpus is not available")
    model = langid.MODEL_DIR / langid.MODEL_FILE
    identifier = langid.LanguageIdentifier.from_modelpath(model, norm_probs=True)
    samples = [language._sample(t) for t in found[::4]]
    for at in range(0, len(samples), 50):
        batch = samples[at : at + 50]
        assert langmodel.classify(batch) == [identifier.classify(t) for t in batch]
