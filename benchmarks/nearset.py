"""A labelled near-duplicate set, and pairwise precision and recall of clusters over it.

`write_set` writes `originals` distinct documents on a few topics (each topic's
documents drawn from one vocabulary, so distinct ones still share most words), and
for each original some variants labelled with it: 1-10% of its words replaced, its
lines re-wrapped, a boilerplate paragraph added, and the same text as `.html` and
`.docx`. Every file's label is its original's number. The tests use it too
(`tests/pipeline/test_near_dedup.py`).
"""

from __future__ import annotations

import itertools
import os
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from indexer.formats.office.samples import docx_file

_TOPICS = 4
_FOOTER = (
    "This message and any attachment are confidential and intended solely for the "
    "addressee. If you received it in error please notify the sender and delete it."
)


def _word(rng: random.Random) -> str:
    """A made-up word of letters (a digit would be normalised away by datatrove)."""
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(3, 10)))


def _vocabulary(topic: int) -> list[str]:
    rng = random.Random(topic)
    return [_word(rng) for _ in range(600)]


def _original(rng: random.Random, vocabulary: list[str]) -> list[str]:
    weights = [1 / (i + 1) for i in range(len(vocabulary))]  # Zipf-like, as prose is
    return rng.choices(vocabulary, weights, k=rng.randrange(150, 600))


def _lines(words: list[str], per_line: int) -> str:
    return "\n".join(" ".join(words[i : i + per_line]) for i in range(0, len(words), per_line))


def _edited(rng: random.Random, words: list[str], share: float) -> list[str]:
    out = list(words)
    for i in rng.sample(range(len(out)), max(1, int(share * len(out)))):
        out[i] = _word(rng)
    return out


def variants(rng: random.Random, words: list[str]) -> dict[str, bytes]:
    """The near duplicates of `words` by suffix: edited, re-wrapped, footed, HTML, DOCX."""
    body = _lines(words, 12)
    paragraphs = "".join(f"<w:p><w:r><w:t>{line}</w:t></w:r></w:p>" for line in body.split("\n"))
    return {
        "edit01.txt": _lines(_edited(rng, words, 0.01), 12).encode(),
        "edit05.txt": _lines(_edited(rng, words, 0.05), 12).encode(),
        "edit10.txt": _lines(_edited(rng, words, 0.10), 12).encode(),
        "rewrapped.txt": _lines(words, 7).encode(),
        "footer.txt": f"{body}\n\n{_FOOTER}\n".encode(),
        "page.html": f"<html><body><p>{body}</p></body></html>".encode(),
        "doc.docx": docx_file(paragraphs),
    }


def write_set(root: Path, originals: int, seed: int) -> dict[str, int]:
    """Write the set under `root`; return each file's label by its relative path."""
    rng = random.Random(seed)
    labels: dict[str, int] = {}
    for n in range(originals):
        words = _original(rng, _vocabulary(n % _TOPICS))
        folder = root / f"doc{n:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        files = {"original.txt": _lines(words, 12).encode(), **variants(rng, words)}
        for name, data in files.items():
            # The variants spread over the walk, not beside their original.
            where = folder if name == "original.txt" else root / f"v-{name[:6]}" / f"{n:05d}"
            where.mkdir(parents=True, exist_ok=True)
            (where / name).write_bytes(data)
            labels[(where / name).relative_to(root).as_posix()] = n
    return labels


def pairwise(labels: Mapping[str, int], clusters: Mapping[str, str]) -> tuple[float, float]:
    """Pairwise precision and recall of `clusters` (path -> cluster) against `labels`."""
    truth, found = _pairs(labels), _pairs(clusters)
    both = len(truth & found)
    return (both / len(found) if found else 1.0), (both / len(truth) if truth else 1.0)


def _pairs(groups: Mapping[str, object]) -> set[tuple[str, str]]:
    by: dict[object, list[str]] = defaultdict(list)
    for path, group in groups.items():
        by[group].append(path)
    return {pair for members in by.values() for pair in _combinations(sorted(members))}


def _combinations(members: Iterable[str]) -> Iterable[tuple[str, str]]:
    return itertools.combinations(members, 2)


def datatrove_clusters(texts: Mapping[str, str], work: Path) -> dict[str, str] | None:
    """datatrove's MinHash dedup (stages 1-3, its defaults: 5-grams, 14 x 8 hashes; words
    split at white space) over `texts`; each path's cluster (its own path when
    alone). None when datatrove is not installed."""
    os.environ.setdefault("TQDM_DISABLE", "1")  # its progress bars, on stderr
    try:
        from datatrove.data import Document
        from datatrove.pipeline.dedup.minhash import (
            MinhashConfig,
            MinhashDedupBuckets,
            MinhashDedupCluster,
            MinhashDedupSignature,
        )
    except ImportError:
        return None
    import logging

    from loguru import logger

    logger.remove()
    # Its tokenizers need spaCy (not installed): words split at white space instead.
    from datatrove.pipeline.dedup import minhash as stages

    stages.load_word_tokenizer = lambda language: _Split()
    logging.getLogger("datatrove").setLevel(logging.WARNING)
    paths = list(texts)
    config = MinhashConfig()
    docs = (Document(text=texts[p], id=str(i)) for i, p in enumerate(paths))
    signatures = MinhashDedupSignature(str(work / "sigs"), config=config)
    import xxhash

    # Its xxhash wrapper passes str, which this xxhash refuses: the bytes it meant.
    signatures._hash_func = lambda text: xxhash.xxh64_intdigest(text.encode())
    signatures.run(docs, rank=0, world_size=1)
    buckets = MinhashDedupBuckets(str(work / "sigs"), str(work / "buckets"), config=config)
    for rank in range(config.num_buckets):
        buckets.run(None, rank=rank, world_size=config.num_buckets)
    MinhashDedupCluster(
        str(work / "buckets"), str(work / "clusters"), config=config, save_cluster_id=True
    ).run()
    found = {p: p for p in paths}
    raw = (work / "clusters" / "000000.clusters").read_bytes() if paths else b""
    import struct

    for at in range(0, len(raw), 8):
        doc, cluster = struct.unpack("<II", raw[at : at + 8])
        found[paths[doc]] = f"c{cluster}"
    return found


class _Split:
    """A word tokenizer for datatrove: its text normalisation, then white space."""

    @staticmethod
    def word_tokenize(text: str) -> list[str]:
        return text.split()
