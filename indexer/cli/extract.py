"""`indexer extract FILE`: `indexer run` over a one-file folder, its records printed.

The file goes through the very pipeline a run uses (the walk's skips, containers and
their children, isolation, packing, statuses) into a temporary OUT; what that run
committed is read back and printed. `--json` prints one object,
`{"document": {...}, "chunks": [...], "children": [{"document", "chunks"}, ...]}`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from indexer.cli.exits import Exit
from indexer.cli.parser import add_verbose
from indexer.config import Config, load_config
from indexer.errors import ConfigError

OCR_MODES = ("auto", "off", "force")


def add_extract_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `indexer extract`'s arguments to `parser`."""
    parser.add_argument("file", metavar="FILE", help="the file to extract; - reads stdin")
    add_verbose(parser)
    parser.add_argument("--name", help="the file's name (for -: its extension picks the format)")
    parser.add_argument("--json", action="store_true", help="print the records as one JSON object")
    parser.add_argument("--text", action="store_true", help="print only the chunks' text")
    parser.add_argument("--config", type=Path, metavar="TOML", help="TOML config, as for run")
    parser.add_argument("--pdf-engine", choices=("pdfium", "pdfplumber"))
    parser.add_argument("--ocr", choices=OCR_MODES, help="OCR of scans and images")
    parser.add_argument(
        "--whole-page", action="store_true", help="web pages: the whole page, not the article"
    )
    parser.add_argument(
        "--show-dropped",
        action="store_true",
        help="web pages: also print what main-content extraction left out, and why",
    )


@dataclass(slots=True)
class Record:
    """A document record and its chunk records, as the run committed them."""

    document: dict[str, Any]
    chunks: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"document": self.document, "chunks": self.chunks}


def extract_command(args: argparse.Namespace) -> int:
    """Execute `indexer extract`; return its exit code (1 when the document failed)."""
    try:
        config = _config(args)
    except ConfigError as exc:
        print(f"indexer: config error: {exc}", file=sys.stderr)
        return Exit.USAGE
    name = Path(args.name or ("stdin" if args.file == "-" else args.file)).name
    try:
        with tempfile.TemporaryDirectory(prefix="indexer-extract-") as tmp:
            source = Path(tmp, "source")
            source.mkdir()
            data = _place(args.file, source / name)
            records = _index(source, Path(tmp, "out"), config)
            top, children = records[0], records[1:]
            code = Exit.FAILURES if top.document.get("status") == "failed" else Exit.OK
            dropped = _dropped(args, top, data, source / name)
            with _quiet_on_a_closed_pipe():
                _print(args, top, children, dropped)
            return code
    except OSError as exc:
        print(f"indexer: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return Exit.USAGE


def _config(args: argparse.Namespace) -> Config:
    """The run's settings: the config file, the flags, one worker of each kind."""
    # The file was named on purpose: a dot-file is extracted, not passed over.
    given: dict[str, object] = {
        "workers": 1, "pdf_workers": 1, "quiet": True, "skip_hidden": False,
    }  # fmt: skip
    if args.pdf_engine is not None:
        given["pdf_engine"] = args.pdf_engine
    if args.ocr is not None:
        given["ocr_mode"] = args.ocr
    if args.whole_page:
        given["main_content"] = False
    return load_config(str(args.config) if args.config else None, given)


def _place(file: str, into: Path) -> bytes | None:
    """Put `file` (or stdin, for `-`) at `into`: a hard link where it can, else a copy.
    Returns the bytes read from stdin (None for a file). Raises OSError."""
    if file == "-":
        data = sys.stdin.buffer.read()
        into.write_bytes(data)
        return data
    path = Path(file)
    if not path.is_file():
        raise FileNotFoundError(2, "not a file", file)
    try:
        os.link(path, into)
    except OSError:  # another file system, or links not allowed: copy it
        shutil.copyfile(path, into)
    return None


def _index(source: Path, out: Path, config: Config) -> list[Record]:
    """Run the pipeline over `source` into `out`; return its records, in walk order
    (the file's own first, then its children)."""
    from indexer.pipeline.run.runner import execute

    summary = execute(source, out, config, registry=None, progress=False)
    records: list[Record] = []
    by_id: dict[str, Record] = {}
    for line in _lines(Path(summary.out), "documents-*.ndjson"):
        record = Record(orjson.loads(line))
        records.append(record)
        by_id[record.document["doc_id"]] = record
    for line in _lines(Path(summary.out), "chunks-*.ndjson"):
        chunk = orjson.loads(line)
        by_id[chunk["doc_id"]].chunks.append(chunk)
    return records


def _lines(out: Path, pattern: str) -> Iterator[bytes]:
    for path in sorted(out.glob(pattern)):
        with path.open("rb") as f:
            yield from f


def _dropped(
    args: argparse.Namespace, top: Record, data: bytes | None, path: Path
) -> list[tuple[str, str]]:
    """What main-content extraction left out of a web page, when asked."""
    if not args.show_dropped or top.document.get("kind") != "html":
        return []
    from indexer.formats import html

    return html.dropped(path.read_bytes() if data is None else data)


def _print(
    args: argparse.Namespace,
    top: Record,
    children: list[Record],
    dropped: list[tuple[str, str]],
) -> None:
    out = sys.stdout
    if args.json:
        payload = {**top.to_dict(), "children": [c.to_dict() for c in children]}
        if args.show_dropped:
            payload["dropped"] = [{"why": why, "text": text} for why, text in dropped]
        out.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    elif args.text:
        texts = [c["text"] for r in (top, *children) for c in r.chunks]
        out.write("\n\n".join(texts) + ("\n" if texts else ""))
    else:
        for record in (top, *children):
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
