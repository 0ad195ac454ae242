"""Pending children (an archive's members, a mail's PDFs) finished where they are extracted.

A worker extracts each child, packs its blocks, keys it and renders its records, so
what the parent receives is output lines, as for any file: a zip of a thousand files
is not packed and rendered in the parent. A child whose own children are still
pending (a PDF attached to a mail in a zip) comes back unrendered, for the parent to
resolve those first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from indexer._pickling import slotted_state
from indexer._types import Extracted, Options
from indexer.pipeline.extract.tasks import Job, extract_unit, keyed, packed
from indexer.pipeline.output.blocks import child_frame, thaw_child
from indexer.pipeline.output.records import Rendered, render, unit_docs
from indexer.pipeline.output.units import Child, Unit
from indexer.registry import Registry


@slotted_state
@dataclass(frozen=True, slots=True)
class Settled:
    """Children rendered: their records, in order, the cache keys they were extracted
    under (a unit's `deps`) and their blocks before packing (`blocks.child_frame`), for
    the parent's entry in the state."""

    docs: tuple[Rendered, ...]
    keys: tuple[str, ...]
    blocks: tuple[bytes, ...]
    copied: int = 0
    """Of `docs`, those rendered from another child's extraction (`as_copy`)."""


Outcome = Settled | tuple[Child, ...]
"""A pending child settled, or it and its own children, some still pending."""


def settle(
    children: list[Child],
    rel: str,
    options: Options,
    registry: Registry,
    digests: dict[str, str],
) -> list[Outcome]:
    """Extract each pending child of the document at `rel`; render it and its own
    children unless some of those are pending still. Never raises for a bad child."""
    out: list[Outcome] = []
    for child in children:
        unit = extract_unit(child_job(registry, child), options, registry)
        parent = replace(child, extracted=unit.doc, pending=None, nesting=None)
        flat = (parent, *(replace(c, suffix=child.suffix + c.suffix) for c in unit.children))
        if any(c.pending is not None for c in flat):
            out.append(flat)
        else:
            out.append(render_children(rel, flat, options, digests))
    return out


_HOLDER = Extracted(kind="", text="")
"""The document `unit_docs` is given to render children alone (its record is dropped)."""


def render_children(
    rel: str, children: tuple[Child, ...], options: Options, digests: dict[str, str]
) -> Settled:
    """The records of complete `children` of the document at `rel`: packed by
    `options.packing`, keyed by `digests`, as `tasks.finish` renders a whole unit."""
    unit = keyed(Unit(doc=_HOLDER, children=children), digests)
    blocks = tuple(child_frame(c) for c in unit.children)
    unit = packed(unit, options)
    docs = unit_docs(rel, "", "", None, 0, unit)[1:]
    keys = tuple(c.key for c in unit.children if c.key is not None)
    return Settled(tuple(render(d) for d in docs), keys, blocks)


def as_copy(
    child: Child, frame: bytes, rel: str, options: Options, digests: dict[str, str]
) -> Settled | None:
    """The records of pending `child` of the document at `rel`, rendered from `frame`,
    the blocks of another child with its key (`childcopies`) instead of extracted:
    its own path, size and context, their extraction. None when `frame` does not read
    back (the child is extracted then)."""
    try:
        extracted = thaw_child(frame).extracted
    except (ValueError, TypeError):
        return None
    mine = replace(child, extracted=extracted, pending=None, nesting=None)
    return replace(render_children(rel, (mine,), options, digests), copied=1)


def render_copies(
    pairs: list[tuple[Child, bytes]],
    rel: str,
    options: Options,
    registry: Registry,
    digests: dict[str, str],
) -> list[Settled | None]:
    """`as_copy` of each (child, frame) of the document at `rel`, where a worker renders:
    a copy of a long PDF costs the packing and rendering of its chunks."""
    return [as_copy(child, frame, rel, options, digests) for child, frame in pairs]


def child_job(registry: Registry, child: Child) -> Job:
    """The job of a pending child: named by the last part of its path (its extension)."""
    assert child.pending is not None and child.extractor is not None and child.sha256
    name = child.suffix.rsplit("/", 1)[-1]
    spec = registry.get(child.extractor)
    return Job(spec, name, child.pending, child.sha256, child.size, nesting=child.nesting)
