"""Suite `scale`: how a run's cost grows with the tree, 10,000 to 1,000,000 small files.

For each `--files` N: a tree of N small files of seven kinds, cycled (mail, CSV, JSON,
JSON Lines, HTML, a one-page PDF, text; 0.3-1.5 KB each, every one with its own words, so
that the run's own cost per file shows and no file is another's copy; generated in
`--jobs` processes, cached under `--tree-dir`), then
`indexer run` in a subprocess: a first run, `--reruns` unchanged re-runs (the median is
kept), and a night changing `--night` of the files (a third new, a third edited, a third
deleted, spread over the whole tree), which is undone afterwards so the cached tree stays
what it was. Each run's CPU seconds (the process tree's), peak RSS (the tree's, the
parent's and each worker's, sampled every 50 ms), and what it leaves: `state.sqlite` and
`.state/` bytes, shards, shard bytes, `changes.ndjson` lines. The deterministic figures
(counts, bytes) come first; CPU seconds per file are the curve.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.common import (
    Measured,
    cached_tree,
    fresh_dir,
    run_command,
    table,
    target,
)
from benchmarks.common import targets_table as _targets_table
from benchmarks.pipeline import index_command
from indexer._corpusgen import WORDS
from indexer._samples import minimal_pdf

BLOCK = 1000
"""Files per generated folder, each folder from its own seed (so `--jobs` may split)."""


def scale_tree(tree_dir: Path, files: int, seed: int, jobs: int) -> Path:
    """`files` small mixed files under `tree_dir`, `BLOCK` to a folder; cached."""

    def make(root: Path) -> int:
        blocks = range(0, files, BLOCK)
        with ProcessPoolExecutor(max(1, jobs)) as pool:
            starts = list(blocks)
            n = len(starts)
            return sum(pool.map(_write_block, [root] * n, [seed] * n, starts, [files] * n))

    return cached_tree(tree_dir, f"scale-small-{files}-seed{seed}", make)[0]


def _write_block(root: Path, seed: int, start: int, files: int) -> int:
    os.nice(10)  # a shared machine: generation yields to everyone's work
    rng = random.Random(seed * 10_000_003 + start)
    for i in range(start, min(start + BLOCK, files)):
        _write_file(root, rng, i)
    return min(start + BLOCK, files) - start


def _words(rng: random.Random, n: int, i: int) -> str:
    return " ".join([f"w{i}", *(rng.choice(WORDS) for _ in range(n))])


def _mail(rng: random.Random, i: int) -> bytes:
    return (
        f"From: s{i} <s{i}@example.com>\nTo: team@example.com\nSubject: {_words(rng, 5, i)}\n"
        f"Message-ID: <{i}@example.com>\n\n{_words(rng, 60, i)}.\n"
    ).encode()


def _csv(rng: random.Random, i: int) -> bytes:
    rows = [f"{r},{rng.choice(WORDS)},{rng.randint(1, 999)},{_words(rng, 6, i)}" for r in range(8)]
    return ("id,region,amount,note\n" + "\n".join(rows) + "\n").encode()


def _json(rng: random.Random, i: int) -> bytes:
    items = ",".join(f'{{"id": {k}, "title": "{_words(rng, 8, i)}"}}' for k in range(6))
    return f"[{items}]".encode()


def _jsonl(rng: random.Random, i: int) -> bytes:
    return "".join(f'{{"n": {k}, "text": "{_words(rng, 12, i)}"}}\n' for k in range(5)).encode()


def _html(rng: random.Random, i: int) -> bytes:
    return (
        f"<!doctype html><html><head><title>Page {i}</title></head><body><main>"
        f"<h1>{_words(rng, 4, i)}</h1><p>{_words(rng, 50, i)}.</p></main></body></html>"
    ).encode()


def _pdf(rng: random.Random, i: int) -> bytes:
    return minimal_pdf([[_words(rng, 10, i)[:90] for _ in range(6)]])


def _text(rng: random.Random, i: int) -> bytes:
    return f"{_words(rng, 80, i)}.\n".encode()


MAKERS = (
    ("mail", "eml", _mail), ("sheets", "csv", _csv), ("data", "json", _json),
    ("logs", "jsonl", _jsonl), ("web", "html", _html), ("reports", "pdf", _pdf),
    ("notes", "txt", _text),
)  # fmt: skip


def _path(root: Path, i: int) -> Path:
    folder, ext, _ = MAKERS[i % len(MAKERS)]
    return root / folder / f"{i // BLOCK:04d}" / f"{folder}-{i:07d}.{ext}"


def _write_file(root: Path, rng: random.Random, i: int, tag: int = 0) -> None:
    _, _, make = MAKERS[i % len(MAKERS)]
    path = _path(root, i)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(make(rng, i + tag))


class _Night:
    """A night's changes to a tree, and their undoing: the tree is then the same files as
    before to the walk (bytes, mtime, inode), so a later run over it reuses every one."""

    def __init__(self, root: Path, files: int, share: float, seed: int) -> None:
        self.root, self.seed = root, seed
        self.saved: dict[Path, tuple[bytes, int, int]] = {}
        """Edited files: their bytes, atime and mtime (ns) before."""
        self.aside = root.with_name(f".{root.name}.night")
        """Deleted files wait here, renamed (their inode kept), till `undo`."""
        self.new: list[Path] = []
        count = max(3, round(files * share))
        step = files / count
        picks = [min(files - 1, int(k * step)) for k in range(count)]
        self.edited, self.deleted = picks[0::3], picks[1::3]
        self.added = [files + k for k in range(len(picks[2::3]))]

    def apply(self) -> int:
        """Change the tree; return how many files changed."""
        rng = random.Random(self.seed)
        for i in self.edited:
            path = _path(self.root, i)
            st = path.stat()
            self.saved[path] = (path.read_bytes(), st.st_atime_ns, st.st_mtime_ns)
            _write_file(self.root, rng, i, tag=7_000_000)  # in place: the inode stays
        fresh_dir(self.aside).mkdir()
        for i in self.deleted:
            os.rename(_path(self.root, i), self.aside / str(i))
        for k, i in enumerate(self.added):  # new files beside old ones, over the tree
            path = _path(self.root, self.edited[k % len(self.edited)]).with_name(f"new-{i}.txt")
            path.write_bytes(f"A new note {i}.\n\n".encode() + _text(rng, i))
            self.new.append(path)
        return len(self.edited) + len(self.deleted) + len(self.added)

    def undo(self) -> None:
        """Put the tree back as it was: the edited files' bytes and times (a version token
        of another mtime would have the next run read and hash them again), the deleted
        files themselves."""
        for path in self.new:
            path.unlink(missing_ok=True)
        for path, (data, atime, mtime) in self.saved.items():
            path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))
        for i in self.deleted:
            if (self.aside / str(i)).exists():
                os.rename(self.aside / str(i), _path(self.root, i))
        fresh_dir(self.aside)


def run_index(src: Path, out: Path, workers: int, flags: Sequence[str] = ()) -> Measured:
    """`indexer run` (niced, `flags` added) over `src` into `out`; its times, peaks and
    run.json facts."""
    # `nice` execs the run: the root is the run's parent process, every other a worker.
    measured = run_command(["nice", "-n", "10", *index_command(src, out, workers, *flags)])
    report = json.loads((out / "run.json").read_text())
    measured.extra = {
        "parent_peak_mb": round(measured.root_peak_mb, 1),
        "worker_peaks_mb": [round(mb, 1) for mb in measured.other_peaks_mb],
        "files": report["files"], "extracted": report["extracted"],
        "reused": report["reused"], "unchanged": report["unchanged"],
        **_left(out),
    }  # fmt: skip
    return measured


def _left(out: Path) -> dict[str, Any]:
    """What a run left in `out`: state and shard bytes, shard count, changes lines."""
    state = out / ".state"
    state_bytes = sum(p.stat().st_size for p in state.rglob("*") if p.is_file())
    manifest = json.loads((out / "manifest.json").read_text())
    names = [s["name"] for s in manifest["shards"]] + [d["name"] for d in manifest["documents"]]
    with open(out / "changes.ndjson", "rb") as changes:
        lines = sum(1 for _ in changes)
    return {
        "state_sqlite_bytes": (state / "state.sqlite").stat().st_size,
        "state_bytes": state_bytes,
        "shards": len(manifest["shards"]),
        "shard_bytes": sum((out / n).stat().st_size for n in names),
        "changes_lines": lines,
    }


def copy_output(committed: Path, out: Path) -> Path:
    """`committed` copied as `out` for a run to change: its generations' files and the
    state's outputs files hard-linked (a run never rewrites them: it writes new ones and
    links the rest), everything else (`state.sqlite`, the notes) copied."""
    fresh_dir(out)
    subprocess.run(["cp", "-al", str(committed), str(out)], check=True)
    for path in out.rglob("*"):
        rel = path.relative_to(out).parts
        if path.is_symlink() or not path.is_file() or rel[0].startswith(".gen-"):
            continue
        if rel[:2] == (".state", "outputs"):
            continue
        tmp = path.with_name(path.name + ".copy")
        shutil.copy2(path, tmp)
        os.replace(tmp, path)
    return out


def _night_over(args: Any, files: int) -> dict[str, Any]:
    """Only the night, over a copy of the committed output `--night-over` (of this tree)."""
    src = scale_tree(Path(args.tree_dir or args.workdir), files, args.seed, args.jobs)
    out = copy_output(Path(args.night_over), Path(args.workdir) / f"scale-night-{files}")
    night = _Night(src, files, args.night, args.seed + 1)
    try:
        changed = night.apply()
        nightly = run_index(src, out, args.workers)
    finally:
        night.undo()
    return {"files": files, "night_files": changed, "night": nightly.to_dict()}


def _size(args: Any, files: int) -> dict[str, Any]:
    if args.night_over:
        return _night_over(args, files)
    tree_dir = Path(args.tree_dir or args.workdir)
    src = scale_tree(tree_dir, files, args.seed, args.jobs)
    out = fresh_dir(Path(args.workdir) / f"scale-out-{files}")
    first = run_index(src, out, args.workers)
    reruns = sorted((run_index(src, out, args.workers) for _ in range(args.reruns)),
                    key=lambda m: m.cpu)  # fmt: skip
    unchanged = reruns[len(reruns) // 2]
    night = _Night(src, files, args.night, args.seed + 1)
    try:
        changed = night.apply()
        nightly = run_index(src, out, args.workers)
    finally:
        night.undo()
    return {
        "files": files, "night_files": changed,
        "first": first.to_dict(), "unchanged": unchanged.to_dict(),
        "unchanged_cpu_s_all": [round(m.cpu, 2) for m in reruns],
        "night": nightly.to_dict(),
    }  # fmt: skip


def run(args: Any) -> dict[str, Any]:
    """Each size: first run, unchanged re-runs, a night; then the curve's targets."""
    sizes = []
    for files in args.files:
        sizes.append(_size(args, files))
        print(json.dumps(sizes[-1], default=str), flush=True)  # a long suite: show each size
    targets = [] if args.night_over else _targets(sizes)
    return {"corpus": {"seed": args.seed, "workers": args.workers}, "sizes": sizes,
            "targets": targets}  # fmt: skip


def _targets(sizes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    per_file = [s["first"]["cpu_s"] / s["files"] for s in sizes]
    spread = max(per_file) / min(per_file)
    rss = [s["first"]["peak_process_rss_mb"] for s in sizes]
    rss_spread = max(rss) / min(rss)
    big = sizes[-1]
    rerun = big["unchanged"]["wall_s"] * 1_000_000 / big["files"]
    night = max(s["night"]["cpu_s"] / s["first"]["cpu_s"] for s in sizes)
    return [
        target("first run CPU per file, largest/smallest", "<= 1.3x", spread, spread <= 1.3, "x"),
        target("largest process RSS, largest/smallest", "<= 1.3x", rss_spread,
               rss_spread <= 1.3, "x"),
        target("unchanged re-run, per 1M files", "< 20 s", rerun, rerun < 20, "s"),
        target("0.1% night CPU / first run CPU, worst", "< 10%", 100 * night, night < 0.1, "%"),
    ]  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """Deterministic figures first, then times and peaks, then the targets."""
    rows = result["sizes"]
    if "first" not in rows[0]:  # --night-over: the night alone
        return table(
            ["files", "night files", "changes lines", "CPU s", "wall s", "parent MB",
             "largest worker MB"],
            [[s["files"], s["night_files"], s["night"]["changes_lines"], s["night"]["cpu_s"],
              s["night"]["wall_s"], s["night"]["parent_peak_mb"],
              max(s["night"]["worker_peaks_mb"], default=0)] for s in rows],
        )  # fmt: skip
    left = table(
        ["files", "shards", "shard MB", "state.sqlite MB", ".state MB", "night files",
         "night changes lines", "night shards"],
        [[s["files"], s["first"]["shards"], s["first"]["shard_bytes"] / 1e6,
          s["first"]["state_sqlite_bytes"] / 1e6, s["first"]["state_bytes"] / 1e6,
          s["night_files"], s["night"]["changes_lines"], s["night"]["shards"]] for s in rows],
    )  # fmt: skip
    times = table(
        ["files", "first wall s", "first CPU s", "CPU ms/file", "unchanged wall s",
         "unchanged CPU s", "night wall s", "night CPU s", "night/first CPU"],
        [[s["files"], s["first"]["wall_s"], s["first"]["cpu_s"],
          1000 * s["first"]["cpu_s"] / s["files"], s["unchanged"]["wall_s"],
          s["unchanged"]["cpu_s"], s["night"]["wall_s"], s["night"]["cpu_s"],
          f"{100 * s['night']['cpu_s'] / s['first']['cpu_s']:.1f}%"] for s in rows],
    )  # fmt: skip
    peaks = table(
        ["files", "run", "tree MB", "parent MB", "largest worker MB", "workers seen"],
        [[s["files"], run, s[run]["peak_tree_rss_mb"], s[run]["parent_peak_mb"],
          max(s[run]["worker_peaks_mb"], default=0), len(s[run]["worker_peaks_mb"])]
         for s in rows for run in ("first", "unchanged", "night")],
    )  # fmt: skip
    return (
        f"corpus: {result['corpus']}\n{left}\n\n{times}\n\n{peaks}\n\n"
        f"{_targets_table(result['targets'])}"
    )


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--files", type=int, nargs="+", default=[10_000, 100_000],
                        help="tree sizes, smallest first")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="workers")
    parser.add_argument("--reruns", type=int, default=3, help="unchanged re-runs (median)")
    parser.add_argument("--night", type=float, default=0.001, help="share of files a night changes")
    parser.add_argument("--jobs", type=int, default=2, help="processes generating a tree")
    parser.add_argument("--tree-dir", default="", help="where trees go (default: --workdir)")
    parser.add_argument("--night-over", default="", help="only a night, over a copy of this "
                        "committed output of the one --files tree")  # fmt: skip
