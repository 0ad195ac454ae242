"""Suite `archives`: a zip of mixed documents against the same files unpacked.

The generated corpus (`indexer._corpusgen`, ~1,000 files of every built-in kind, PDFs
among them) is cached under `--workdir` twice: as a folder tree, and as one deflated
zip of that tree. Both are indexed by the `indexer` CLI in a subprocess, in
interleaved rounds (zip, tree, zip, tree, ...) so that the machine's load falls on
both alike; the fastest round of each counts. Throughput is member files a second.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from benchmarks.common import cached_tree, report, target
from benchmarks.pipeline import run_index
from indexer._corpusgen import write_corpus


def corpus(workdir: Path, files: int, seed: int) -> tuple[Path, Path, int]:
    """The cached tree and the cached folder holding its zip, and the file count."""

    def make_tree(folder: Path) -> int:
        return write_corpus(folder, files * 8_400, seed)

    tree, count = cached_tree(workdir, f"archive-tree-{files}-seed{seed}", make_tree)

    def make_zip(folder: Path) -> int:
        with zipfile.ZipFile(folder / "corpus.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in tree.rglob("*") if p.is_file()):
                archive.write(path, path.relative_to(tree).as_posix())
        return count

    zipped, _ = cached_tree(workdir, f"archive-zip-{files}-seed{seed}", make_zip)
    return tree, zipped, count


def run(args: Any) -> dict[str, Any]:
    """Index the zip and the tree in `--rounds` interleaved rounds; compare the fastest."""
    workdir = Path(args.workdir)
    tree, zipped, count = corpus(workdir, args.archive_files, args.seed)
    best: dict[str, Any] = {}
    for _ in range(args.rounds):
        for name, src in (("zip", zipped), ("tree", tree)):
            measured = run_index(src, workdir / f"out-archive-{name}", args.workers)
            if name not in best or measured.wall < best[name].wall:
                best[name] = measured
    rates = {name: count / m.wall for name, m in best.items()}
    ratio = rates["zip"] / rates["tree"]
    rows = [
        {"run": f"one zip of {count} files", **best["zip"].to_dict(),
         "files_per_s": round(rates["zip"], 1)},
        {"run": f"the same {count} files unpacked", **best["tree"].to_dict(),
         "files_per_s": round(rates["tree"], 1)},
    ]  # fmt: skip
    return {
        "corpus": {"files": count, "zip_mb": round((zipped / "corpus.zip").stat().st_size / 1e6, 1),
                   "seed": args.seed, "rounds": args.rounds, "workers": args.workers},
        "rows": rows,
        "targets": [
            target("zip throughput / unpacked throughput", ">= 0.80", round(ratio, 2),
                   ratio >= 0.8, "x"),
        ],
    }  # fmt: skip


RUN_KEYS = (
    "files", "documents", "wall_s", "cpu_s", "parent_cpu_s", "files_per_s",
    "peak_tree_rss_mb", "peak_process_rss_mb", "load_before", "load_after",
)  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The suite's runs, then its target."""
    return report(result, RUN_KEYS)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--archive-files", type=int, default=1000, help="files in the zip")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the two runs")
    parser.add_argument("--workers", type=int, default=2, help="workers")
