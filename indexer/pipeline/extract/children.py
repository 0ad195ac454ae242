"""Documents inside documents: which kinds hold children, and one way to nest them.

A mail (`eml`, `msg`) holds attachments, an archive holds members; either may hold
the other, to any depth the limits allow. Every child is handled the same way
wherever it was found: skipped past the depth limit, handed back as pending bytes
when its extractor runs isolated (a PDF), else extracted here and its own children
appended after it, their suffixes prefixed with its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from indexer._extract import run_extractor
from indexer._types import Extracted, Options
from indexer.formats.archive import Budget
from indexer.pipeline.output.units import Child
from indexer.registry import ExtractorSpec, Registry

PARENTS = ("eml", "msg", "archive")
"""The kinds whose documents may hold children."""
MAIL_DEPTH = 4
"""How deep messages in messages are followed (archives: `ContainerLimits.max_depth`)."""


def unit_of(
    spec: ExtractorSpec,
    name: str,
    data: bytes,
    options: Options,
    registry: Registry,
    *,
    rel: str | None = None,
    depth: int = 0,
    budget: Budget | None = None,
    context: dict[str, Any] | None = None,
) -> tuple[Extracted, tuple[Child, ...]]:
    """`data`'s document and its children, in order; never raises.

    `name` is the path its extractor is given; `rel` its record path (`name` if None).

    `depth` is how deeply the document is nested; `budget` what the archive it is in
    may still unpack; `context` the enclosing mail's headers, for its members' meta.
    """
    # Here, not at the top: the MIME and archive machinery is only a worker's business.
    if spec.kind == "archive" and data and not data.isspace():
        from indexer.pipeline.extract.members import expand_archive

        budget = budget or Budget(options.containers)
        where = rel or name
        return expand_archive(data, where, options, registry, depth, budget, context or {})
    doc = run_extractor(spec, name, data, options)
    if spec.kind not in PARENTS:
        return doc, ()
    from indexer.pipeline.extract.attachments import expand

    if spec.kind == "msg":
        from indexer.formats.msg import as_mime

        data = as_mime(data) or b""
    return doc, expand(data, doc, options, registry, depth, budget=budget, rel=rel or name)


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
    if spec.isolated:
        yield make(kind=spec.kind, extractor=spec.name, pending=data)
        return
    doc, inner = unit_of(
        spec, name, data, options, registry,
        rel=rel + suffix, depth=depth + 1, budget=budget, context=context,
    )  # fmt: skip
    yield make(kind=spec.kind, extractor=spec.name, extracted=doc)
    for child in inner:
        yield replace(child, suffix=suffix + child.suffix)
