"""Every registered extractor, called directly, on damaged copies of every built-in sample.

`spec.extract` is called without the guard a run puts around it, so an exception
fails the test here instead of becoming a quiet `failed` record: the extractors
promise never to raise, and this checks it without `../shared`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

from indexer._samples import SAMPLES, mutants
from indexer._spec import ExtractorSpec
from indexer._types import Options
from indexer.registry import default_registry

SPECS = default_registry().extractors()
OPTIONS = Options(max_chunk_chars=300)


def _check(spec: ExtractorSpec, label: str, data: bytes) -> None:
    path = f"mutant.{spec.extensions[0] if spec.extensions else 'txt'}"
    try:
        result = spec.extract(data, path, OPTIONS)
    except Exception as exc:  # the failure to report, with what caused it
        pytest.fail(f"{spec.name} raised {exc!r} on {label}")
    blank = [i for i, chunk in enumerate(result.chunks) if not chunk.text.strip()]
    assert not blank, f"{spec.name} gave blank chunks {blank} on {label}"


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_no_extractor_raises_or_gives_a_blank_chunk_on_the_conformance_mutants(
    spec: ExtractorSpec,
) -> None:
    for ext, sample in sorted(SAMPLES.items()):
        for label, data in mutants(ext, sample):
            _check(spec, label, data)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ext=st.sampled_from(sorted(SAMPLES)), seed=st.integers(1, 2**32))
def test_no_extractor_raises_or_gives_a_blank_chunk_on_mutants_of_any_seed(
    ext: str, seed: int
) -> None:
    for label, data in mutants(ext, SAMPLES[ext], seed):
        for spec in SPECS:
            _check(spec, f"{label} (seed {seed})", data)
