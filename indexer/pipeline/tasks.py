"""Functions that run inside worker processes; module-level so they pickle by reference."""

from __future__ import annotations

import time

from indexer._extract import run_extractor
from indexer._types import Options
from indexer.mail.attachments import expand
from indexer.pipeline.units import Unit
from indexer.registry import ExtractorSpec, Registry

Item = tuple[ExtractorSpec, str, bytes]


def extract_units(
    items: list[Item], options: Options, registry: Registry
) -> list[tuple[Unit, float]]:
    """Extract every item in turn; return each unit with its extraction time in seconds.

    A mail's attachments become its unit's children (isolated ones left pending).
    Never raises for a bad document: `run_extractor` turns exceptions into results.
    """
    results = []
    for spec, path, data in items:
        started = time.perf_counter()
        doc = run_extractor(spec, path, data, options)
        children = expand(data, doc, options, registry) if spec.kind == "eml" else ()
        results.append((Unit(doc=doc, children=children), time.perf_counter() - started))
    return results
