"""Suite `chunks`: chunk sizes per kind, packed against the extractors' blocks.

Each corpus (`--chunk-corpora`, folders of `../shared`: `corpus` and `formats` by
default; `INDEXER_SHARED` names another folder) is indexed twice by `indexer run`,
with `--chunking blocks` and with the default packing, OCR off (a scan's text would
depend on the engine installed). For the documents whose blocks hold more than
`chunk_target` characters (joined as the packer joins them), it counts per kind the
chunks' median length, the share under 200 characters, the longest and how many
there are, in each mode. The numbers depend only on the code and the files (runs
are deterministic), not on the machine.

Targets (on each corpus, per kind): packed median at least half of `chunk_target`,
at most 10% of packed chunks under 200 characters; and on the whole output, no
packed chunk over `chunk_max` and every one naming its blocks.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, SHARED, fresh_dir, table, target, targets_table
from indexer.config import Config

"""Beside the checkout, as CI has it; INDEXER_SHARED points elsewhere (a git worktree)."""
SMALL = 200
"""Chunks under this many characters count as too small to embed well."""
MODES = ("blocks", "packed")


def run(args: Any) -> dict[str, Any]:
    """Index each corpus in both modes; the size distribution per kind, and the targets."""
    config = Config()
    corpora: dict[str, Any] = {}
    targets: list[dict[str, Any]] = []
    for name in args.chunk_corpora.split(","):
        src = SHARED / name
        if not src.is_dir():
            print(f"bench chunks: {src} is absent, skipped", file=sys.stderr)
            continue
        runs = {
            mode: _index(src, Path(args.workdir) / f"out-chunks-{name}-{mode}", mode)
            for mode in MODES
        }
        kinds, checks = _distribution(runs["blocks"], runs["packed"], config)
        corpora[name] = {"path": str(src), "kinds": kinds, **checks}
        targets += _targets(name, kinds, checks, config)
    return {
        "chunk_target": config.chunk_target, "chunk_max": config.chunk_max,
        "corpora": corpora, "targets": targets,
    }  # fmt: skip


def _index(src: Path, out: Path, mode: str) -> dict[str, list[dict[str, Any]]]:
    """`indexer run SRC --chunking MODE` (this checkout's code); its chunks by document."""
    argv = [
        sys.executable, "-m", "indexer", "run", str(src), "--out", str(fresh_dir(out)),
        "--chunking", mode, "--ocr", "off", "--quiet", "--max-failures", "1000000",
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: failed documents, reported in the output
        sys.stderr.write(done.stderr)
        raise SystemExit(f"bench chunks: indexer run {src} exited {done.returncode}")
    docs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for shard in sorted(out.glob("chunks-*.ndjson")):
        with shard.open(encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                docs[record["doc_id"]].append(record)
    return docs


Docs = dict[str, list[dict[str, Any]]]


def _distribution(
    blocks: Docs, packed: Docs, config: Config
) -> tuple[dict[str, Any], dict[str, int]]:
    """Per kind, the sizes of both modes' chunks of the documents over the target; and
    the packed chunks over the maximum or without their block range, over all documents."""
    sizes: dict[str, dict[str, list[int]]] = defaultdict(
        lambda: {"docs": [], **{m: [] for m in MODES}}
    )
    for doc_id, chunks in blocks.items():
        if len("\n\n".join(c["text"] for c in chunks)) <= config.chunk_target:
            continue
        kind = sizes[chunks[0]["kind"]]
        kind["docs"].append(1)
        kind["blocks"] += [len(c["text"]) for c in chunks]
        kind["packed"] += [len(c["text"]) for c in packed.get(doc_id, [])]
    kinds = {
        kind: {"docs": len(s["docs"]), **{m: _stats(s[m]) for m in MODES}}
        for kind, s in sorted(sizes.items())
    }
    every = [c for chunks in packed.values() for c in chunks]
    checks = {
        "packed_chunks": len(every),
        "over_max": sum(len(c["text"]) > config.chunk_max for c in every),
        "without_blocks": sum("blocks" not in c["meta"] for c in every),
    }
    return kinds, checks


def _stats(lengths: list[int]) -> dict[str, Any]:
    if not lengths:
        return {"median": 0, "under_200_pct": 0.0, "max": 0, "count": 0}
    return {
        "median": round(statistics.median(lengths)),
        "under_200_pct": round(100 * sum(n < SMALL for n in lengths) / len(lengths), 1),
        "max": max(lengths),
        "count": len(lengths),
    }


def _targets(
    name: str, kinds: dict[str, Any], checks: dict[str, int], config: Config
) -> list[dict[str, Any]]:
    half = config.chunk_target // 2
    wanted = []  # (what, wanted, measured, met, unit)
    for kind, row in kinds.items():
        median, small = row["packed"]["median"], row["packed"]["under_200_pct"]
        wanted.append((f"{kind}: packed median", f">= {half}", median, median >= half, "chars"))
        wanted.append((f"{kind}: packed under {SMALL}", "<= 10", small, small <= 10, "%"))
    for key in ("over_max", "without_blocks"):
        what = f"packed chunks {key.replace('_', ' ')}".replace("max", "chunk_max")
        wanted.append((what, "0", checks[key], checks[key] == 0, "chunks"))
    return [target(f"{name} {what}", *rest) for what, *rest in wanted]


_COLUMNS = ("median", "under_200_pct", "max", "count")


def render(result: dict[str, Any]) -> str:
    """A table per corpus (blocks, then packed, per kind), then the targets."""
    parts = [
        f"chunk_target {result['chunk_target']}, chunk_max {result['chunk_max']}; "
        "documents whose text is over the target"
    ]
    labels = ("median", f"<{SMALL} %", "max", "count")
    headers = ["kind", "docs", *(f"{m} {label}" for m in MODES for label in labels)]
    for name, corpus in result["corpora"].items():
        rows = [
            [kind, row["docs"], *(row[m][c] for m in MODES for c in _COLUMNS)]
            for kind, row in corpus["kinds"].items()
        ]
        total = f"{corpus['packed_chunks']:,} packed chunks in all"
        parts.append(f"../shared/{name} ({total})\n{table(headers, rows)}")
    if result["targets"]:
        parts.append(targets_table(result["targets"]))
    return "\n\n".join(parts)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument(
        "--chunk-corpora", default="corpus,formats",
        help="folders of ../shared to measure, comma-separated",
    )  # fmt: skip
