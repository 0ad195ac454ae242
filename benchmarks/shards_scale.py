"""Suite `shards-scale`: what smaller shards cost a first run and an unchanged re-run.

On the `scale` suite's tree of `--files` small files of seven kinds (generated and
cached under `--tree-dir` as that suite does), each of `--layouts` (the `shards`
suite's) gets a first run into an empty OUT, then the same command again over the
unchanged tree, one layout after the other. The shard count and bytes are the
deterministic figures; CPU seconds (the process tree's) are the cost per shard, side by
side under the minute's load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.common import fresh_dir, run_command, table
from benchmarks.pipeline import index_command
from benchmarks.scale import scale_tree
from benchmarks.shards import LAYOUTS


def _layout(name: str, keys: dict[str, int], src: Path, args: Any) -> dict[str, Any]:
    workdir = Path(args.workdir)
    config = workdir / "shards-scale.toml"
    config.write_text("[output]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()))
    out = fresh_dir(workdir / "shards-scale-out")
    command = index_command(src, out, args.workers, "--config", str(config))
    first, again = run_command(command), run_command(command)
    current = (out / ".current").resolve()
    shards = [*current.glob("chunks-*.ndjson"), *current.glob("documents-*.ndjson")]
    return {
        "layout": name, "shards": len(list(current.glob("chunks-*.ndjson"))),
        "shard_mb": round(sum(p.stat().st_size for p in shards) / 1e6, 1),
        "first_cpu_s": round(first.cpu, 2), "first_wall_s": round(first.wall, 1),
        "first_load": first.load_before, "unchanged_cpu_s": round(again.cpu, 2),
        "unchanged_wall_s": round(again.wall, 2), "unchanged_load": again.load_before,
    }  # fmt: skip


def run(args: Any) -> dict[str, Any]:
    """Each layout: a first run and an unchanged re-run of the same tree."""
    src = scale_tree(Path(args.tree_dir or args.workdir), args.files, args.seed, args.jobs)
    chosen = [LAYOUTS[key] for key in dict.fromkeys(args.layouts)]
    layouts = [_layout(name, keys, src, args) for name, keys in chosen]
    return {"corpus": {"files": args.files, "seed": args.seed, "workers": args.workers},
            "layouts": layouts}  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """Counts and bytes, then CPU and wall seconds with the load each run began at."""
    rows = [
        [r["layout"], r["shards"], r["shard_mb"], r["first_cpu_s"], r["first_wall_s"],
         r["first_load"], r["unchanged_cpu_s"], r["unchanged_wall_s"], r["unchanged_load"]]
        for r in result["layouts"]
    ]  # fmt: skip
    headers = ["layout", "shards", "shard MB", "first CPU s", "first s", "load",
               "unchanged CPU s", "unchanged s", "load"]  # fmt: skip
    return f"corpus: {result['corpus']}\n{table(headers, rows)}"


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--files", type=int, default=100_000, help="files in the tree")
    parser.add_argument("--workers", type=int, default=2, help="workers")
    parser.add_argument("--jobs", type=int, default=2, help="processes generating a tree")
    parser.add_argument("--tree-dir", default="", help="where trees go (default: --workdir)")
    parser.add_argument(
        "--layouts", nargs="+", choices=list(LAYOUTS), default=["old", "defaults"],
        help="the layouts to run, in this order (the shards suite's names)",
    )  # fmt: skip
