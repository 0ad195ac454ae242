"""`indexer extract FILE`: `indexer run` over a one-file folder, its records printed.

The file goes through the very pipeline a run uses (the walk's skips, containers and
their children, isolation, packing, statuses) into a temporary OUT; what that run
committed is read back (`service.onefile`, as the server's `POST /v1/extract` does)
and printed. `--json` prints one object,
`{"document": {...}, "chunks": [...], "children": [{"document", "chunks"}, ...]}`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson

from indexer.cli.exits import Exit
from indexer.cli.parser import add_verbose
from indexer.errors import ConfigError
from indexer.service.onefile import (
    OCR_MODES,
    PDF_ENGINES,
    Choices,
    Record,
    answer,
    index_one,
    one_file_config,
    place,
)


def add_extract_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `indexer extract`'s arguments to `parser`."""
    parser.add_argument("file", metavar="FILE", help="the file to extract; - reads stdin")
    add_verbose(parser)
    parser.add_argument("--name", help="the file's name (for -: its extension picks the format)")
    parser.add_argument("--json", action="store_true", help="print the records as one JSON object")
    parser.add_argument("--text", action="store_true", help="print only the chunks' text")
    parser.add_argument("--config", type=Path, metavar="TOML", help="TOML config, as for run")
    parser.add_argument("--pdf-engine", choices=PDF_ENGINES)
    parser.add_argument("--ocr", choices=OCR_MODES, help="OCR of scans and images")
    parser.add_argument(
        "--whole-page", action="store_true", help="web pages: the whole page, not the article"
    )
    parser.add_argument(
        "--show-dropped",
        action="store_true",
        help="web pages: also print what main-content extraction left out, and why",
    )


def extract_command(args: argparse.Namespace) -> int:
    """Execute `indexer extract`; return its exit code (1 when the document failed)."""
    try:
        config = one_file_config(args.config, _choices(args))
    except ConfigError as exc:
        print(f"indexer: config error: {exc}", file=sys.stderr)
        return Exit.USAGE
    name = Path(args.name or ("stdin" if args.file == "-" else args.file)).name
    try:
        with tempfile.TemporaryDirectory(prefix="indexer-extract-") as tmp:
            source = Path(tmp, "source")
            source.mkdir()
            data = _place(args.file, source / name)
            records = index_one(source, Path(tmp, "out"), config)
            top = records[0]
            code = Exit.FAILURES if top.document.get("status") == "failed" else Exit.OK
            dropped = _dropped(args, top, data, source / name)
            with _quiet_on_a_closed_pipe():
                _print(args, records, dropped)
            return code
    except OSError as exc:
        print(f"indexer: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return Exit.USAGE


def _choices(args: argparse.Namespace) -> Choices:
    return Choices(pdf_engine=args.pdf_engine, ocr=args.ocr, whole_page=args.whole_page)


def _place(file: str, into: Path) -> bytes | None:
    """Put `file` (or stdin, for `-`) at `into`: a hard link where it can, else a copy.
    Returns the bytes read from stdin (None for a file). Raises OSError."""
    if file == "-":
        data = sys.stdin.buffer.read()
        into.write_bytes(data)
        return data
    place(Path(file), into)
    return None


def _dropped(
    args: argparse.Namespace, top: Record, data: bytes | None, path: Path
) -> list[tuple[str, str]]:
    """What main-content extraction left out of a web page, when asked."""
    if not args.show_dropped or top.document.get("kind") != "html":
        return []
    from indexer.formats import html

    return html.dropped(path.read_bytes() if data is None else data)


def _print(args: argparse.Namespace, records: list[Record], dropped: list[tuple[str, str]]) -> None:
    out = sys.stdout
    if args.json:
        payload = answer(records)
        if args.show_dropped:
            payload["dropped"] = [{"why": why, "text": text} for why, text in dropped]
        out.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    elif args.text:
        texts = [c["text"] for r in records for c in r.chunks]
        out.write("\n\n".join(texts) + ("\n" if texts else ""))
    else:
        for record in records:
            _print_record(record)
        for why, text in dropped:
            out.write(f"--- dropped: {why}\n{text}\n")
    out.flush()


def _print_record(record: Record) -> None:
    doc = record.document
    reason = f"  reason: {doc['reason']}" if doc.get("reason") else ""
    sys.stdout.write(
        f"=== {doc['path']}  kind: {doc.get('kind')}  status: {doc.get('status')}"
        f"{reason}  chunks: {len(record.chunks)}\n"
    )
    for chunk in record.chunks:
        meta = orjson.dumps(chunk.get("meta")).decode()
        sys.stdout.write(f"--- chunk {chunk['chunk']} {meta}\n{chunk['text']}\n")


@contextlib.contextmanager
def _quiet_on_a_closed_pipe() -> Iterator[None]:
    """A reader that went away (`| head`) ends the output, not in a traceback: stdout
    is pointed at /dev/null so that the interpreter's last flush finds nowhere to fail."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
