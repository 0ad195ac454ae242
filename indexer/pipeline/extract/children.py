"""Documents inside documents: a document and its children, whatever its kind.

A mail (`eml`, `msg`) holds attachments, an archive holds members; either may hold
the other, to any depth the limits allow (each child is nested by `nest.nested`).
"""

from __future__ import annotations

from typing import Any

from indexer._extract import run_extractor
from indexer._types import Extracted, Options
from indexer.formats.archive import Budget
from indexer.pipeline.extract.members import expand_archive
from indexer.pipeline.extract.nest import PARENTS
from indexer.pipeline.output.units import Child
from indexer.registry import ExtractorSpec, Registry


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
    defer: bool = False,
) -> tuple[Extracted, tuple[Child, ...]]:
    """`data`'s document and its children, in order; never raises.

    `name` is the path its extractor is given; `rel` its record path (`name` if None).

    `depth` is how deeply the document is nested; `budget` what the archive it is in
    may still unpack; `context` the enclosing mail's headers, for its members' meta.
    With `defer`, an archive's members (but nested archives) are left pending, for the
    pool to extract: a zip of a thousand files then takes every worker, not one.
    """
    if spec.kind == "archive" and data and not data.isspace():
        budget = budget or Budget(options.containers)
        return expand_archive(
            data, rel or name, options, registry, depth, budget, context or {},
            unit=unit_of, defer=defer,
        )  # fmt: skip
    doc = run_extractor(spec, name, data, options)
    if spec.kind not in PARENTS:
        return doc, ()
    # Here, not at the top: the mail stack (MIME, HTML, RTF, oxmsg) takes a worker that
    # opens an archive, which is alone on a run's critical path, a tenth of a second.
    from indexer.formats.msg import as_mime
    from indexer.pipeline.extract.attachments import expand

    if spec.kind == "msg":
        data = as_mime(data) or b""
    return doc, expand(
        data, doc, options, registry, depth, budget=budget, rel=rel or name, unit=unit_of
    )
