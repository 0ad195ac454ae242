"""Where the read-only ../shared data lives, and parametrisations over its files.

Tests take the corpus through the `corpus` fixture (tests/conftest.py); a parametrisation
over shared files uses `or_skip`, so a checkout without ../shared reports a skip with a
reason instead of collecting nothing. INDEXER_SHARED names another place for ../shared
(a worktree one level deeper than the main checkout, say).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(os.environ.get("INDEXER_SHARED") or Path(__file__).resolve().parents[2] / "shared")
CORPUS = SHARED / "corpus"
FORMATS = SHARED / "formats"
GOLDEN = SHARED / "reference" / "leanctx-golden.json"
NO_CORPUS = "../shared/corpus is not available"
NO_FORMATS = "../shared/formats is not available"
NO_GOLDEN = "../shared/reference is not available"


def corpus_rows() -> list[dict[str, str]]:
    """Return the corpus MANIFEST.tsv rows (relpath, bytes, format, ...); none without it."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def golden_cases(kind: str) -> list[dict[str, Any]]:
    """Return the reference's golden cases of `kind`; none without ../shared/reference."""
    if not GOLDEN.is_file():
        return []
    cases: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    return [case for case in cases if case["kind"] == kind]


def or_skip(values: Sequence[Any], reason: str) -> list[Any]:
    """Return `values` for `parametrize`, or one parameter set that skips with `reason`."""
    if values:
        return list(values)
    return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="absent")]
