"""Suite `dedup`: what exact-duplicate decisions cost, and the memory they take.

1. A generated tree of `--files` notes, one in ten a copy of an earlier note and one in
   twenty the same text re-wrapped, through `indexer run` with `exact = "off"` and with
   the default `"drop"`: wall time, chunks written, duplicates found; and a night of
   ~1% new copies, incremental against fresh.
2. Near duplicates on a labelled set (`nearset`): `indexer run --near-duplicates mark`,
   pairwise precision and recall of its clusters at the default threshold, and the
   clustering alone (signatures, LSH, verification) timed in this process against
   datatrove's MinHash dedup (stages 1-3) over the same extracted texts.
3. The table of seen hashes (`dedup.seen.Seen`) filled with `--seen` documents' keys
   in a child process: its peak RSS and the table's size, against a Python dict of the
   same keys and paths.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import (
    cached_tree,
    fresh_dir,
    run_command,
    run_function,
    table,
    target,
    targets_table,
)
from benchmarks.nearset import datatrove_clusters, pairwise, write_set
from benchmarks.pipeline import index_command

_FILL = """
import hashlib, resource, sys
from indexer.pipeline.output.dedup.seen import Seen, keys
n, kind = int(sys.argv[1]), sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(base)
table = Seen() if kind == "sqlite" else {}
for at in range(0, n, 800):  # as the pass goes: a shard of ~800 documents at a time
    docs = []
    for i in range(at, min(n, at + 800)):
        h = hashlib.sha256(i.to_bytes(8, "little")).hexdigest()
        docs.append((keys(h, h[::-1]), f"box-{i // 600:04d}/mail-{i:07d}.txt"))
    if kind == "sqlite":
        table.shard([k for ks, _ in docs for k in ks])
        for ks, path in docs:
            if table.first(ks) is None:
                table.add(ks, path)
        table.end_shard()
    else:
        for ks, path in docs:
            for k in ks:
                table.setdefault(k, path)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
size = 0
if kind == "sqlite":
    size = table._db.execute("PRAGMA page_count").fetchone()[0] * 4096
print(peak, size)
"""


def _tree(workdir: Path, files: int, seed: int) -> Path:
    def make(root: Path) -> int:
        rng = random.Random(seed)
        for i in range(files):
            path = root / f"box-{i // 600:04d}" / f"mail-{i:06d}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            if i and i % 10 == 0:  # a copy of an earlier note
                shutil.copy(path.parent.parent / _name(rng.randrange(i)), path)
            elif i and i % 20 == 5:  # an earlier note's words, re-wrapped
                words = (path.parent.parent / _name(rng.randrange(i))).read_text().split()
                path.write_text("\n".join(" ".join(words[j : j + 5]) for j in range(0, 99, 5)))
            else:
                words = [f"w{rng.randrange(5000)}" for _ in range(rng.randrange(20, 80))]
                path.write_text(f"Note {i}. " + " ".join(words) + "\n")
        return files

    return cached_tree(workdir, f"dedup-{files}-seed{seed}", make)[0]


def _name(i: int) -> str:
    return f"box-{i // 600:04d}/mail-{i:06d}.txt"


def _index(src: Path, out: Path, workers: int, mode: str) -> dict[str, Any]:
    measured = run_command(index_command(src, out, workers, "--exact-duplicates", mode))
    summary = json.loads(measured.stdout)
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    return {"mode": mode, "wall_s": round(measured.wall, 2), "cpu_s": round(measured.cpu, 2),
            "chunks": summary["chunks"], "duplicates": counts.get("duplicates", 0)}  # fmt: skip


def _night(src: Path, out: Path, workers: int) -> dict[str, Any]:
    """About 1% new copies placed first in the walk; the night against a fresh run."""
    night = src.parent / (src.name + "-night")
    fresh_dir(night)
    shutil.copytree(src, night)
    first = _index(night, out, workers, "drop")
    files = sorted(night.rglob("*.txt"))
    (night / "aaa").mkdir()
    for i, path in enumerate(files[::100]):
        shutil.copy(path, night / "aaa" / f"copy-{i:05d}.txt")
    again = _index(night, out, workers, "drop")
    fresh = _index(night, fresh_dir(out.parent / "fresh"), workers, "drop")
    same = all(
        (out / p.name).read_bytes() == p.read_bytes()
        for p in (out.parent / "fresh").glob("*-*.ndjson")
    )
    return {"first": first, "night": again, "fresh": fresh, "same_bytes": same}


def _near(work: Path, originals: int, seed: int, workers: int) -> dict[str, Any]:
    """The labelled set through a run, then the clustering alone, ours and datatrove's."""
    from indexer.pipeline.output.dedup.near import Clusters
    from indexer.pipeline.output.dedup.texthash import words

    root = fresh_dir(work / "near")
    labels = write_set(root / "src", originals, seed)
    flags = ("--near-duplicates", "mark", "--exact-duplicates", "mark")
    measured = run_command(index_command(root / "src", root / "out", workers, *flags))
    records = [json.loads(line) for f in sorted((root / "out").glob("documents-*.ndjson"))
               for line in f.read_bytes().splitlines()]  # fmt: skip
    ours = {r["path"]: r["metadata"]["near_duplicate"]["cluster"] for r in records}
    texts: dict[str, list[str]] = {r["path"]: [] for r in records if r["chunks"]}
    for f in sorted((root / "out").glob("chunks-*.ndjson")):
        for line in f.read_bytes().splitlines():
            chunk = json.loads(line)
            texts[chunk["path"]].append(chunk["text"])
    joined = {path: "\n\n".join(parts) for path, parts in texts.items()}

    def cluster_ours() -> dict[str, str]:
        clusters = Clusters(0.8)
        found = {path: clusters.assign(path, words(text)) for path, text in joined.items()}
        clusters.close()
        return found

    ours_alone, _ = run_function(cluster_ours)
    theirs_time, theirs = run_function(lambda: datatrove_clusters(joined, fresh_dir(root / "dt")))
    result: dict[str, Any] = {
        "documents": len(labels), "run_wall_s": round(measured.wall, 2),
        "precision_recall": pairwise(labels, {p: ours[p] for p in labels}),
        "ours_cpu_s": round(ours_alone.cpu, 3),
    }  # fmt: skip
    if theirs is not None:
        result["datatrove_precision_recall"] = pairwise(labels, {p: theirs[p] for p in labels})
        result["datatrove_cpu_s"] = round(theirs_time.cpu, 3)
    return result


def _fill(n: int, kind: str) -> tuple[float, float, float]:
    measured = run_command([sys.executable, "-c", _FILL, str(n), kind])
    base_kb, rss_kb, size = measured.stdout.split()
    return int(base_kb) / 1024, int(rss_kb) / 1024, int(size) / 2**20


def run(args: Any) -> dict[str, Any]:
    """The runs with and without decisions, the night, and the table's memory."""
    work = Path(args.workdir)
    src = _tree(work, args.files, args.seed)
    modes = ("off", "drop")
    runs = [_index(src, fresh_dir(work / f"dedup-out-{m}"), args.workers, m) for m in modes]
    night = _night(src, fresh_dir(work / "dedup-night" / "out"), args.workers)
    memory = {kind: _fill(args.seen, kind) for kind in ("sqlite", "dict")}
    near = _near(work, args.originals, args.seed, args.workers)
    precision, recall = near["precision_recall"]
    grown = memory["sqlite"][1] - memory["sqlite"][0]
    cost = runs[1]["cpu_s"] / runs[0]["cpu_s"] - 1  # CPU: the machine is shared
    return {
        "corpus": {"files": args.files, "seed": args.seed, "workers": args.workers},
        "runs": runs, "night": night, "seen": args.seen, "memory": memory, "near": near,
        "targets": [
            target("near: pairwise precision at 0.8", ">= 0.95", precision, precision >= 0.95, ""),
            target("near: pairwise recall at 0.8", ">= 0.90", recall, recall >= 0.90, ""),
            target("drop vs off: extra CPU time", "<= 20%", 100 * cost, cost <= 0.2, "%"),
            target("night equals a fresh run", "yes", night["same_bytes"], night["same_bytes"], ""),
            target(f"seen table for {args.seen:,} documents: RSS growth", "<= 64 MB",
                   grown, grown <= 64, "MB"),
        ],
        "ok": night["same_bytes"],
    }  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The runs, the night, the memory, the targets."""
    runs = table(
        ["run", "wall s", "CPU s", "chunks", "duplicates"],
        [[r["mode"], r["wall_s"], r["cpu_s"], r["chunks"], r["duplicates"]]
         for r in result["runs"]],
    )  # fmt: skip
    n = result["night"]
    night = table(
        ["night", "wall s", "CPU s", "chunks", "duplicates"],
        [[k, n[k]["wall_s"], n[k]["cpu_s"], n[k]["chunks"], n[k]["duplicates"]]
         for k in ("first", "night", "fresh")],
    )  # fmt: skip
    memory = table(
        ["table", "RSS before MB", f"peak RSS MB ({result['seen']:,} documents)", "table MB"],
        [[k, round(v[0], 1), round(v[1], 1), round(v[2], 1)] for k, v in result["memory"].items()],
    )
    near = result["near"]
    versus = table(
        ["near duplicates", "precision", "recall", "clustering CPU s"],
        [["indexer (word multisets, exact Jaccard)", *near["precision_recall"], near["ours_cpu_s"]]]
        + ([["datatrove (5-grams, 14 x 8)", *near["datatrove_precision_recall"],
             near["datatrove_cpu_s"]]] if "datatrove_cpu_s" in near else []),
    )  # fmt: skip
    return (
        f"near: {near['documents']} labelled documents, run {near['run_wall_s']} s\n{versus}\n\n"
        f"corpus: {result['corpus']}\n{runs}\n\n{night}\nnight == fresh: {n['same_bytes']}\n\n"
        f"{memory}\n\n{targets_table(result['targets'])}"
    )


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--files", type=int, default=20_000, help="notes in the tree")
    parser.add_argument("--workers", type=int, default=2, help="workers")
    parser.add_argument("--seen", type=int, default=1_000_000, help="documents in the table")
    parser.add_argument("--originals", type=int, default=200, help="originals of the near set")
