"""Shared fixtures: the real-world corpus and formats, located once (tests/sharedfiles.py).

Every test under tests/e2e/ is marked `slow`, so `pytest -m "not slow"` leaves out whole
runs and whole-corpus passes (the fast lane); the lane also runs a quarter of each property
test's Hypothesis examples (tests/lane.py).

Helper modules beside this file (crashy, hostile, sharedfiles) import by name from any
test folder: pyproject's `pythonpath` puts tests/ on sys.path.
"""

from __future__ import annotations

from collections.abc import Iterator
from multiprocessing import resource_tracker
from pathlib import Path

import lane
import pytest
from sharedfiles import CORPUS, FORMATS, NO_CORPUS, NO_FORMATS

E2E = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config: pytest.Config) -> None:
    lane.choose(config)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module", autouse=True)
def no_resource_tracker_left() -> Iterator[None]:
    """Stop the resource tracker a module's dask cluster starts in this process: it would
    outlive the module as a child, and test_pool counts children whatever ran before."""
    yield
    resource_tracker._resource_tracker._stop()  # a no-op when none was started


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared real-world corpus; skips the test when it is not beside the repo."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        pytest.skip(NO_CORPUS)
    return CORPUS


@pytest.fixture(scope="session")
def formats() -> Path:
    """The shared office, archive and image files; skips the test when they are absent."""
    if not (FORMATS / "SOURCES.md").exists():
        pytest.skip(NO_FORMATS)
    return FORMATS
