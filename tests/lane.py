"""The fast lane's share of Hypothesis examples.

`pytest -m "not slow"` (the lane) loads the `lane` profile: a property test runs a quarter
of its examples there, and all of them in the full suite (scripts/test, CI). A test that
names its own count writes `max_examples=examples(200)` so that the share applies to it too.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

FULL = settings.default.max_examples
"""Hypothesis's own default: what a test without a count runs in the full suite."""

settings.register_profile("lane", max_examples=FULL // 4)
settings.register_profile("ci", derandomize=True, database=None)
"""CI (`.ci/run`): every example, the same ones for the same commit; a developer's
runs draw new ones each time, and a failure they find is pinned as a test."""


def choose(config: pytest.Config) -> None:
    """Load the lane profile when slow tests are left out and no profile was asked for."""
    if "not slow" in (config.option.markexpr or "") and not config.getoption(
        "hypothesis_profile", None
    ):
        settings.load_profile("lane")


def examples(full: int) -> int:
    """The examples to run of a test that runs `full` of them in the full suite."""
    return max(10, full * settings.default.max_examples // FULL)
