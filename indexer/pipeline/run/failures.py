"""New and known failures: what makes a run's exit status red.

A nightly run over an archive meets the same few encrypted or corrupt files every
night; an exit status that counts them is always red and says nothing. A failure is
*known* when the previous committed output holds a `failed` record for the same path
with the same content (its `sha256`); every other one is *new*, and only new ones count
against `max_failures`. A first run (no previous output) reports every failure as new;
an unchanged re-run, none.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from indexer.pipeline.output.staging import MANIFEST
from indexer.pipeline.output.verify import listed_documents

log = logging.getLogger(__name__)

_FAILED = b'"status":"failed"'
"""How a failed record's status reads in its line: only such lines are parsed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Failures:
    """A run's failed documents: new in this run, and known from the previous output."""

    new: int = 0
    known: int = 0


def count_failures(
    staging: Path, documents: list[str], previous_output: Path | None, failed: int
) -> Failures:
    """Split the `failed` documents of the staged `documents` files (names in `staging`)
    into new and known against the committed output in `previous_output` (blocking).

    Reads the document files only when there are failures; an unreadable previous
    output counts every failure as new. Raises OSError when the staged files do not read.
    """
    if not failed:
        return Failures()
    if previous_output is None:
        return Failures(new=failed)
    try:
        manifest = orjson.loads((previous_output / MANIFEST).read_bytes())
        names = [info.name for info in listed_documents(manifest)]
        before = failed_documents(previous_output / name for name in names)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("previous failures unreadable: %s", exc)
        return Failures(new=failed)
    now = failed_documents(staging / name for name in documents)
    known = sum(1 for doc in now if doc in before)
    return Failures(new=len(now) - known, known=known)


def failed_documents(paths: Iterable[Path]) -> list[tuple[str, str | None]]:
    """The (path, sha256) of every `failed` record in the document files `paths`, in order."""
    found: list[tuple[str, str | None]] = []
    for path in paths:
        with open(path, "rb") as handle:
            for line in handle:
                if _FAILED in line:
                    record = orjson.loads(line)
                    if record.get("status") == "failed":
                        found.append((record["path"], record.get("sha256")))
    return found
