"""The text, json and csv inputs of suite `kinds`, and its single-core clock.

Realistic generated documents (seeded, so every run measures the same bytes), and
the larger real files of ../shared/corpus when it is there.
"""

from __future__ import annotations

import csv
import io
import random
import time
from collections.abc import Callable
from typing import Literal

import orjson

import indexer
from benchmarks.common import SHARED_CORPUS as CORPUS

CORPUS_FILES = (
    "json-nativejson-benchmark/twitter.json",
    "jsonl-simdjson/amazon_cellphones.ndjson",
    "csv-csvkit/realdata/ks_1033_data.csv",
    "csv-csvkit/realdata/census_2000/determination.csv",
    "csv-messytables/211.csv",
    "unstructured-example-docs/norwich-city.txt",
    "unstructured-example-docs/language-docs/UDHR_first_article_all.txt",
)
WORDS = (
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "they", "you", "were", "her", "she", "there", "been", "one", "all", "we", "their",
    "has", "would", "when", "if", "report", "county", "district", "payment", "federal", "grant",
    "quarter", "total", "annual", "revenue", "école", "naïve",
)  # fmt: skip


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(6, 18))
    return " ".join(words).capitalize() + "."


def prose(rng: random.Random, size: int) -> bytes:
    """Paragraphs of 2-7 sentences, separated by blank lines, about `size` bytes."""
    parts: list[str] = []
    total = 0
    while total < size:
        para = " ".join(sentence(rng) for _ in range(rng.randint(2, 7)))
        parts.append(para)
        total += len(para) + 2
    return "\n\n".join(parts).encode()


def record(rng: random.Random, i: int) -> dict[str, object]:
    return {
        "id": i,
        "user": {"name": f"user{rng.randint(1, 99999)}", "verified": rng.random() < 0.1},
        "text": sentence(rng),
        "tags": rng.sample(WORDS, k=rng.randint(0, 4)),
        "score": round(rng.random() * 100, 3),
        "created": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T12:00:00Z",
    }


def json_array(rng: random.Random, size: int) -> bytes:
    records: list[dict[str, object]] = []
    total = 0
    while total < size:
        records.append(record(rng, len(records)))
        total += 190
    return orjson.dumps(records)


def jsonl(rng: random.Random, size: int) -> bytes:
    lines: list[bytes] = []
    total = 0
    while total < size:
        lines.append(orjson.dumps(record(rng, len(lines))))
        total += len(lines[-1]) + 1
    return b"\n".join(lines) + b"\n"


def table(rng: random.Random, rows: int, quoting: Literal[0, 1]) -> bytes:
    """An 8-column export; QUOTE_MINIMAL quotes the notes that hold commas or quotes."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=quoting, lineterminator="\r\n")
    writer.writerow(["id", "name", "email", "city", "note", "amount", "date", "flag"])
    for i in range(rows):
        note = sentence(rng)
        if i % 5 == 0:
            note += ' Said "fine", then left'
        writer.writerow(
            [i, f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}", f"u{i}@example.com",
             rng.choice(WORDS), note, f"{rng.random() * 1000:.2f}",
             f"2024-01-{i % 28 + 1:02d}", rng.choice(("yes", "no"))]
        )  # fmt: skip
    return out.getvalue().encode()


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The least CPU time of `repeat` runs: a single-core figure even on a busy machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def data_rows(path: str, data: bytes) -> int:
    """The number of (non-blank) data rows: the last chunk's last row."""
    last: int = indexer.extract(path, data).chunks[-1].meta["rows"][1]
    return last


def inputs(scale: float) -> list[tuple[str, str, str, bytes]]:
    rng = random.Random(20240601)
    mb = int(4_000_000 * scale)
    rows = int(200_000 * scale)
    out = [
        ("text", "generated prose", "doc.txt", prose(rng, mb)),
        ("json", "generated array of records", "doc.json", json_array(rng, mb)),
        ("json", "generated JSONL records", "doc.jsonl", jsonl(rng, mb)),
        ("csv", "generated, minimal quoting", "doc.csv", table(rng, rows, csv.QUOTE_MINIMAL)),
        ("csv", "generated, every field quoted", "doc.csv", table(rng, rows, csv.QUOTE_ALL)),
    ]
    if CORPUS.is_dir():
        for relpath in CORPUS_FILES:
            kind = indexer.registry.default_registry().for_path(relpath).kind
            out.append((kind, relpath, relpath, (CORPUS / relpath).read_bytes()))
    return out
