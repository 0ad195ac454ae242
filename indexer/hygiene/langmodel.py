"""py3langid's model, read the fast way: the same answers as its `classify`, for a
whole document's samples at once, with the model memory-mapped from a cache.

py3langid walks its byte n-gram automaton in a Python loop, a byte at a time, and
decompresses its 70 MB model (LZMA, in its wheel) in every process that loads it:
about 0.7 s in each worker, again in every recycled isolated one. Here the model is
decompressed once per machine into the user's cache folder (`cache_folder`) as
plain arrays every worker maps (loaded in milliseconds, its pages shared), and the
automaton is walked with numpy: it is an Aho-Corasick automaton over n-grams of at
most `depth` bytes, so the state after any byte is the state reached from the root
by the `depth` bytes ending there, and all positions can take each step together.
The scoring is py3langid's own arithmetic, in its order (`tests/hygiene` checks the
answers are identical, over the benchmark's 56 languages).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

LAYOUT = 1
"""The cache folder's layout: part of its name, so a new layout never reads an old one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Model:
    """The arrays of py3langid's model this module reads."""

    moves: Any
    """The automaton's distinct transition rows, flat: 256 next states each."""
    rows: Any
    """For each state, the offset of its row in `moves` (int64)."""
    output: Any
    """For each state, the feature it counts, -1 for none."""
    weights: Any
    """Per feature, per class: the naive Bayes log-probabilities (float32)."""
    prior: Any
    """Per class: the prior log-probabilities (float32)."""
    classes: tuple[str, ...]
    depth: int
    """The longest n-gram's bytes: the states are determined by this many bytes."""
    aliases: tuple[tuple[int, int], ...]
    """(first, duplicate) columns of labels the model has twice (py3langid's `srl`)."""
    pad: int
    """A byte on which the root stays the root (one no n-gram starts with: 0xFF, never
    in UTF-8), put before each sample by `_walk`."""


def classify(samples: Sequence[str]) -> list[tuple[str, float]]:
    """Return py3langid's `classify` of each sample (`norm_probs=True`): its language
    code and probability, as py3langid gives them."""
    if not samples:
        return []
    model = _model()
    encoded = [_encode(s) for s in samples]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    states = _walk(model, b"".join(encoded), lengths)
    features = model.output[states]
    owner = np.repeat(np.arange(len(encoded), dtype=np.int64), lengths)
    found = features >= 0
    width = len(model.weights)
    keys = owner[found] * width + features[found]
    unique, first, counts = np.unique(keys, return_index=True, return_counts=True)
    # py3langid counts with a Counter: each sample's features in order of first sight.
    # The samples follow each other in `keys`, so that is the order of `first` alone.
    order = np.argsort(first)
    unique, counts = unique[order], counts[order]
    bounds = np.searchsorted(unique // width, np.arange(len(encoded) + 1))
    scores = np.empty((len(encoded), len(model.classes)), dtype=np.float32)
    for i in range(len(encoded)):
        lo, hi = bounds[i], bounds[i + 1]
        if lo == hi:
            scores[i] = 0.0  # no feature: py3langid's uniform scores
            continue
        weights = model.weights[(unique[lo:hi] % width).astype(np.intp)]
        scores[i] = np.log1p(counts[lo:hi].astype(np.float32)) @ weights + model.prior
    return _decided(model, scores, lengths)


def _decided(model: Model, scores: Any, lengths: Any) -> list[tuple[str, float]]:
    """py3langid's `_decide` and `classify` (`norm_probs`) of each row of `scores`,
    its raw scores, in its arithmetic: a float32 temperature of 1/sqrt(bytes), the
    softmax, the aliased columns folded into their first."""
    scale = np.array([1.0 / math.sqrt(int(n) or 1) for n in lengths], dtype=np.float32)
    scores *= scale[:, None]
    np.exp(scores - scores.max(axis=1, keepdims=True), out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    for i, j in model.aliases:
        scores[:, i] += scores[:, j]
        scores[:, j] = 0.0
    best = scores.argmax(axis=1)
    probability = scores[np.arange(len(best)), best]
    return [
        (model.classes[b], float(p))
        for b, p in zip(best.tolist(), probability.tolist(), strict=True)
    ]


def _encode(text: str) -> bytes:
    """py3langid's `_encode` of a str."""
    if text.isupper():
        text = text.lower()
    return unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")


def _walk(model: Model, data: bytes, lengths: Any) -> Any:
    """The automaton's state after each byte of `data`, walked from the root at the
    start of each sample (`lengths` bytes each).

    Each sample is preceded by `depth - 1` bytes of `model.pad`, on which the root
    stays the root: every position then takes every step, its first ones (those that
    would read before its sample) from the root to the root, with no index arrays."""
    gap = model.depth - 1
    owner = np.repeat(np.arange(len(lengths), dtype=np.intp), lengths)
    at = np.arange(len(data), dtype=np.intp) + (owner + 1) * gap  # each byte's padded place
    letters = np.full(len(data) + len(lengths) * gap, model.pad, dtype=np.intp)
    letters[at] = np.frombuffer(data, dtype=np.uint8)
    end = len(letters)
    states: Any = np.zeros(end - gap, dtype=np.intp)  # those of padded places gap...end-1
    for back in range(gap, -1, -1):
        states = model.moves[model.rows[states] + letters[gap - back : end - back]]
    return states[at - gap]


@functools.cache
def _model() -> Model:
    """The model, from the cache (made on first use), else decompressed in memory."""
    source = _source()
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    folder = cache_folder() / f"py3langid-{digest}-{LAYOUT}"
    try:
        return _mapped(folder)
    except (OSError, ValueError, KeyError):
        pass
    arrays = _decompressed(source)
    try:
        _save(arrays, folder)
        return _mapped(folder)
    except (OSError, ValueError, KeyError):  # a read-only home: every process decompresses
        return _made(arrays)


def cache_folder() -> Path:
    """Where the decompressed model is kept: `$XDG_CACHE_HOME/indexer`, else
    `~/.cache/indexer`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "indexer"


def _source() -> Path:
    from py3langid import langid

    return Path(langid.MODEL_DIR / langid.MODEL_FILE)


def _decompressed(source: Path) -> dict[str, Any]:
    """The arrays this module reads, from py3langid's model file."""
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, output = load_model(source)
    moves = np.frombuffer(nextmove, dtype=np.uint32 if nextmove.itemsize == 4 else np.uint16)
    rows = np.frombuffer(row, dtype=np.uint16 if row.itemsize == 2 else np.uint32)
    out = np.asarray(output, dtype=np.int32)
    return {
        "moves": moves,
        "rows": rows.astype(np.int64) * 256,
        "output": out,
        "weights": np.asarray(ptc).astype(np.float32),
        "prior": np.asarray(pc, dtype=np.float32),
        "classes": list(classes),
        "depth": _depth(moves, rows),
    }


def _depth(moves: Any, rows: Any) -> int:
    """The most transitions from the root any state needs: the longest n-gram."""
    seen = np.zeros(len(rows), dtype=bool)
    seen[0] = True
    frontier, depth = np.array([0]), 0
    while True:
        following = np.unique(moves.reshape(-1, 256)[rows[frontier]].ravel())
        following = following[~seen[following]]
        if not len(following):
            return depth
        seen[following] = True
        frontier, depth = following, depth + 1


def _save(arrays: dict[str, Any], folder: Path) -> None:
    """Write `arrays` into `folder` atomically (a rename): a process reading the cache
    sees all of it or none, and one that lost the race keeps the winner's."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".py3langid-", dir=folder.parent))
    try:
        for name in ("moves", "rows", "output", "weights", "prior"):
            np.save(work / f"{name}.npy", arrays[name], allow_pickle=False)
        about = {"classes": arrays["classes"], "depth": arrays["depth"]}
        (work / "about.json").write_text(json.dumps(about))
        try:
            work.rename(folder)
        except OSError:
            if not (folder / "about.json").exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _mapped(folder: Path) -> Model:
    about = json.loads((folder / "about.json").read_text())
    arrays = {
        name: np.asarray(np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False))
        for name in ("moves", "rows", "output", "weights", "prior")
    }
    return _made({**arrays, **about})


def _made(arrays: dict[str, Any]) -> Model:
    classes = tuple(arrays["classes"])
    first: dict[str, int] = {}
    aliases = []
    for i, c in enumerate(classes):
        if c in first:
            aliases.append((first[c], i))
        else:
            first[c] = i
    return Model(
        moves=arrays["moves"], rows=arrays["rows"], output=arrays["output"],
        weights=arrays["weights"], prior=arrays["prior"], classes=classes,
        depth=int(arrays["depth"]), aliases=tuple(aliases),
        pad=_pad(arrays["moves"], arrays["rows"]),
    )  # fmt: skip


def _pad(moves: Any, rows: Any) -> int:
    """The greatest byte on which the root stays the root. Raises ValueError when there
    is none (a model of n-grams starting with every byte: not py3langid's)."""
    root = moves[int(rows[0]) : int(rows[0]) + 256]
    for byte in range(255, -1, -1):
        if int(root[byte]) == 0:
            return byte
    raise ValueError("no byte keeps the automaton at its root")
