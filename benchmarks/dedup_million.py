"""Suite `dedup-million`: the duplicate pass's memory over a generated staged output of
`--documents` documents (1,000,000 by default) with exact and near duplicates on.

The staged output is written directly, in the shape a run stages (`documents-NNNNN`
and `chunks-NNNNN` shards of `--per-shard` documents, `.layout.ndjson`), each record
and chunk line a real one's (a note indexed by `indexer run` first) with its path, ids,
hashes and text replaced: extracting a million files would take hours on this machine,
and the pass reads nothing else. One document in ten is an exact copy of an earlier one
(the same hashes and text), one in ten a near copy (5% of an earlier one's words
replaced), the rest distinct notes of 30-120 words drawn Zipf-like from 50,000 words.

The pass (`dedup.decide.apply`, `exact = "drop"`, `near = "mark"`) then runs in a child
process: its peak RSS against the interpreter's before it, its CPU time, the SQLite
tables' sizes (the seen hashes; the token sets, clusters and buckets), and the
duplicates it found.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from benchmarks.common import fresh_dir, run_command, table, target, targets_table
from benchmarks.pipeline import index_command

_PASS = """
import json, resource, sys, time
from pathlib import Path
from indexer.config import Config
from indexer.pipeline.output.dedup import decide, near, seen
from indexer.pipeline.output.staged import Staged, Tally

sizes = {}
def measured(cls, name):
    close = cls.close
    def closing(self):
        sizes[name] = self._db.execute("PRAGMA page_count").fetchone()[0] * 4096
        close(self)
    cls.close = closing
measured(seen.Seen, "seen"); measured(near.Clusters, "near")
staging = Path(sys.argv[1])
names = sorted(p.name for p in staging.glob("chunks-*.ndjson"))
files = {"chunks": [{"name": n} for n in names],
         "documents": [{"name": n.replace("chunks-", "documents-")} for n in names]}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu = time.process_time()
staged = decide.apply(staging, Staged(files=[], manifest_files=files, tally=Tally()),
                      Config(exact="drop", near="mark"), None)
print(json.dumps({"base_kb": base, "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "cpu_s": time.process_time() - cpu, "tables": sizes,
                  "duplicates": staged.tally.duplicates, "near": staged.tally.near_duplicates}))
"""


def _templates(work: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A real document record and chunk line: one note through `indexer run`."""
    src = fresh_dir(work / "template")
    src.mkdir(parents=True)
    (src / "note.txt").write_text("A note of a few words, as a template.\n")
    run_command(index_command(src, work / "template-out", 1))
    out = work / "template-out"
    doc = orjson.loads((out / "documents-00000.ndjson").read_bytes().splitlines()[0])
    chunk = orjson.loads((out / "chunks-00000.ndjson").read_bytes().splitlines()[0])
    return doc, chunk


class _Texts:
    """The documents' words: distinct notes, exact copies and near copies of earlier ones."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.vocabulary = np.array([f"w{i}" for i in range(50_000)], dtype=object)
        self.kept: list[tuple[str, str]] = []
        """A sample of earlier documents (text, hash) to copy from."""

    def next(self, i: int) -> tuple[str, str, str]:
        """Document `i`'s text, its content hash and how it was made."""
        if i % 10 == 3 and self.kept:
            return (*self.kept[int(self.rng.integers(len(self.kept)))], "exact")
        if i % 10 == 7 and self.kept:
            words = self.kept[int(self.rng.integers(len(self.kept)))][0].split()
            for at in self.rng.choice(len(words), max(1, len(words) // 20), replace=False):
                words[at] = f"x{self.rng.integers(10**9)}"
            text, how = " ".join(words), "near"
        else:
            ranks = np.minimum(self.rng.zipf(1.3, int(self.rng.integers(30, 121))), 50_000) - 1
            text, how = " ".join(self.vocabulary[ranks]), "distinct"
        digest = f"{self.rng.integers(1 << 62):016x}" * 4
        if len(self.kept) < 4096:
            self.kept.append((text, digest))
        elif self.rng.random() < 0.01:
            self.kept[int(self.rng.integers(4096))] = (text, digest)
        return text, digest, how


def _write(staging: Path, documents: int, per: int, seed: int, work: Path) -> dict[str, int]:
    """Write the staged output; return how many documents of each kind it holds."""
    from indexer.pipeline.output.records import doc_id

    doc, chunk = _templates(work)
    texts, made = _Texts(seed), {"distinct": 0, "exact": 0, "near": 0}
    with open(staging / ".layout.ndjson", "wb") as layout:
        for shard in range(0, documents, per):
            name = f"{shard // per:05d}.ndjson"
            docs, chunks, tags = [], [], []
            for i in range(shard, min(documents, shard + per)):
                text, digest, how = texts.next(i)
                made[how] += 1
                path = f"box-{i // 1000:04d}/mail-{i:07d}.txt"
                did = doc_id(path)
                tag = f"{i:032x}"
                near = {"cluster": did, "representative": True}
                docs.append({**doc, "path": path, "doc_id": did, "sha256": digest,
                             "text_sha256": digest[::-1], "digest": tag, "chunks": 1,
                             "metadata": {**doc["metadata"], "near_duplicate": near}})  # fmt: skip
                chunks.append({**chunk, "id": f"{did}:0", "doc_id": did, "path": path,
                               "text": text})  # fmt: skip
                tags.append([tag, len(text)])
            for prefix, records in (("documents-", docs), ("chunks-", chunks)):
                (staging / (prefix + name)).write_bytes(
                    b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records)
                )
            line = {"name": "chunks-" + name, "docs": tags}
            layout.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
    return made


def run(args: Any) -> dict[str, Any]:
    """Write the staged output, run the pass over it in a child, report its memory."""
    work = Path(args.workdir) / "dedup-million"
    staging = fresh_dir(work / "staging")
    staging.mkdir(parents=True)
    made = _write(staging, args.documents, args.per_shard, args.seed, work)
    on_disk = sum(p.stat().st_size for p in staging.iterdir())
    measured = run_command([sys.executable, "-c", _PASS, str(staging)])
    found = json.loads(measured.stdout)
    base, peak = found["base_kb"] / 1024, found["peak_kb"] / 1024
    fresh_dir(staging)
    return {
        "documents": args.documents, "per_shard": args.per_shard, "made": made,
        "staged_mb": round(on_disk / 2**20, 1), "rss_before_mb": round(base, 1),
        "peak_rss_mb": round(peak, 1), "pass_cpu_s": round(found["cpu_s"], 1),
        "pass_wall_s": round(measured.wall, 1),
        "tables_mb": {k: round(v / 2**20, 1) for k, v in found["tables"].items()},
        "duplicates": found["duplicates"], "near_duplicates": found["near"],
        "targets": [target(f"pass over {args.documents:,} documents: RSS growth", "<= 128 MB",
                           round(peak - base, 1), peak - base <= 128, "MB")],
    }  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The staged output, the pass's memory and time, the targets."""
    rows = [
        ["documents (distinct / exact copies / near copies)",
         f"{result['documents']:,} ({result['made']['distinct']:,} / "
         f"{result['made']['exact']:,} / {result['made']['near']:,})"],
        ["staged shards (documents per shard), MB",
         f"{result['documents'] // result['per_shard']:,} ({result['per_shard']:,}), "
         f"{result['staged_mb']:,}"],
        ["found: duplicate_of / in an earlier cluster",
         f"{result['duplicates']:,} / {result['near_duplicates']:,}"],
        ["RSS before the pass / peak, MB", f"{result['rss_before_mb']} / {result['peak_rss_mb']}"],
        ["tables on disk: seen / near, MB",
         f"{result['tables_mb'].get('seen')} / {result['tables_mb'].get('near')}"],
        ["pass CPU s / wall s", f"{result['pass_cpu_s']} / {result['pass_wall_s']}"],
    ]  # fmt: skip
    return f"{table(['', 'value'], rows)}\n\n{targets_table(result['targets'])}"


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--documents", type=int, default=1_000_000, help="staged documents")
    parser.add_argument("--per-shard", type=int, default=1000, help="documents per shard")
