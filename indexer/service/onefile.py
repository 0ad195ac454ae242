"""One file through the very pipeline a run uses, its records read back: what
`indexer extract` prints and what `POST /v1/extract` answers.

The file sits alone in a folder; `indexer run` over that folder (the walk's skips,
containers and their children, isolation, packing, statuses) commits into a
temporary OUT, and what it committed is read back, the file's own record first, then
its children in walk order. The CLI runs it on pools of its own; the server lends
its long-lived pools (`pools=`), which changes where the work runs, not its records.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from indexer.config import Config, load_config

if TYPE_CHECKING:
    from indexer.pipeline.engines.context import Pools
    from indexer.pipeline.run.interrupts import Interrupts
    from indexer.pipeline.run.runner import Enter, RunSummary

OCR_MODES = ("auto", "off", "force")
PDF_ENGINES = ("pdfium", "pdfplumber")


@dataclass(frozen=True, slots=True, kw_only=True)
class Choices:
    """The per-file options `indexer extract` takes as flags (None: the config's)."""

    pdf_engine: str | None = None
    ocr: str | None = None
    whole_page: bool = False


@dataclass(slots=True)
class Record:
    """A document record and its chunk records, as the run committed them."""

    document: dict[str, Any]
    chunks: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """`{"document": {...}, "chunks": [...]}`."""
        return {"document": self.document, "chunks": self.chunks}


def one_file_config(config: str | Path | None, choices: Choices) -> Config:
    """The settings of a one-file run: the TOML file `config` (if any), `choices`, one
    worker of each kind. Raises `ConfigError` for a bad file or value."""
    # The file was named on purpose: a dot-file is extracted, not passed over.
    given: dict[str, object] = {
        "workers": 1, "pdf_workers": 1, "quiet": True, "skip_hidden": False,
    }  # fmt: skip
    if choices.pdf_engine is not None:
        given["pdf_engine"] = choices.pdf_engine
    if choices.ocr is not None:
        given["ocr_mode"] = choices.ocr
    if choices.whole_page:
        given["main_content"] = False
    return load_config(str(config) if config is not None else None, given)


def index_one(
    source: Path,
    out: Path,
    config: Config,
    *,
    pools: Pools | None = None,
    enter: Enter[RunSummary] | None = None,
    interrupts: Interrupts | None = None,
) -> list[Record]:
    """Run the pipeline over the one-file folder `source` into `out` (blocking); return
    its records in walk order (the file's own first, then its children).

    `pools` and `enter` are `execute`'s (the server's pools, its event loop); a stop
    through `interrupts` raises `Interrupted`. Raises what `indexer.run` raises."""
    from indexer.pipeline.run.runner import execute

    summary = execute(
        source, out, config, registry=None, progress=False,
        enter=enter, interrupts=interrupts, pools=pools,
    )  # fmt: skip
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


def answer(records: list[Record]) -> dict[str, Any]:
    """`{"document": ..., "chunks": [...], "children": [{"document", "chunks"}, ...]}`:
    the file's own record, then its children's, as `indexer extract --json` prints."""
    top, children = records[0], records[1:]
    return {**top.to_dict(), "children": [c.to_dict() for c in children]}


def place(path: Path, into: Path) -> None:
    """Put the file `path` at `into`: a hard link where it can, else a copy. Raises
    OSError (FileNotFoundError when `path` is not a file)."""
    if not path.is_file():
        raise FileNotFoundError(2, "not a file", str(path))
    try:
        os.link(path, into)
    except OSError:  # another file system, or links not allowed: copy it
        shutil.copyfile(path, into)


def _lines(out: Path, pattern: str) -> Iterator[bytes]:
    for path in sorted(out.glob(pattern)):
        with path.open("rb") as f:
            yield from f
