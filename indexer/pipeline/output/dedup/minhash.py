"""MinHash signatures over word shingles, and their LSH bands (docs/dedup.md).

Deterministic by construction: words are hashed with CRC-32 (not Python's salted
`hash`), the permutations come from a fixed seed, and numpy's unsigned arithmetic wraps
the same way on every machine. A signature is `PERMUTATIONS` 32-bit minima of
`(a * x + b) mod (2**61 - 1)` over the shingle hashes `x` (as `datasketch` computes
them); its `BANDS` bands of `ROWS` rows each are hashed into the keys LSH buckets by.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

SHINGLE = 3
"""Words per shingle, by default (`[dedup] near_shingle`)."""
BANDS, ROWS = 16, 7
PERMUTATIONS = BANDS * ROWS
SEED = 29
_PRIME = np.uint64((1 << 61) - 1)
_MASK = np.uint64(0xFFFFFFFF)
_MIX = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5,
     0x94D049BB133111EB, 0xBF58476D1CE4E5B9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD],
    dtype=np.uint64,
)  # fmt: skip
"""Odd multipliers, one per word of a shingle (so at most 8 words)."""
_BLOCK = 4096
"""Shingles hashed per step: a long document costs `_BLOCK * PERMUTATIONS` words of memory."""

_rng = np.random.Generator(np.random.PCG64(SEED))
_A = _rng.integers(1, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)
_B = _rng.integers(0, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)

Signature = npt.NDArray[np.uint32]


def shingles(words: Sequence[str], size: int = SHINGLE) -> npt.NDArray[np.uint64]:
    """The 32-bit hashes (as uint64) of the `size`-word runs of `words` (one of them all
    when shorter), each once; empty for no words."""
    if not words:
        return np.zeros(0, dtype=np.uint64)
    crc = np.array([zlib.crc32(w.encode()) for w in words], dtype=np.uint64)
    k = min(size, len(crc), len(_MIX))
    n = len(crc) - k + 1
    mixed = np.zeros(n, dtype=np.uint64)
    for i in range(k):
        mixed ^= (crc[i : i + n] + np.uint64(i)) * _MIX[i]
    return np.unique(mixed >> np.uint64(32))


def signature(words: Sequence[str], size: int = SHINGLE) -> Signature | None:
    """The MinHash signature of `words`' `size`-word shingles; None when there are none."""
    hashed = shingles(words, size)
    if not len(hashed):
        return None
    low = np.full(PERMUTATIONS, _MASK, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for at in range(0, len(hashed), _BLOCK):
            x = hashed[at : at + _BLOCK, None]
            values = ((x * _A + _B) % _PRIME) & _MASK
            np.minimum(low, values.min(axis=0), out=low)
    return low.astype(np.uint32)


def bands(sig: Signature) -> list[bytes]:
    """The LSH bucket keys of `sig`: one 9-byte key per band (its number and a hash)."""
    raw = sig.tobytes()
    step = ROWS * 4
    return [
        bytes((i,)) + hashlib.blake2b(raw[i * step : (i + 1) * step], digest_size=8).digest()
        for i in range(BANDS)
    ]


def similarity(a: Signature, b: Signature) -> float:
    """The estimated Jaccard similarity of the two signatures' shingle sets."""
    return float(np.count_nonzero(a == b)) / PERMUTATIONS
