"""A real PostgreSQL server for the tests: `initdb` into a fresh temporary folder, then
`postgres` listening on 127.0.0.1 only, at a free port, with no Unix socket.

PostgreSQL refuses to run as root: as root the server runs as the `postgres` system user
(the Debian package makes it; created here if missing) through `setpriv`, which execs the
server itself, so the process this module holds is the postmaster and SIGTERM stops it.
The folder is made by `tempfile` under the system's temporary folder (pytest's own are
root-only) and handed to that user. Without the programs the tests fail, never skip:
`scripts/install-postgres` (run by `scripts/test`) installs them.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

MISSING = (
    "the PostgreSQL tests need initdb and postgres: scripts/test installs them when run "
    "as root (scripts/install-postgres: apt-get install postgresql); see docs/sinks.md"
)
USER = "postgres"


@dataclass(frozen=True, slots=True, kw_only=True)
class Server:
    """A running test server."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def dsn(self, dbname: str = "postgres") -> str:
        """A libpq connection string for `dbname` on this server."""
        return f"host=127.0.0.1 port={self.port} user={USER} dbname={dbname} connect_timeout=10"


def bindir() -> Path:
    """The folder of the newest installed server's programs; fails the test without one."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version)
    if found:
        return Path(found[-1])
    initdb = shutil.which("initdb")
    if initdb is None:
        pytest.fail(MISSING)
    return Path(initdb).resolve().parent


def _version(bindir: str) -> list[int]:
    """The version of /usr/lib/postgresql/VERSION/bin, as numbers (9.6 < 15)."""
    return [int(n) for n in re.findall(r"\d+", Path(bindir).parent.name)]


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_server_user() -> list[str]:
    """The command prefix that runs a program as a user PostgreSQL accepts, sent SIGINT
    (a fast shutdown) when this process dies: a killed pytest leaves no server behind."""
    prefix = ["setpriv", "--pdeathsig", "SIGINT"]
    if os.geteuid() != 0:
        return [*prefix, "--"]
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", USER], check=True)
    return [*prefix, f"--reuid={USER}", f"--regid={USER}", "--init-groups", "--"]


@contextmanager
def running() -> Iterator[Server]:
    """Start a fresh server; yield it once it accepts connections; stop it and delete
    its folder. Fails the test when it cannot start (its log in the message)."""
    programs, prefix = bindir(), _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="indexer-pg-"))
    data, log = root / "data", root / "server.log"
    if os.geteuid() == 0:
        shutil.chown(root, USER, USER)
    try:
        init = [str(programs / "initdb"), "-D", str(data), "-U", USER, "--auth=trust"]
        subprocess.run(
            [*prefix, *init, "-E", "UTF8", "--no-locale"], check=True, capture_output=True
        )
        with _started(programs, prefix, data, log) as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _started(programs: Path, prefix: list[str], data: Path, log: Path) -> Iterator[Server]:
    port = free_port()
    command = [
        str(programs / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(port),
        "-k", "", "-c", "fsync=off", "-c", "full_page_writes=off",
    ]  # fmt: skip
    with open(log, "wb") as sink:
        process = subprocess.Popen([*prefix, *command], stdout=sink, stderr=subprocess.STDOUT)
    server = Server(port=port, process=process, log=log)
    try:
        _wait_ready(server)
        yield server
    finally:
        process.send_signal(signal.SIGINT)  # "fast" shutdown: sessions ended, no wait
        process.wait(timeout=60)


def _wait_ready(server: Server) -> None:
    """Return once the server answers; fails the test if it exits or never answers."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"postgres exited {server.process.returncode}: {server.log.read_text()}")
        try:
            psycopg.connect(server.dsn(), connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            time.sleep(0.1)
    pytest.fail(f"postgres did not answer within 60 s: {server.log.read_text()}")


def create_database(server: Server, name: str) -> str:
    """Create an empty database `name`; return its DSN."""
    with psycopg.connect(server.dsn(), autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return server.dsn(name)
