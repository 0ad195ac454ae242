"""The capabilities listing: what this installation can extract, as deterministic JSON."""

from __future__ import annotations

from typing import Any

from indexer.registry import Registry, default_registry


def capabilities(registry: Registry | None = None) -> dict[str, Any]:
    """Return the contract, package version, every extractor, the chunker names and OCR.

    Extractors are sorted by name and every key order is fixed, so the output is
    byte-identical across runs of the same installation.
    """
    from indexer._version import CONTRACT, __version__
    from indexer.formats.ocr import describe

    registry = registry or default_registry()
    return {
        "contract": CONTRACT,
        "version": __version__,
        "extractors": [
            {
                "name": spec.name,
                "kind": spec.kind,
                "extensions": list(spec.extensions),
                "version": spec.version,
                "isolated": spec.isolated,
                "fallback": spec.fallback,
                "origin": "builtin" if spec.builtin else "plugin",
            }
            for spec in registry.extractors()
        ],
        "chunkers": [spec.name for spec in registry.chunkers()],
        "ocr": describe(),
    }
