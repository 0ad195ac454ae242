"""Suite `shards`: what a change costs in shard files, boundaries by path hash vs every N entries.

Over `--files` small notes in folders of 600 (generated, cached under `--workdir`), each
layout gets a first run, then one note added at the front of the walk, then a night
(~0.2% of the files: new notes and edits in the three most recent folders, deletions
there and a handful scattered over the tree). After each re-run the shard files whose
inode is new were written by it: their count and bytes do not depend on the machine's
noise, and come first. A shard is a `chunks-N` and its `documents-N`: the count is of
chunk shards, the bytes of both. The `before` layout is the old rule: a shard every
10,000 entries. With `--rounds N` the night is run N times, each on a copy of the same
OUT right after a first run of its own, and night/first is the median of the N pairs;
each pair's CPU share (the process tree's CPU seconds) is listed beside its wall share.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from benchmarks.common import (
    Measured,
    cached_tree,
    fresh_dir,
    measure_quiet,
    run_command,
    table,
    target,
    targets_table,
)
from benchmarks.pipeline import index_command

PER_FOLDER = 600
LAYOUTS: dict[str, tuple[str, dict[str, int]]] = {
    "fixed": ("before: every 10,000 entries", {
        "shard_files": 10_000, "shard_min_files": 10_000, "shard_boundary_bits": 0,
    }),
    "old": ("path hash, 256, 2**9", {"shard_min_files": 256, "shard_boundary_bits": 9}),
    "small": ("path hash, 128, 2**8", {"shard_min_files": 128, "shard_boundary_bits": 8}),
    "defaults": ("path hash (defaults: 384, 2**7)", {}),
}  # fmt: skip
"""The layouts compared, by the name `--layouts` takes; the targets are the defaults'."""


def notes_tree(workdir: Path, files: int, seed: int) -> Path:
    """`files` small notes, `PER_FOLDER` to a folder; cached."""

    def make(root: Path) -> int:
        rng = random.Random(seed)
        for i in range(files):
            _write_note(root / _folder(i // PER_FOLDER) / f"mail-{i:06d}.txt", rng, i)
        return files

    return cached_tree(workdir, f"notes-{files}-seed{seed}", make)[0]


def _folder(n: int) -> str:
    return f"box-{n:04d}"


def _write_note(path: Path, rng: random.Random, i: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    words = " ".join(
        rng.choice(("meeting", "invoice", "draft", "lunch", "report")) for _ in range(12)
    )
    path.write_text(f"Subject: note {i}\n\n{words}.\n")


def _night(src: Path, files: int, rng: random.Random) -> int:
    """Change ~0.2% of the files as a night of mail does; return how many changed."""
    folders = files // PER_FOLDER
    recent = [src / _folder(n) for n in range(folders - 3, folders)]
    share = max(1, files // 500 // 3)  # a third each: new, edited, deleted here
    changed = 0
    for k in range(share):
        _write_note(recent[k % 3] / f"mail-new-{k:04d}.txt", rng, files + k)
        changed += 1
    notes = sorted(p for folder in recent for p in folder.iterdir())
    for path in rng.sample(notes, 2 * share):
        changed += 1
        if changed % 2:
            _write_note(path, rng, changed)
        else:
            path.unlink()
    for n in rng.sample(range(files - 3 * PER_FOLDER), 5):  # a handful scattered
        (src / _folder(n // PER_FOLDER) / f"mail-{n:06d}.txt").unlink()
        changed += 1
    return changed


Files = dict[int, tuple[bool, int]]
"""Shard files by inode: whether a chunk shard (else documents), and the size."""


def _shards(out: Path) -> Files:
    """The committed shard files."""
    paths = [*out.glob("chunks-*.ndjson"), *out.glob("documents-*.ndjson")]
    return {p.stat().st_ino: (p.name.startswith("chunks-"), p.stat().st_size) for p in paths}


def _written(
    before: dict[int, tuple[bool, int]], after: dict[int, tuple[bool, int]]
) -> dict[str, Any]:
    new = [shard for ino, shard in after.items() if ino not in before]
    total, written = sum(n for _, n in after.values()), sum(n for _, n in new)
    return {
        "shards": sum(chunks for chunks, _ in after.values()),
        "rewritten": sum(chunks for chunks, _ in new), "bytes_written": written,
        "share": round(written / total, 4) if total else 0.0,
    }  # fmt: skip


def _layout(name: str, keys: dict[str, int], pristine: Path, args: Any) -> dict[str, Any]:
    workdir = Path(args.workdir)
    src, out = fresh_dir(workdir / "shards-src"), fresh_dir(workdir / "shards-out")
    shutil.copytree(pristine, src)
    config = workdir / "shards.toml"
    config.write_text("[output]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()))

    def index() -> Measured:
        return run_command(index_command(src, out, args.workers, "--config", str(config)))

    first = measure_quiet(lambda: (fresh_dir(out), index())[1], args.tries)
    before = _shards(out)
    _write_note(src / _folder(0) / "a-front.txt", random.Random(args.seed), -1)
    front = index()
    after_front = _shards(out)
    changed = _night(src, args.files, random.Random(args.seed + 1))
    saved = fresh_dir(workdir / "shards-saved")
    if args.rounds > 1:
        shutil.copytree(out, saved, symlinks=True)
    ratios, cpu_ratios = [], []
    for round_ in range(args.rounds):  # side by side: the load changes between rounds
        if round_:
            first = run_command(index_command(src, fresh_dir(workdir / "shards-first"),
                                              args.workers, "--config", str(config)))  # fmt: skip
            shutil.copytree(saved, fresh_dir(out), symlinks=True)
        restored = _shards(out)
        night = index()
        ratios.append(night.wall / first.wall)
        cpu_ratios.append(night.cpu / first.cpu)
    return {
        "layout": name, "first_wall_s": round(first.wall, 2),
        "front": _written(before, after_front), "front_wall_s": round(front.wall, 2),
        "night": _written(restored, _shards(out)), "night_files": changed,
        "night_wall_s": round(night.wall, 2),
        "night_share_of_first": round(sorted(ratios)[len(ratios) // 2], 3),
        "night_shares": [round(r, 3) for r in ratios],
        "first_cpu_s": round(first.cpu, 2), "night_cpu_s": round(night.cpu, 2),
        "night_cpu_shares": [round(r, 3) for r in cpu_ratios],
        "night_cpu_share": round(sorted(cpu_ratios)[len(cpu_ratios) // 2], 3),
    }  # fmt: skip


def run(args: Any) -> dict[str, Any]:
    """Each layout: first run, one note added at the front, a night of changes."""
    pristine = notes_tree(Path(args.workdir), args.files, args.seed)
    chosen = [LAYOUTS[key] for key in dict.fromkeys(args.layouts)]
    layouts = [_layout(name, keys, pristine, args) for name, keys in chosen]
    return {
        "corpus": {"files": args.files, "seed": args.seed, "workers": args.workers},
        "layouts": layouts,
        "targets": _targets(layouts[-1]) if not chosen[-1][1] else [],
    }


def _targets(new: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, met by the defaults' row `new` or not."""
    return [
        target("one note at the front: shards rewritten", "<= 2",
               new["front"]["rewritten"], new["front"]["rewritten"] <= 2, ""),
        target("a night: share of shard bytes written", "<= 5%",
               100 * new["night"]["share"], new["night"]["share"] <= 0.05, "%"),
        target("a night: CPU time vs the first run", "<= 10%",
               100 * new["night_cpu_share"], new["night_cpu_share"] <= 0.10, "%"),
    ]  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """Bytes written first (deterministic), then times, then the targets."""
    rows = result["layouts"]
    written = table(
        ["layout", "shards", "front: rewritten", "bytes", "night: rewritten", "bytes", "share"],
        [
            [r["layout"], r["front"]["shards"], r["front"]["rewritten"],
             r["front"]["bytes_written"], r["night"]["rewritten"], r["night"]["bytes_written"],
             f"{100 * r['night']['share']:.1f}%"]
            for r in rows
        ],
    )  # fmt: skip
    times = table(
        ["layout", "first s", "first CPU s", "night s", "night CPU s", "night/first",
         "each round", "CPU: each round"],
        [
            [r["layout"], r["first_wall_s"], r["first_cpu_s"], r["night_wall_s"], r["night_cpu_s"],
             f"{100 * r['night_share_of_first']:.0f}%",
             " ".join(f"{100 * s:.0f}%" for s in r["night_shares"]),
             " ".join(f"{100 * s:.0f}%" for s in r["night_cpu_shares"])]
            for r in rows
        ],
    )  # fmt: skip
    night = rows[-1]["night_files"]
    return (
        f"corpus: {result['corpus']}; a night changes {night} files\n{written}\n\n"
        f"{times}\n\n{targets_table(result['targets'])}"
    )


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--files", type=int, default=120_000, help="notes in the tree")
    parser.add_argument("--workers", type=int, default=2, help="workers")
    parser.add_argument(
        "--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS),
        help="the layouts to run, in this order (the targets are the defaults' when last)",
    )  # fmt: skip
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="nights, each on a copy of the same OUT and after a first run of its own; "
        "night/first is their median",
    )  # fmt: skip
