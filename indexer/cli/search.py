"""`indexer search OUT "query"`: the best chunks of an indexed OUT, from its `fts` sink.

An OUT whose index is missing or older than its committed output is brought up to date
first, under OUT's lock (what a run with `sinks = ["fts"]` does after each commit);
while a run holds the lock, the index is searched as it is, with a warning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from indexer.cli.exits import Exit
from indexer.cli.parser import Parser


def add_search(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare the `search` subcommand and its arguments."""
    search = sub.add_parser("search", help="search an indexed OUT (BM25, with snippets)")
    search.add_argument("out", type=Path, metavar="OUT", help="an output folder of indexer run")
    search.add_argument("query", help='words that must all appear; "a phrase" in double quotes')
    search.add_argument("--json", action="store_true", help="one JSON object per hit")
    search.add_argument("--limit", type=int, default=10, help="hits to print (10)")
    search.add_argument("--kind", help="only documents of this kind (pdf, html, eml, ...)")
    search.add_argument("--path", metavar="GLOB", help="only documents whose path matches")
    search.add_argument(
        "--since", type=_day, metavar="DATE",
        help="only documents of this day (YYYY-MM-DD) or later: a mail's date, else the "
        "file's modified, else created time; one with none is left out",
    )  # fmt: skip
    search.add_argument(
        "--until", type=_day, metavar="DATE", help="only documents of this day or earlier"
    )


def _day(text: str) -> str:
    """argparse's check of a day: usage error (exit 2) for anything but YYYY-MM-DD."""
    from indexer.sinks.search import day

    try:
        return day(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def search_command(args: argparse.Namespace) -> int:
    """Run `indexer search`; return its exit code: 0 (hits or none), 2 (no output, no
    index, an empty query, a bad --limit or date), 75 (locked with no index yet)."""
    from indexer.sinks.search import search

    if args.limit < 1:
        print("indexer: --limit must be at least 1", file=sys.stderr)
        return Exit.USAGE
    refreshed = _refreshed(args.out)
    if refreshed is not None:
        return refreshed
    try:
        hits = search(
            args.out, args.query, limit=args.limit, kind=args.kind, path=args.path,
            since=args.since, until=args.until,
        )  # fmt: skip
    except (FileNotFoundError, ValueError) as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return Exit.USAGE
    for hit in hits:
        if args.json:
            sys.stdout.buffer.write(orjson.dumps(hit.to_dict()) + b"\n")
        else:
            print(f"{hit.score:8.3f}  {hit.path}#{hit.chunk}\n          {hit.snippet}")
    return Exit.OK


def _refreshed(out: Path) -> int | None:
    """Bring OUT's index up to date; None when it is (or may be searched as it is),
    else the exit code."""
    from indexer.errors import LockHeld
    from indexer.service.searching import up_to_date

    try:
        warning = up_to_date(out)
    except FileNotFoundError:
        print(f"indexer: {out} holds no committed output", file=sys.stderr)
        return Exit.USAGE
    except LockHeld:
        print(f"indexer: a run holds {out} and it has no index yet", file=sys.stderr)
        return Exit.LOCKED
    if warning:
        print(f"indexer: {warning}", file=sys.stderr)
    return None
