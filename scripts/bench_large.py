"""Peak memory of one large document through `indexer run`: `python scripts/bench_large.py`.

Generates (once, under `--workdir`) a file of `--mb` megabytes per shape: a JSON
array of small objects, a JSON array of short strings, JSON Lines and plain text.
Each goes alone through `indexer run --workers 1` from this checkout, and the
table gives the peak RSS of the parent and of the largest worker (from `run.json`)
as megabytes and as multiples of the file's size. Numbers, not a test: a document
past the general workers' cap fails as `out_of_memory` (its status is shown).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import cached_tree, fresh_dir, load, run_command

_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")


def _object(rng: random.Random, i: int) -> str:
    item = {"id": i, "name": " ".join(rng.choices(_WORDS, k=6)), "score": rng.random()}
    return json.dumps(item | {"tags": rng.choices(_WORDS, k=3)}, separators=(",", ":"))


def _string(rng: random.Random, i: int) -> str:
    return json.dumps(" ".join(rng.choices(_WORDS, k=4)))


def _line(rng: random.Random, i: int) -> str:
    return json.dumps({"id": i, "name": " ".join(rng.choices(_WORDS, k=4))}) + "\n"


def _paragraph(rng: random.Random, i: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randrange(20, 80))) + ".\n\n"


SHAPES: dict[str, tuple[str, Callable[[random.Random, int], str], str, str, str]] = {
    "json_objects": ("big.json", _object, "[", ",", "]\n"),
    "json_strings": ("big.json", _string, "[", ",", "]\n"),
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


def measure(workdir: Path, shape: str, mb: float) -> dict[str, object]:
    """One shape through `indexer run`; its peaks in MB and as multiples of its size."""
    name = f"large-{shape}-{mb:g}mb"
    folder, size = cached_tree(workdir, name, lambda f: _write(f, shape, int(mb * 1e6)))
    out = fresh_dir(workdir / f"out-large-{shape}")
    command = [sys.executable, "-m", "indexer", "run", str(folder), "--out", str(out)]
    measured = run_command([*command, "--workers", "1", "--pdf-workers", "1", "--quiet"])
    report = json.loads((out / "run.json").read_bytes())
    document = json.loads((out / "documents.ndjson").read_bytes().splitlines()[0])
    main, worker = report["peak_rss_mb"]["main"], report["peak_rss_mb"]["largest_worker"]
    return {
        "shape": shape, "mb": round(size / 1e6, 1), "status": document["status"],
        "parent_mb": main, "parent_x": round(main * 2**20 / size, 1),
        "worker_mb": worker, "worker_x": round(worker * 2**20 / size, 1),
        "wall_s": round(measured.wall, 1), "load": measured.load_after,
    }  # fmt: skip


def main() -> int:
    """Measure every shape; print a table (or JSON with `--json`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of each file")
    parser.add_argument("--workdir", default="/tmp/indexer-bench", help="generated files, OUTs")
    parser.add_argument("--shapes", nargs="*", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    rows = [measure(workdir, shape, args.mb) for shape in args.shapes]
    if args.json:
        print(json.dumps({"load_at_start": load(), "rows": rows}, indent=2))
        return 0
    keys = list(rows[0])
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(str(row[k]) for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
