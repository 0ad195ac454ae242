"""Suite `shards-draws`: the `shards` night over many draws, cut in memory, no run.

The `shards` suite measures one draw of its night: which notes are deleted and where
the path hashes put the cuts. This suite cuts the same walk (the notes' paths, sorted as
the walk sorts them) with `output.boundaries.Boundaries` under each layout, before and
after the night, for `--draws` draws: other seeds of the night's choices and the whole
tree under another top folder (other path hashes). A shard of the night is written
when no shard before held exactly its entries, or it holds an edited or new note; its
share is of entries (the notes are of a size). Draw 0 is the `shards` suite's own
(its seed, no top folder), so its shard count and share are that suite's.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import replace
from typing import Any

from benchmarks.common import table
from benchmarks.shards import LAYOUTS, PER_FOLDER
from indexer.config import Config
from indexer.pipeline.output.boundaries import Boundaries

Shard = tuple[str, ...]


def _cut(rels: list[str], config: Config) -> list[Shard]:
    shards: list[list[str]] = []
    cut = Boundaries(config)
    for rel in rels:
        if cut.starts(rel) or not shards:
            shards.append([])
        shards[-1].append(rel)
    return [tuple(s) for s in shards]


def _words(rng: random.Random) -> None:
    """Draw what `shards._write_note` draws for a note's words."""
    for _ in range(12):
        rng.choice((0, 1, 2, 3, 4))


def _night(rels: set[str], files: int, rng: random.Random, top: str) -> set[str]:
    """`shards._night` on paths: remove and add in `rels`; return the new or edited."""
    folders = files // PER_FOLDER
    recent = [f"{top}box-{n:04d}/" for n in range(folders - 3, folders)]
    share = max(1, files // 500 // 3)
    changed = set()
    for k in range(share):
        changed.add(new := f"{recent[k % 3]}mail-new-{k:04d}.txt")
        rels.add(new)
        _words(rng)
    notes = sorted(r for r in rels if r.startswith(tuple(recent)))
    count = share
    for rel in rng.sample(notes, 2 * share):
        count += 1
        if count % 2:
            changed.add(rel)
            _words(rng)
        else:
            rels.discard(rel)
    for n in rng.sample(range(files - 3 * PER_FOLDER), 5):
        rels.discard(f"{top}box-{n // PER_FOLDER:04d}/mail-{n:06d}.txt")
    return changed


def _draw(files: int, seed: int, top: str, config: Config) -> tuple[int, float]:
    rels = {f"{top}box-{i // PER_FOLDER:04d}/mail-{i:06d}.txt" for i in range(files)}
    rels.add(f"{top}box-0000/a-front.txt")  # the suite's note at the front, before the night
    before = set(_cut(sorted(rels), config))
    changed = _night(rels, files, random.Random(seed), top)
    after = _cut(sorted(rels), config)
    written = [s for s in after if s not in before or changed.intersection(s)]
    return len(before), sum(map(len, written)) / len(rels)


def run(args: Any) -> dict[str, Any]:
    """Each layout: the share of every draw, and their mean."""
    draws = [(args.seed + 1, "")] + [
        (args.seed + 2 + d // 8, f"t{d % 8}/") for d in range(args.draws - 1)
    ]
    rows = []
    for key in dict.fromkeys(args.layouts):
        name, keys = LAYOUTS[key]
        config = replace(Config(), **keys)  # type: ignore[arg-type]
        results = [_draw(args.files, seed, top, config) for seed, top in draws]
        shares = [share for _, share in results]
        rows.append({
            "layout": name, "shards": results[0][0], "own_draw": round(shares[0], 4),
            "mean": round(statistics.mean(shares), 4), "sd": round(statistics.pstdev(shares), 4),
            "over_5pc": sum(s > 0.05 for s in shares), "max": round(max(shares), 4),
        })  # fmt: skip
    return {"files": args.files, "draws": len(draws), "layouts": rows}


def render(result: dict[str, Any]) -> str:
    """One row a layout: the suite's own draw, then the spread over all draws."""
    rows = [
        [r["layout"], r["shards"], f"{100 * r['own_draw']:.2f}%", f"{100 * r['mean']:.2f}%",
         f"{100 * r['sd']:.2f}", r["over_5pc"], f"{100 * r['max']:.2f}%"]
        for r in result["layouts"]
    ]  # fmt: skip
    headers = ["layout", "shards", "shards' draw", "mean", "sd", "over 5%", "max"]
    return f"{result['files']} notes, {result['draws']} draws\n{table(headers, rows)}"


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--files", type=int, default=120_000, help="notes in the tree")
    parser.add_argument("--draws", type=int, default=49, help="draws, the shards suite's first")
    parser.add_argument(
        "--layouts", nargs="+", choices=list(LAYOUTS), default=["old", "small", "defaults"],
        help="the layouts to cut, in this order (the shards suite's names)",
    )  # fmt: skip
