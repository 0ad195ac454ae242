"""Helpers shared by the `text`, `json` and `csv` extractor tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sharedfiles import GOLDEN

from indexer import Options, extract
from indexer._text import decode

Case = tuple[str, str, str, str, list[str]]
"""A golden case as the tests list it: (name, path, input, text, chunk texts)."""

REGISTRY_INPUTS = (
    "",
    "single line",
    "a\n\n\n\nb  \n",
    "para one\n\npara two\n\n\npara three",
    "mültibyte ä ö ü 漢字 \n\n end",
    "hello world",
    "  \n\t \n",
)
"""The inputs of the golden cases with `registry_chunkers` outputs, in file order."""


def outcome(path: str, source: str, options: Options | None = None) -> tuple[str, list[str]]:
    """Return the text and chunk texts `extract()` gives for `source` named `path`."""
    result = extract(path, source.encode(), options)
    return result.text, [c.text for c in result.chunks]


def manifest_paths(corpus: Path, *formats: str) -> list[str]:
    """Return the corpus paths whose MANIFEST.tsv format is one of `formats`."""
    rows = (line.split("\t") for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:])
    return [row[0] for row in rows if row[3] in formats]


def assert_invariants(corpus: Path, relpath: str, kind: str) -> bool:
    """Check the four invariants on one corpus file; return whether it came out degraded."""
    data = (corpus / relpath).read_bytes()
    result = extract(relpath, data)
    assert (result.kind, result.error) == (kind, None), relpath
    assert bool(result.chunks) == bool(decode(data).strip()), relpath
    assert all(c.text.strip() and len(c.text) <= 4000 for c in result.chunks), relpath
    assert extract(relpath, data) == result, relpath
    return result.degraded


def golden(kind: str) -> dict[str, dict[str, Any]]:
    """Return the reference's cases of `kind` by name."""
    cases = json.loads(GOLDEN.read_text())["cases"]
    return {c["name"]: c for c in cases if c["kind"] == kind}


def assert_lists_match_golden(kind: str, agreed: list[Case], diverged: list[Case]) -> None:
    """Check that `agreed` holds the reference's outputs and `diverged` differs from them."""
    cases = golden(kind)
    for name, _, source, text, chunks in agreed:
        expected = cases[name]
        assert (source, text, chunks) == (expected["input"], expected["text"], expected["chunks"])
    for name, _, source, text, chunks in diverged:
        expected = cases[name]
        assert source == expected.get("input", source)
        assert (text, chunks) != (expected["text"], expected["chunks"]), name


def golden_registry_chunks(name: str) -> list[tuple[str, list[str]]]:
    """Return (input, chunk texts) of the reference's `registry_chunkers[name]`, in file order."""
    cases = json.loads(GOLDEN.read_text())["cases"]
    return [(c["input"], c["registry_chunkers"][name]) for c in cases if "registry_chunkers" in c]
