"""The JSON Schemas of the output's NDJSON lines: `documents`, `chunks`, `changes`.

Shipped with the package (`docs/output.md` describes every field), so a loader or a
test can check a run's output: `jsonschema.validate(record, indexer.schemas.load("chunks"))`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

NAMES = ("changes", "chunks", "documents")
"""The schemas there are, one per kind of output file."""


def load(name: str) -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of `name`'s lines. Raises ValueError for another name."""
    if name not in NAMES:
        raise ValueError(f"no schema {name!r}: there are {', '.join(NAMES)}")
    text = resources.files(__package__).joinpath(f"{name}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
