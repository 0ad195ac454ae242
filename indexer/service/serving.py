"""`indexer serve`'s settings and its uvicorn server.

The socket is bound here, before uvicorn starts, so that `--port 0` can say which
port it got (one line on stderr, `indexer serve: listening on http://HOST:PORT`)
and a port in use is a usage error, not a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from indexer.config import Config
from indexer.service.app import create_app
from indexer.service.extractor import Extractor, pool_config
from indexer.service.limits import Limits

MiB = 1 << 20
DRAIN_MARGIN = 10.0
"""Seconds a drain waits beyond the request timeout before it cancels what is left."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything `indexer serve` was told, checked."""

    host: str
    port: int
    token: str | None
    config: Path | None
    pools: Config
    """The pools' sizes and limits (`workers`, `pdf_workers`, `[isolation]`)."""
    limits: Limits
    scratch: Path | None = None
    verbose: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace, token: str | None) -> Settings:
        """The settings `args` ask for; raises `ConfigError` or `ValueError`."""
        pools = pool_config(args)
        running = args.concurrency
        if running is None:
            running = pools.workers + pools.pdf_workers
        body = pools.max_file_bytes + MiB if args.max_body_mb is None else args.max_body_mb * MiB
        if args.scratch is not None and not args.scratch.is_dir():
            raise ValueError(f"--scratch {args.scratch} is not a folder")
        if running < 1 or args.queue < 0 or body < 1 or args.request_timeout <= 0:
            raise ValueError("--concurrency, --max-body-mb and --request-timeout must be > 0, "
                             "--queue >= 0")  # fmt: skip
        limits = Limits(
            max_body=int(body), running=running, waiting=args.queue,
            request_timeout=args.request_timeout,
        )  # fmt: skip
        return cls(
            host=args.host, port=args.port, token=token, config=args.config, pools=pools,
            limits=limits, scratch=args.scratch, verbose=bool(getattr(args, "verbose", False)),
        )  # fmt: skip


class _Server(uvicorn.Server):
    """uvicorn's server, but a signal that stopped it is not raised again after the
    drain (uvicorn's default, which would end the process with 143): a drained
    server exits 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {s: signal.signal(s, self.handle_exit) for s in handled}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def serve(settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT, then drain and return. Raises OSError when the
    address cannot be bound."""
    limits = settings.limits
    extractor = Extractor(settings.config, settings.pools, limits.request_timeout, settings.scratch)
    app = create_app(extractor, limits, settings.token)
    sock = _bound(settings.host, settings.port)
    config = uvicorn.Config(
        app,
        log_level="debug" if settings.verbose else "warning",
        access_log=settings.verbose,
        lifespan="on",
        # A backstop on open connections; the queue limit answers 503 well before it.
        limit_concurrency=4 * (limits.running + limits.waiting) + 16,
        timeout_graceful_shutdown=int(limits.request_timeout + DRAIN_MARGIN),
    )
    host, port = sock.getsockname()[:2]
    where = f"[{host}]" if ":" in host else host
    print(f"indexer serve: listening on http://{where}:{port}", file=sys.stderr, flush=True)
    _Server(config).run(sockets=[sock])


def _bound(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    # Listening now: a client that connects while the app starts waits in the backlog
    # instead of being refused.
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
