"""Shared fixtures: where the real-world corpus and the reference outputs live."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
GOLDEN = SHARED / "reference" / "leanctx-golden.json"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared real-world corpus; skips the test when it is not beside the repo."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        pytest.skip("../shared/corpus is not available")
    return CORPUS
