"""Shared fixtures: where the real-world corpus and the reference outputs live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Beside the checkout, as CI has it; INDEXER_SHARED points elsewhere (a git worktree).
SHARED = Path(
    os.environ.get("INDEXER_SHARED") or Path(__file__).resolve().parents[1].parent / "shared"
)
CORPUS = SHARED / "corpus"
FORMATS = SHARED / "formats"
GOLDEN = SHARED / "reference" / "leanctx-golden.json"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared real-world corpus; skips the test when it is not beside the repo."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        pytest.skip("../shared/corpus is not available")
    return CORPUS


@pytest.fixture(scope="session")
def formats() -> Path:
    """The shared office, archive and image files; skips the test when they are absent."""
    if not (FORMATS / "SOURCES.md").exists():
        pytest.skip("../shared/formats is not available")
    return FORMATS
