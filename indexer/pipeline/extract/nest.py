"""One way to nest a child document, wherever it was found (attachment or member).

The child is skipped past the depth limit; handed back as pending bytes when its
extractor runs isolated (a PDF), or when `defer` asks for every member of an archive
to be extracted by the pool; else extracted here by `unit` (`children.unit_of`,
passed in so that the modules which find children need not import it) and its own
children appended after it, their suffixes prefixed with its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats.archive import Budget
from indexer.pipeline.output.units import Child
from indexer.registry import ExtractorSpec, Registry

PARENTS = ("eml", "msg", "archive")
"""The kinds whose documents may hold children."""
MAIL_DEPTH = 4
"""How deep messages in messages are followed (archives: `ContainerLimits.max_depth`)."""

UnitFn = Callable[..., tuple[Extracted, tuple[Child, ...]]]
"""`children.unit_of`."""


def nested(
    spec: ExtractorSpec,
    name: str,
    data: bytes,
    make: Callable[..., Child],
    options: Options,
    registry: Registry,
    *,
    suffix: str,
    rel: str,
    depth: int,
    budget: Budget | None,
    context: dict[str, Any],
    unit: UnitFn,
    defer: bool = False,
) -> Iterator[Child]:
    """The child `make` describes (content `data`, extracted by `spec`), then its own.

    `make` takes the fields that differ by outcome (`kind`, `extractor`, `extracted`,
    `skip`, `pending`); `name` is the path its extractor is given, `suffix` what its
    record path adds to `rel`, the record path of the document holding it.
    """
    limit = options.containers.max_depth if spec.kind == "archive" else MAIL_DEPTH
    if spec.kind in PARENTS and depth + 1 > limit:
        yield make(kind=spec.kind, extractor=spec.name, skip="depth_limit")
        return
    if spec.isolated or (defer and spec.kind != "archive"):
        yield make(kind=spec.kind, extractor=spec.name, pending=data)
        return
    doc, inner = unit(
        spec, name, data, options, registry,
        rel=rel + suffix, depth=depth + 1, budget=budget, context=context, defer=defer,
    )  # fmt: skip
    yield make(kind=spec.kind, extractor=spec.name, extracted=doc)
    for child in inner:
        yield replace(child, suffix=suffix + child.suffix)
