"""A deterministic generator of mixed document corpora, for demos, tests and benchmarks.

`write_corpus(root, total_bytes, seed)` writes mail, CSV, JSON, JSONL, HTML, PDF and
text files in nested folders until about `total_bytes` are written. Same arguments,
same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from indexer._samples import minimal_pdf

WORDS = [
    "report",
    "revenue",
    "quarter",
    "board",
    "meeting",
    "budget",
    "forecast",
    "customer",
    "contract",
    "invoice",
    "shipment",
    "delay",
    "review",
    "policy",
    "audit",
    "risk",
    "market",
    "growth",
    "margin",
    "team",
    "project",
    "deadline",
    "release",
    "schedule",
    "incident",
    "summary",
    "decision",
    "approval",
    "vendor",
    "proposal",
    "estimate",
    "total",
    "north",
    "south",
    "region",
    "office",
    "plan",
    "strategy",
    "analysis",
    "result",
    "draft",
    "final",
    "update",
    "notes",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 6)))


def _mail(rng: random.Random, i: int) -> bytes:
    body = "\n\n".join(_paragraph(rng) for _ in range(rng.randint(2, 6)))
    return (
        f"From: Sender {i} <s{i}@example.com>\nTo: team@example.com\n"
        f"Subject: {_sentence(rng)[:60]}\nDate: Mon, {1 + i % 28} Jan 2024 10:00:00 +0000\n"
        f"Message-ID: <{i}@example.com>\nContent-Type: text/plain; charset=utf-8\n\n{body}\n"
    ).encode()


def _csv(rng: random.Random, i: int) -> bytes:
    rows = ["id,region,amount,note"]
    rows += [
        f'{r},{rng.choice(WORDS)},{rng.randint(1, 99999)},"{_sentence(rng)}"'
        for r in range(rng.randint(50, 400))
    ]
    return ("\n".join(rows) + "\n").encode()


def _json(rng: random.Random, i: int) -> bytes:
    items = ",".join(
        f'{{"id": {k}, "title": "{_sentence(rng)}", "tags": ["{rng.choice(WORDS)}"], '
        f'"score": {rng.random():.4f}}}'
        for k in range(rng.randint(10, 80))
    )
    return f"[{items}]".encode()


def _jsonl(rng: random.Random, i: int) -> bytes:
    lines = [f'{{"n": {k}, "text": "{_paragraph(rng)}"}}' for k in range(rng.randint(10, 60))]
    return ("\n".join(lines) + "\n").encode()


def _html(rng: random.Random, i: int) -> bytes:
    sections = "".join(
        f"<h2>{_sentence(rng)[:40]}</h2><p>{_paragraph(rng)}</p>"
        f"<ul><li>{rng.choice(WORDS)}</li><li>{rng.choice(WORDS)}</li></ul>"
        for _ in range(rng.randint(2, 8))
    )
    table = "".join(f"<tr><td>{k}</td><td>{rng.choice(WORDS)}</td></tr>" for k in range(5))
    return (
        f"<!doctype html><html><head><title>Page {i}</title><script>var x=1;</script></head>"
        f"<body><nav><a href='/'>home</a></nav><main><h1>Page {i}</h1>{sections}"
        f"<table><tr><th>k</th><th>v</th></tr>{table}</table></main></body></html>"
    ).encode()


def _pdf(rng: random.Random, i: int) -> bytes:
    pages = [
        [_sentence(rng)[:90] for _ in range(rng.randint(10, 30))] for _ in range(rng.randint(1, 8))
    ]
    return minimal_pdf(pages)


def _text(rng: random.Random, i: int) -> bytes:
    return ("\n\n".join(_paragraph(rng) for _ in range(rng.randint(3, 20))) + "\n").encode()


MAKERS: tuple[tuple[str, str, Callable[[random.Random, int], bytes]], ...] = (
    ("mail", "eml", _mail),
    ("sheets", "csv", _csv),
    ("data", "json", _json),
    ("logs", "jsonl", _jsonl),
    ("web", "html", _html),
    ("reports", "pdf", _pdf),
    ("notes", "txt", _text),
)


def write_corpus(root: Path, total_bytes: int, seed: int = 0) -> int:
    """Write a mixed corpus of about `total_bytes` under `root`; return the file count."""
    rng = random.Random(seed)
    written = count = 0
    while written < total_bytes:
        folder, ext, make = MAKERS[count % len(MAKERS)]
        data = make(rng, count)
        path = root / folder / f"{count // 1000:03d}" / f"{folder}-{count:06d}.{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written += len(data)
        count += 1
    return count


def write_mbox(path: Path, messages: int, seed: int = 0) -> int:
    """Write an mbox of `messages` generated mails (some with a body line starting "From ")."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with open(path, "wb") as handle:
        for i in range(messages):
            mail = _mail(rng, i)
            if i % 7 == 0:  # a body line starting with "From ", quoted the mboxrd way
                mail = mail.rstrip(b"\n") + b"\n>From the archive team: keep this.\n"
            block = b"From archive@example.com Mon Jan  1 10:00:00 2024\n" + mail + b"\n"
            handle.write(block)
            size += len(block)
    return size


def write_sample(root: Path) -> int:
    """Write `scripts/demo`'s sample corpus (~20 MB and a 500-message mbox) under `root`;
    return its file count. The README's sample summary line is a run over it (tested)."""
    files = write_corpus(root, 20_000_000, seed=1)
    write_mbox(root / "mail" / "archive.mbox", messages=500, seed=1)
    return files + 1
