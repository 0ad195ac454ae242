"""The `indexer` command line: `run`, `extract`, `search`, `export`, `capabilities`,
`conformance`, `serve`, `mcp`.

Exit codes are declared in `indexer.cli.exits` (and printed by `--help`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import orjson

from indexer._malloc import cap_arenas, pad_heap
from indexer.cli.exits import Exit, epilog
from indexer.cli.extract import add_extract_arguments, extract_command
from indexer.cli.parser import Parser, add_verbose
from indexer.service.onefile import OCR_MODES

_EPILOG = epilog()


def _parser() -> argparse.ArgumentParser:
    from indexer._version import __version__

    parser = Parser(
        prog="indexer",
        description="Turn a directory of documents into clean text and structure-aware chunks.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"indexer {__version__}")
    add_verbose(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run(sub)
    ext = sub.add_parser("extract", help="run the pipeline on one file and print its records")
    add_extract_arguments(ext)
    _add_search(sub)
    _add_service(sub)
    _add_export(sub)
    sub.add_parser("capabilities", help="print what this installation can extract, as JSON")
    conf = sub.add_parser("conformance", help="check the extractors-v1 invariants")
    conf.add_argument("--corpus", type=Path, help="also check every file under this directory")
    conf.add_argument("--json", action="store_true", help="print the full scorecard as JSON")
    conf.add_argument("--ocr", choices=OCR_MODES, default="auto", help="OCR of scans and images")
    return parser


def _add_run(sub: argparse._SubParsersAction[Parser]) -> None:
    from indexer.cli.run import add_run_arguments

    run = sub.add_parser(
        "run",
        help="index a directory into NDJSON shards",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_arguments(run)


def _add_search(sub: argparse._SubParsersAction[Parser]) -> None:
    from indexer.cli.search import add_search

    add_search(sub)


def _add_service(sub: argparse._SubParsersAction[Parser]) -> None:
    from indexer.cli.serve import add_mcp, add_serve

    add_serve(sub)
    add_mcp(sub)


def _add_export(sub: argparse._SubParsersAction[Parser]) -> None:
    from indexer.cli.export import add_export

    add_export(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv`; return the exit code (never calls sys.exit)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="indexer: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    if args.command == "extract":
        return extract_command(args)
    if args.command == "search":
        from indexer.cli.search import search_command

        return search_command(args)
    if args.command == "serve":
        from indexer.cli.serve import serve_command

        return serve_command(args)
    if args.command == "mcp":
        from indexer.cli.serve import mcp_command

        return mcp_command(args)
    if args.command == "export":
        from indexer.cli.export import export_command

        return export_command(args)
    if args.command == "capabilities":
        return _capabilities()
    if args.command == "conformance":
        return _conformance(args)
    from indexer.cli.run import run_command

    return run_command(args)


def _capabilities() -> int:
    from indexer.capabilities import capabilities

    sys.stdout.buffer.write(orjson.dumps(capabilities(), option=orjson.OPT_INDENT_2) + b"\n")
    return Exit.OK


def _conformance(args: argparse.Namespace) -> int:
    import anyio

    from indexer._types import Options
    from indexer.conformance import check

    if args.corpus is not None and not args.corpus.is_dir():
        print(f"indexer: --corpus {args.corpus} is not a directory", file=sys.stderr)
        return Exit.USAGE
    card = anyio.run(check, None, args.corpus, Options(ocr_mode=args.ocr))
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(card.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        for c in card.checks:
            mark = "ok  " if c.passed else "FAIL"
            print(f"{mark} {c.category:8} {c.name:48} {c.detail}")
        data = card.to_dict()
        print(
            f"conformance {'passed' if card.all_passed else 'FAILED'}: "
            f"{data['passed']}/{data['total']} checks"
        )
    return Exit.OK if card.all_passed else Exit.FAILURES


def entry() -> None:
    """Console-script entry point.

    Leaves without the interpreter's teardown: every output file is closed and
    fsynced by then, and the teardown would be a large part of an unchanged re-run.
    """
    cap_arenas()
    pad_heap()
    code = main()
    # The run is over, committed or not: a late signal must not change its exit status.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a closed pipe (`indexer run --json | head`)
            stream.flush()
    logging.shutdown()
    os._exit(code)
