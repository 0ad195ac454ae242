"""Functions that run inside worker processes; module-level so they pickle by reference."""

from __future__ import annotations

import time

from indexer._extract import run_extractor
from indexer._types import Extracted, Options
from indexer.registry import ExtractorSpec

Item = tuple[ExtractorSpec, str, bytes]


def extract_batch(items: list[Item], options: Options) -> list[tuple[Extracted, float]]:
    """Extract every item in turn; return each result with its extraction time in seconds.

    Never raises for a bad document: `run_extractor` turns exceptions into results.
    """
    results = []
    for spec, path, data in items:
        started = time.perf_counter()
        result = run_extractor(spec, path, data, options)
        results.append((result, time.perf_counter() - started))
    return results
