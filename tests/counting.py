"""A registry whose extractors note every call in a file: extractions counted across
every worker process, whichever pool ran them.

`Counted` wraps an extractor's function (or a container's reader) and pickles by value
with the registry the pools receive, so each worker appends to the same log.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from indexer.registry import Registry, default_registry


@dataclass(frozen=True, slots=True)
class Counted:
    """`fn`, noting each call as a line `<extractor> <sha256 of the bytes> <path>`."""

    fn: Callable[..., Any]
    name: str
    log: str

    def __call__(self, data: bytes, path: str, *rest: Any) -> Any:
        digest = hashlib.sha256(data).hexdigest()[:16]
        with open(self.log, "a", encoding="utf-8") as calls:
            calls.write(f"{self.name}\t{digest}\t{path}\n")
        return self.fn(data, path, *rest)


def counting_registry(log: Path, base: Registry | None = None) -> Registry:
    """`base` (the default registry) with every extractor and container reader counted
    into `log`."""
    source = base or default_registry()
    registry = Registry()
    for spec in source.extractors():
        counted = replace(spec, extract=Counted(spec.extract, spec.name, str(log)))
        if spec.children is not None:
            counted = replace(counted, children=Counted(spec.children, spec.name, str(log)))
        registry.register(counted)
    return registry


def calls(log: Path) -> list[tuple[str, str, str]]:
    """Every call noted in `log`: (extractor, content hash, path), in no set order."""
    if not log.exists():
        return []
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(a, b, c) for a, b, c in (line.split("\t") for line in lines)]


def by_content(log: Path) -> Counter[tuple[str, str]]:
    """How many times each (extractor, content) was extracted."""
    return Counter((name, digest) for name, digest, _ in calls(log))
