"""Suite `serve`: `indexer serve` under load over loopback, against a loop of `indexer
extract` on the same files.

The requests cycle through `--files` files of `../shared/corpus` (a seeded sample of
every format, malformed ones included), with a hostile file every `--hostile-every`
requests: a plugin's `.segv` (the worker dies), `.hang` (never returns: the
`[isolation] timeout` kills it) and `.oom` (allocates until the memory cap) files,
in turn. `--concurrency` clients (httpx, one asyncio loop in this process) post them
as raw bodies; a 503 is retried after its `Retry-After`, as a client should, and its
wait counts in the request's latency. Reported: the answers by status (200 with an
ok / failed record, anything else), the designed 503s met on the way, p50/p99 latency
of the 200s, requests/s, and the peak RSS of the server's process tree (server and
workers, sampled from /proc every 250 ms) and of the server process alone, overall
and in the run's first and last quarter (flat means no growth).

The loop runs `indexer extract --json` once per file, one after another, on the first
`--loop` corpus files of the same sequence (a smaller sample: each is a process
start and a pool start), with the same config; each answer is compared with the
server's for that file (`ok` is false when one differs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil

from benchmarks.common import INDEXER, PYTHON, SHARED_CORPUS, load, table
from benchmarks.serve_load import Answer, post_all

PLUGIN = """
import ctypes
import time

from indexer.registry import ExtractorSpec


def misbehave(data, path, options):
    kind = path.rsplit(".", 1)[-1]
    if kind == "segv":
        ctypes.string_at(0)
    while kind == "hang":
        time.sleep(1)
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


def specs():
    return [ExtractorSpec(name=k, kind=k, extensions=(k,), version="1", extract=misbehave,
                          isolated=True) for k in ("segv", "hang", "oom")]
"""
HOSTILE = ("x.segv", "x.hang", "x.oom")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--requests", type=int, default=2000, help="requests to send (2000)")
    p.add_argument("--concurrency", type=int, default=16, help="clients at once (16)")
    p.add_argument("--files", type=int, default=200, help="distinct corpus files (200)")
    p.add_argument("--hostile-every", type=int, default=100, help="a hostile file each N (100)")
    p.add_argument("--loop", type=int, default=60, help="files of the extract loop (60)")
    p.add_argument("--queue", type=int, default=32, help="the server's --queue (32)")
    p.add_argument("--timeout", type=float, default=2.0, help="[isolation] timeout, s (2)")
    p.add_argument("--scratch", help="the server's --scratch (default: the temp folder)")


def _files(count: int, seed: int) -> list[Path]:
    rows = (SHARED_CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    paths = sorted(SHARED_CORPUS / row.split("\t")[0] for row in rows)
    return random.Random(seed).sample(paths, min(count, len(paths)))


def _sequence(files: list[Path], args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """(name, corpus path or None for a hostile file) per request, in sending order."""
    sequence: list[tuple[str, Path | None]] = []
    hostile = 0
    for i in range(args.requests):
        if args.hostile_every and i % args.hostile_every == args.hostile_every - 1:
            sequence.append((HOSTILE[hostile % len(HOSTILE)], None))
            hostile += 1
        else:
            path = files[i % len(files)]
            sequence.append((path.name, path))
    return sequence


def _setup(workdir: Path, timeout: float) -> tuple[Path, dict[str, str]]:
    """The bench config and an environment with the hostile plugin on PYTHONPATH."""
    site = workdir / "serve-plugin"
    dist = site / "benchhostile-1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (site / "benchhostile.py").write_text(PLUGIN)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: benchhostile\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[indexer.extractors]\nb = benchhostile:specs\n")
    config = workdir / "serve-bench.toml"
    config.write_text(f"[isolation]\ntimeout = {timeout}\nmax_memory_mb = 512\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return config, env


def _start(
    workdir: Path, config: Path, env: dict[str, str], args: argparse.Namespace
) -> tuple[Any, str]:
    log = workdir / "serve-bench.err"
    argv = [PYTHON, "-m", "indexer", "serve", "--port", "0", "--config", str(config),
            "--queue", str(args.queue)]  # fmt: skip
    if args.scratch:
        argv += ["--scratch", args.scratch]
    with log.open("wb") as err:
        server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
    for _ in range(1200):
        text = log.read_text()
        if "listening on " in text:
            return server, text.split("listening on ")[1].split()[0]
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    raise SystemExit(f"bench: indexer serve did not start: {log.read_text()}")


class _Rss:
    """Samples the RSS of a process tree (from /proc, through psutil) into a series."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.series: list[tuple[float, int, int]] = []
        """(seconds since the start, the tree's RSS, the server process's own RSS)."""

    async def run(self, interval: float = 0.25) -> None:
        start = time.monotonic()
        while True:
            total = own = 0
            for proc in [self.root, *self.root.children(recursive=True)]:
                try:
                    rss = proc.memory_info().rss
                except psutil.Error:
                    continue
                total += rss
                own = own or (rss if proc.pid == self.root.pid else 0)
            self.series.append((time.monotonic() - start, total, own))
            await asyncio.sleep(interval)

    def peaks_mb(self) -> dict[str, float]:
        """Peaks of the tree (server and workers) and of the server process alone,
        overall and in the first and the last quarter of the run."""
        end = self.series[-1][0]
        quarters = {
            "": self.series,
            "first_quarter_": [x for x in self.series if x[0] <= end / 4],
            "last_quarter_": [x for x in self.series if x[0] >= end * 3 / 4],
        }
        peaks = {}
        for name, part in quarters.items():
            peaks[f"{name}tree"] = round(max((x[1] for x in part), default=0) / 1e6, 1)
            peaks[f"{name}server"] = round(max((x[2] for x in part), default=0) / 1e6, 1)
        return peaks


async def _load(
    url: str, pid: int, sequence: list[tuple[str, Path | None]], clients: int, keep: set[Path]
) -> Any:
    rss = _Rss(pid)
    sampler = asyncio.create_task(rss.run())
    try:
        start = time.perf_counter()
        answers = await post_all(url, sequence, clients, keep)
        wall = time.perf_counter() - start
    finally:
        sampler.cancel()
    return answers, wall, rss.peaks_mb()


def _loop(
    files: list[Path], config: Path, env: dict[str, str]
) -> tuple[list[float], dict[str, Any]]:
    """Each file through `indexer extract --json`, one at a time; (seconds, answers)."""
    seconds, answers = [], {}
    for path in files:
        start = time.perf_counter()
        done = subprocess.run([INDEXER, "extract", "--json", "--config", str(config), str(path)],
                              capture_output=True, env=env, check=False)  # fmt: skip
        seconds.append(time.perf_counter() - start)
        answers[str(path)] = json.loads(done.stdout)
    return seconds, answers


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(args.workdir)
    config, env = _setup(workdir, args.timeout)
    files = _files(args.files, args.seed)
    sequence = _sequence(files, args)
    looped = list(dict.fromkeys(p for _, p in sequence if p is not None))[: args.loop]
    before = load()
    server, url = _start(workdir, config, env, args)
    try:
        load_run = _load(url, server.pid, sequence, args.concurrency, set(looped))
        answers, wall, rss = asyncio.run(load_run)
    finally:
        server.send_signal(signal.SIGTERM)
        exit_code = server.wait(120)
    served = _summary(answers, wall)
    seconds, loop_answers = _loop(looped, config, env)
    first = {str(a.path): a.body for a in answers if a.body is not None}
    differ = [p for p, body in loop_answers.items() if first.get(p) != body]
    return {
        "server": {**served, "rss_mb": rss, "exit_on_sigterm": exit_code, "url": url},
        "loop": {
            "files": len(seconds),
            "p50_s": round(_quantile(seconds, 0.5), 3),
            "p99_s": round(_quantile(seconds, 0.99), 3),
            "files_per_s": round(len(seconds) / sum(seconds), 2) if seconds else 0.0,
        },
        "answers_differ": differ,
        "load": [before, load()],
        "kreuzberg": "not run: its server is the standalone kreuzberg CLI binary, which is "
        "not on PyPI (the Python package's `kreuzberg serve` asks for it)",
        "ok": not differ and served["other"] == 0 and exit_code == 0,
    }


def _summary(answers: list[Answer], wall: float) -> dict[str, Any]:
    ok = [a for a in answers if a.status == 200]
    return {
        "requests": len(answers),
        "concurrency_wall_s": round(wall, 1),
        "requests_per_s": round(len(answers) / wall, 1),
        "ok_records": sum(1 for a in ok if a.record_status != "failed"),
        "failed_records": sum(1 for a in ok if a.record_status == "failed"),
        "hostile_failed": sum(1 for a in ok if a.path is None and a.record_status == "failed"),
        "hostile_sent": sum(1 for a in answers if a.path is None),
        "503": sum(a.refused for a in answers),
        "other": sum(1 for a in answers if a.status not in (200, 503)),
        "p50_s": round(_quantile([a.seconds for a in ok], 0.5), 3),
        "p99_s": round(_quantile([a.seconds for a in ok], 0.99), 3),
    }


def render(result: dict[str, Any]) -> str:
    s, loop = result["server"], result["loop"]
    rows = [
        ["indexer serve", s["requests"], f"{s['ok_records']} / {s['failed_records']}",
         s["503"], s["other"], s["p50_s"], s["p99_s"], s["requests_per_s"]],
        ["indexer extract loop", loop["files"], "", "", "", loop["p50_s"], loop["p99_s"],
         loop["files_per_s"]],
    ]  # fmt: skip
    head = ["run", "requests", "ok / failed records", "503", "other", "p50 s", "p99 s", "req/s"]
    rss = s["rss_mb"]
    return (
        f"{table(head, rows)}\n\nhostile files: {s['hostile_failed']} of {s['hostile_sent']} "
        f"answered 200 with a failed record\nRSS peak (MB), whole run / first quarter / last "
        f"quarter: server and workers {rss['tree']} / {rss['first_quarter_tree']} / "
        f"{rss['last_quarter_tree']}; the server process alone {rss['server']} / "
        f"{rss['first_quarter_server']} / {rss['last_quarter_server']}\n"
        f"exit status after SIGTERM: {s['exit_on_sigterm']}; answers that differ from the "
        f"loop's: {len(result['answers_differ'])}; load {result['load']}\n"
        f"kreuzberg: {result['kreuzberg']}"
    )
