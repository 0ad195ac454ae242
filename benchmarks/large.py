"""Peak memory of one large document: `scripts/bench large`.

Generates (once, under `--workdir`) a file of each `--mb` size per shape: a JSON
array of small objects, a JSON array of short strings, a JSON object of small
objects, JSON Lines and plain text.
Each goes alone through `indexer run --workers 1` from this checkout (`--chunking`
packed or blocks), and the table gives the peak RSS of the parent and of the largest
worker (from `run.json`) as megabytes and as multiples of the file's size; then, in a
fresh process, the extractor alone (`indexer.extract` of the file's bytes, which the
peak includes): `extract_x`. Numbers, not a test: a document past the general
workers' cap fails as `out_of_memory` (its status is shown).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import cached_tree, fresh_dir, load, run_command

_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")


def _object(rng: random.Random, i: int) -> str:
    item = {"id": i, "name": " ".join(rng.choices(_WORDS, k=6)), "score": rng.random()}
    return json.dumps(item | {"tags": rng.choices(_WORDS, k=3)}, separators=(",", ":"))


def _string(rng: random.Random, i: int) -> str:
    return json.dumps(" ".join(rng.choices(_WORDS, k=4)))


def _entry(rng: random.Random, i: int) -> str:
    return f'"key-{i}":' + _object(rng, i)


def _line(rng: random.Random, i: int) -> str:
    return json.dumps({"id": i, "name": " ".join(rng.choices(_WORDS, k=4))}) + "\n"


def _paragraph(rng: random.Random, i: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randrange(20, 80))) + ".\n\n"


SHAPES: dict[str, tuple[str, Callable[[random.Random, int], str], str, str, str]] = {
    "json_objects": ("big.json", _object, "[", ",", "]\n"),
    "json_strings": ("big.json", _string, "[", ",", "]\n"),
    "json_entries": ("big.json", _entry, "{", ",", "}\n"),
    "jsonl": ("big.jsonl", _line, "", "", ""),
    "text": ("big.txt", _paragraph, "", "", ""),
}


def _write(folder: Path, shape: str, size: int) -> int:
    name, make, opening, separator, closing = SHAPES[shape]
    rng, written = random.Random(0), 0
    with open(folder / name, "w") as handle:
        handle.write(opening)
        for i in range(1 << 40):
            if written >= size:
                break
            part = (separator if i else "") + make(rng, i)
            handle.write(part)
            written += len(part)
        handle.write(closing)
    return (folder / name).stat().st_size


_EXTRACT_ALONE = """
import resource, sys
from pathlib import Path
import indexer
path = Path(sys.argv[1])
result = indexer.extract(path.name, path.read_bytes())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(result.chunks))
"""
"""Prints the process's peak RSS (KiB) after extracting the file, and its chunk count."""


def extract_alone(path: Path) -> tuple[float, int]:
    """The peak RSS in MB of a fresh process that reads and extracts `path`, and the
    number of chunks (before packing)."""
    measured = run_command([sys.executable, "-c", _EXTRACT_ALONE, str(path)])
    kib, chunks = measured.stdout.split()
    return int(kib) / 1024, int(chunks)


def measure(workdir: Path, shape: str, mb: float, chunking: str) -> dict[str, object]:
    """One shape through `indexer run`; its peaks in MB and as multiples of its size."""
    name = f"large-{shape}-{mb:g}mb"
    folder, size = cached_tree(workdir, name, lambda f: _write(f, shape, int(mb * 1e6)))
    out = fresh_dir(workdir / f"out-large-{shape}")
    command = [sys.executable, "-m", "indexer", "run", str(folder), "--out", str(out)]
    command += ["--workers", "1", "--pdf-workers", "1", "--chunking", chunking, "--quiet"]
    measured = run_command(command)
    report = json.loads((out / "run.json").read_bytes())
    document = json.loads((out / "documents-00000.ndjson").read_bytes().splitlines()[0])
    main, worker = report["peak_rss_mb"]["main"], report["peak_rss_mb"]["largest_worker"]
    alone, blocks = extract_alone(folder / SHAPES[shape][0])
    return {
        "shape": shape, "mb": round(size / 1e6, 1), "status": document["status"],
        "chunks": document.get("chunks"), "blocks": blocks,
        "parent_mb": main, "parent_x": round(main * 2**20 / size, 1),
        "worker_mb": worker, "worker_x": round(worker * 2**20 / size, 1),
        "extract_mb": round(alone), "extract_x": round(alone * 2**20 / size, 1),
        "wall_s": round(measured.wall, 1), "load": measured.load_after,
    }  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    """This suite's own flags."""
    p.add_argument("--mb", type=float, nargs="+", default=[50.0, 200.0], help="file sizes")
    p.add_argument("--shapes", nargs="*", choices=list(SHAPES), default=list(SHAPES))
    p.add_argument("--chunking", choices=("packed", "blocks"), default="packed")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure every shape."""
    workdir = Path(args.workdir)
    rows = [measure(workdir, shape, mb, args.chunking) for mb in args.mb for shape in args.shapes]
    return {"load_at_start": load(), "rows": rows}


def render(result: dict[str, Any]) -> str:
    """The rows as a table."""
    rows = result["rows"]
    keys = list(rows[0]) if rows else []
    return "\n".join([" | ".join(keys), *(" | ".join(str(r[k]) for k in keys) for r in rows)])
