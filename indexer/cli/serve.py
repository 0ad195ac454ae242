"""`indexer serve`: the HTTP service (`indexer.service.app`) on uvicorn; `indexer mcp`:
the MCP server (`indexer.service.mcp`) on stdio.

It binds 127.0.0.1 unless told otherwise, and refuses any other address without a
bearer token (read from the environment variable `--token-env` names, never from
the command line, where `ps` would show it). SIGTERM or SIGINT stops accepting
connections, lets the requests in flight finish (each is bounded by
`--request-timeout`), closes the worker pools and exits 0.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import Any

from indexer.cli.exits import Exit
from indexer.cli.parser import Parser, add_verbose, word_or
from indexer.errors import ConfigError

DEFAULT_TOKEN_ENV = "INDEXER_TOKEN"


def add_serve(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare the `serve` subcommand and its arguments."""
    serve = sub.add_parser("serve", help="serve extraction over HTTP (POST /v1/extract)")
    add_verbose(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to bind (8000; 0: any free)")
    serve.add_argument(
        "--token-env", metavar="NAME",
        help=f"environment variable holding the bearer token (default {DEFAULT_TOKEN_ENV}; "
        "required for an address other than loopback)",
    )  # fmt: skip
    _add_extraction(serve)
    serve.add_argument("--concurrency", type=int, help="extractions at once (workers+pdf-workers)")
    serve.add_argument("--queue", type=int, default=32, help="requests that may wait (32)")
    serve.add_argument("--max-body-mb", type=float, help="largest request body (max_file_bytes+1)")


def add_mcp(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare the `mcp` subcommand and its arguments."""
    mcp = sub.add_parser("mcp", help="serve extract, search and chunks to an agent (MCP, stdio)")
    add_verbose(mcp)
    _add_extraction(mcp)


def _add_extraction(parser: argparse.ArgumentParser) -> None:
    """The arguments `serve` and `mcp` share: the config and the worker pools."""
    parser.add_argument("--config", type=Path, metavar="TOML", help="TOML config, as for extract")
    count: Any = word_or(int)  # a number, or "auto" for the config's own check
    parser.add_argument("--workers", type=count, help="general worker processes (auto)")
    parser.add_argument("--pdf-workers", type=count, help="isolated worker processes (auto)")
    parser.add_argument(
        "--request-timeout", type=float, default=300.0, help="seconds per extraction (300)"
    )
    parser.add_argument(
        "--scratch", type=Path, metavar="DIR",
        help="where each request's one-file run is written (the system's temp folder; "
        "a tmpfs such as /dev/shm makes its fsyncs free)",
    )  # fmt: skip


def mcp_command(args: argparse.Namespace) -> int:
    """Serve MCP on stdin/stdout until the client closes them; return 0, or 2 for a
    usage error."""
    try:
        from indexer.service.extractor import Extractor, pool_config
        from indexer.service.mcp import build
    except ImportError as exc:
        print(f"indexer: mcp needs its extra: pip install 'corpus-indexer[serve]' ({exc})",
              file=sys.stderr)  # fmt: skip
        return Exit.USAGE
    try:
        pools = pool_config(args)
    except ConfigError as exc:
        print(f"indexer: config error: {exc}", file=sys.stderr)
        return Exit.USAGE
    if args.request_timeout <= 0 or (args.scratch is not None and not args.scratch.is_dir()):
        print("indexer: --request-timeout must be > 0 and --scratch a folder", file=sys.stderr)
        return Exit.USAGE
    build(Extractor(args.config, pools, args.request_timeout, args.scratch)).run("stdio")
    return Exit.OK


def serve_command(args: argparse.Namespace) -> int:
    """Run the server until SIGTERM or SIGINT; return 0 then, 2 for a usage error."""
    try:
        from indexer.service.serving import Settings, serve
    except ImportError as exc:
        print(f"indexer: serve needs its extra: pip install 'corpus-indexer[serve]' ({exc})",
              file=sys.stderr)  # fmt: skip
        return Exit.USAGE
    token, problem = _token(args)
    if problem:
        print(f"indexer: {problem}", file=sys.stderr)
        return Exit.USAGE
    try:
        settings = Settings.of(args, token)
    except (ConfigError, ValueError) as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return Exit.USAGE
    try:
        serve(settings)
    except (OSError, OverflowError) as exc:  # OverflowError: a port past 65535
        strerror = exc.strerror if isinstance(exc, OSError) else None
        print(f"indexer: cannot serve on {args.host}:{args.port}: {strerror or exc}",
              file=sys.stderr)  # fmt: skip
        return Exit.USAGE
    return Exit.OK


def _token(args: argparse.Namespace) -> tuple[str | None, str]:
    """The bearer token and "" — or None and why the server must not start."""
    name = args.token_env or DEFAULT_TOKEN_ENV
    token = os.environ.get(name) or None
    if args.token_env and token is None:
        return None, f"--token-env {name}: the variable is unset or empty"
    if token is None and not _loopback(args.host):
        return None, (
            f"binding {args.host} needs a bearer token: set {name} (or name another "
            "variable with --token-env)"
        )
    return token, ""


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False
