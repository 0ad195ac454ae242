"""A real `indexer serve` in a subprocess on 127.0.0.1, and a plugin that misbehaves.

The server is started as a user would start it (`python -m indexer serve --port 0`);
the port it bound is read from its stderr line. `PLUGIN` is installed the way pip
would (a module and a dist-info on the server's PYTHONPATH): `.segv` files crash
their worker, `.hang` files never finish, `.nap` files sleep the seconds they hold.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

PLUGIN = """
import ctypes
import time

from indexer import Chunk, Extracted
from indexer.registry import ExtractorSpec


def segv(data, path, options):
    ctypes.string_at(0)


def hang(data, path, options):
    while True:
        time.sleep(1)


def nap(data, path, options):
    time.sleep(float(data.decode() or "1"))
    return Extracted(kind="nap", text="rested", chunks=(Chunk(text="rested"),))


def specs():
    return [
        ExtractorSpec(name=n, kind=n, extensions=(n,), version="1", extract=f, isolated=True)
        for n, f in (("segv", segv), ("hang", hang), ("nap", nap))
    ]
"""


def install_plugin(root: Path) -> Path:
    """Write the plugin under `root`; return the folder to put on PYTHONPATH."""
    site = root / "site"
    dist = site / "servedplugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (site / "servedplugin.py").write_text(PLUGIN)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: servedplugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[indexer.extractors]\nserved = servedplugin:specs\n")
    return site


def environment(*paths: Path, **extra: str) -> dict[str, str]:
    """This environment with `paths` first on PYTHONPATH (the worktree stays on it)."""
    env = dict(os.environ, **extra)
    parts = [str(p) for p in paths] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


@dataclass
class Server:
    """A running `indexer serve` and a client for it."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def client(self, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def stop(self, signum: int = signal.SIGTERM, wait: float = 60) -> int:
        """Send `signum`; return the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(wait)


def start(tmp: Path, args: Sequence[str], env: dict[str, str], wait: float = 60) -> Server:
    """Start `indexer serve --port 0 ARGS`; return it once it listens. Raises
    RuntimeError (with its stderr) when it exits or stays silent instead."""
    log = tmp / f"serve-{time.monotonic_ns()}.err"
    with log.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "indexer", "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env,
        )  # fmt: skip
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", log.read_text())
        if found:
            return Server(process=process, url=found.group(1), log=log)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise RuntimeError(f"indexer serve did not start: {log.read_text()}")


def wait_running(server: Server, count: int, wait: float = 30) -> None:
    """Return once the server reports `count` requests extracting. Raises TimeoutError."""
    deadline = time.monotonic() + wait
    with server.client() as client:
        while time.monotonic() < deadline:
            if client.get("/v1/health").json()["running"] >= count:
                return
            time.sleep(0.02)
    raise TimeoutError(f"the server never ran {count} requests at once")
