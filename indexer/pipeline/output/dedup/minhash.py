"""A document's shingle multiset, its MinHash signature and LSH bands (docs/dedup.md).

What near duplicates compare is the multiset of a document's `size`-word shingles
(by default single words: its bag of words). Each shingle is numbered by its
occurrence (the third "the" is the token `("the", 3)`), so the Jaccard similarity of
two documents' token sets is the weighted Jaccard of their multisets: the sum of the
smaller counts over the sum of the larger. Replacing 10% of a document's words leaves
about 0.82 of it; a re-wrapped copy or the same text in another format 1.0.

Deterministic by construction: words are hashed with CRC-32 (not Python's salted
`hash`), the permutations come from a fixed seed, and numpy's unsigned arithmetic wraps
the same way on every machine. A signature is `PERMUTATIONS` 32-bit minima of
`(a * x + b) mod (2**61 - 1)` over the tokens `x` (as `datasketch` computes them); its
first `bands * rows` values, cut as `layout` chooses for the threshold, are hashed
into the keys LSH buckets by.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

SHINGLE = 1
"""Words per shingle, by default (`[dedup] near_shingle`): word multisets."""
PERMUTATIONS = 112
MISSED = 1e-3
"""At most this share of the pairs at the threshold is never made candidates (`layout`)."""
SEED = 29
_PRIME = np.uint64((1 << 61) - 1)
_SHIFT = np.uint64(61)
_MASK = np.uint64(0xFFFFFFFF)
_MIX = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5,
     0x94D049BB133111EB, 0xBF58476D1CE4E5B9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD],
    dtype=np.uint64,
)  # fmt: skip
"""Odd multipliers, one per word of a shingle (so at most 8 words)."""
_OCCURRENCE = np.uint64(0x8CB92BA72F3D8DD7)
_BLOCK = 1024
"""Tokens hashed per step: `2 * _BLOCK * PERMUTATIONS` words of memory, in the cache."""

_rng = np.random.Generator(np.random.PCG64(SEED))
_A = _rng.integers(1, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)
_B = _rng.integers(0, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)
_ROW = _rng.integers(1, 1 << 63, size=PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
"""An odd multiplier per row: a band's key is the wrapped sum of its rows times these."""
_NUMBER = np.arange(PERMUTATIONS, dtype=np.uint64) << np.uint64(56)

Signature = npt.NDArray[np.uint32]
Tokens = npt.NDArray[np.uint32]


def tokens(words: Sequence[str] | Sequence[bytes], size: int = SHINGLE) -> Tokens:
    """The sorted 32-bit hashes of the multiset of `words`' `size`-word runs (one run of
    them all when shorter), each run numbered by its occurrence; empty for no words.
    A word is its text or its UTF-8 (`texthash.encoded_words`): the same tokens."""
    if not words:
        return np.zeros(0, dtype=np.uint32)
    k = min(size, len(words), len(_MIX))
    mixed = _bag(words) if k == 1 else _runs(words, k)
    with np.errstate(over="ignore"):
        at = np.arange(len(mixed), dtype=np.uint64)
        new = np.concatenate(([True], mixed[1:] != mixed[:-1]))
        starts = np.maximum.accumulate(np.where(new, at, 0))
        numbered = (mixed ^ ((at - starts) * _OCCURRENCE)) * _MIX[0]
    return _sorted_unique((numbered >> np.uint64(32)).astype(np.uint32))


def _bag(words: Sequence[str] | Sequence[bytes]) -> npt.NDArray[np.uint64]:
    """The sorted mixed hashes of single words: each distinct word hashed once, then
    repeated as often as it occurs (what sorting every word's hash gives)."""
    counts: Counter[str | bytes] = Counter(words)
    crc = np.fromiter(map(_crc, counts), dtype=np.uint64, count=len(counts))
    repeats = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
    with np.errstate(over="ignore"):
        mixed = crc * _MIX[0]
    order = np.argsort(mixed)
    return np.repeat(mixed[order], repeats[order])


def _runs(words: Sequence[str] | Sequence[bytes], k: int) -> npt.NDArray[np.uint64]:
    """The sorted mixed hashes of the `k`-word runs of `words`."""
    crc = np.fromiter(map(_crc, words), dtype=np.uint64, count=len(words))
    n = len(crc) - k + 1
    mixed = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(k):
            mixed ^= (crc[i : i + n] + np.uint64(i)) * _MIX[i]
    mixed.sort()
    return mixed


def _crc(word: str | bytes) -> int:
    return zlib.crc32(word if isinstance(word, bytes) else word.encode())


def _sorted_unique(values: Tokens) -> Tokens:
    """`np.unique(values)`, by a sort: numpy 2's hashing `unique` is several times
    slower on these arrays."""
    values = np.sort(values)
    keep = np.ones(len(values), dtype=bool)
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def signature(hashed: Tokens) -> Signature | None:
    """The MinHash signature of the token set `hashed`; None when it is empty.

    `(a * x + b) mod p` as datasketch computes it, the product wrapping at 2**64, the
    remainder by the Mersenne prime taken without a division: with `y = hi * 2**61 +
    lo`, `y mod p` is `hi + lo` less `p` when that is `p` or more."""
    if not len(hashed):
        return None
    low = np.full(PERMUTATIONS, _MASK, dtype=np.uint64)
    y = np.empty((min(_BLOCK, len(hashed)), PERMUTATIONS), dtype=np.uint64)
    high = np.empty_like(y)
    with np.errstate(over="ignore"):
        for at in range(0, len(hashed), _BLOCK):
            x = hashed[at : at + _BLOCK, None].astype(np.uint64)
            v, h = y[: len(x)], high[: len(x)]
            np.multiply(x, _A, out=v)
            v += _B
            np.right_shift(v, _SHIFT, out=h)
            v &= _PRIME
            v += h  # below p + 8
            np.subtract(v, _PRIME, out=h)  # wraps far above v unless v >= p
            np.minimum(v, h, out=v)
            v &= _MASK
            np.minimum(low, v.min(axis=0), out=low)
    return low.astype(np.uint32)


def layout(threshold: float) -> tuple[int, int]:
    """The LSH bands and rows for `threshold`: the most rows per band (the fewest
    candidates to verify) for which a pair of exactly that similarity shares no band
    with a probability of at most `MISSED`."""
    best = (PERMUTATIONS, 1)
    for rows in range(1, PERMUTATIONS + 1):
        bands = PERMUTATIONS // rows
        if (1 - threshold**rows) ** bands > MISSED:
            break
        best = (bands, rows)
    return best


def bands(sig: Signature, shape: tuple[int, int]) -> list[bytes]:
    """The LSH bucket keys of `sig` cut into `shape` (bands, rows): one 8-byte key per
    band, its number in the top byte and a hash of its rows below."""
    count, rows = shape
    used = count * rows
    with np.errstate(over="ignore"):
        mixed = (sig[:used].astype(np.uint64) * _ROW[:used]).reshape(count, rows).sum(axis=1)
        mixed = ((mixed ^ (mixed >> np.uint64(29))) >> np.uint64(8)) | _NUMBER[:count]
    raw = mixed.astype(">u8").tobytes()
    return [raw[i : i + 8] for i in range(0, len(raw), 8)]


def jaccard(a: Tokens, b: Tokens) -> float:
    """The Jaccard similarity of the token sets `a` and `b` (each sorted, unique)."""
    if not len(a) or not len(b):
        return 1.0 if len(a) == len(b) else 0.0
    at = np.searchsorted(b, a)
    at[at == len(b)] = 0
    both = int(np.count_nonzero(b[at] == a))
    return both / (len(a) + len(b) - both)
