"""Documents inside documents: one recursion for every container, whatever its format.

A container is an extractor with `children` (`ExtractorSpec`): it yields what it
holds (`Held`), and each child is judged, then extracted by its own extractor, its
own children after it, to the depth its container kind allows. A child of a
`folder` (an archive) is judged as the walk judges a file (`members`); any other
(a mail's attachment) goes to the extractor its extension claims, else its MIME
type's, else is `skipped` naming the type; one of no declared type (an object
embedded in an Office file) is judged by its bytes, as a folder's member is. Every
level shares one `Nesting`: its depth, its citation path, the enclosing mail's
context and the unpacking budget of the whole top-level document. A child whose
extractor runs isolated (a PDF), or a folder's member when `defer` asks the pool to
extract them, is handed back pending, with its nesting, for the pool to finish.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from functools import partial

from indexer._extract import run_container, run_extractor
from indexer._types import Extracted, Options
from indexer.pipeline.extract.counted import counted
from indexer.pipeline.extract.members import Globs, damaged, for_members_only, judge
from indexer.pipeline.output.units import Child
from indexer.pipeline.walk.entry import escape_part
from indexer.registry import ExtractorSpec, Held, Nesting, Registry


def unit_of(
    spec: ExtractorSpec,
    name: str,
    data: bytes,
    options: Options,
    registry: Registry,
    nesting: Nesting | None = None,
    *,
    defer: bool = False,
) -> tuple[Extracted, tuple[Child, ...]]:
    """`data`'s document and its children, in order; never raises.

    `name` is the path its extractor is given; `nesting` where it sits (None: a
    document of the walk at `name`). With `defer`, a folder's members (but nested
    containers) are left pending, for the pool: a zip of a thousand files then takes
    every worker, not one.
    """
    if spec.children is None:
        return counted(run_extractor, spec, name, data, options), ()
    nesting = nesting or Nesting.top(name, options.containers)
    level = _Level(spec, options, registry, nesting, defer and spec.folder)
    found: list[Child] = []

    def take(held: Held) -> None:
        found.extend(level.take(held))

    doc = counted(run_container, spec, name, data, options, nesting, take)
    if spec.folder and nesting.depth == 0 and not level.globs.included(level.globs.base):
        doc = for_members_only(doc)  # let in by the walk for what it holds
    return doc, tuple(found)


class _Level:
    """One open container: what its children are judged and nested with."""

    __slots__ = ("defer", "globs", "nesting", "options", "registry", "spec")

    def __init__(
        self, spec: ExtractorSpec, options: Options, registry: Registry, nesting: Nesting,
        defer: bool,
    ) -> None:  # fmt: skip
        self.spec = spec
        # A mail's attachments are part of it, and so is what an attached archive holds:
        # the walk's globs reach into folders only.
        self.options = options if spec.folder else _unfiltered(options)
        self.registry = registry
        self.nesting = nesting
        self.defer = defer
        self.globs = Globs(options.containers, nesting.path.replace("#", "/"), registry)

    def take(self, held: Held) -> Iterator[Child]:
        """The child `held` and its own children, in order."""
        suffix = "#" + escape_part(held.path)
        sha = None if held.data is None else hashlib.sha256(held.data).hexdigest()
        context = self.nesting.context if held.context is None else held.context
        make = partial(Child, suffix=suffix, size=held.size, sha256=sha, context=context)
        if held.damaged:
            # What a damaged child is, its name may say (`x.pdf`); the fallback would
            # call an unnamed embedded object text.
            registry = self.registry
            claimed = registry.for_path(held.name) if registry.handles(held.name) else None
            kind, name = ("", None) if claimed is None else (claimed.kind, claimed.name)
            yield make(kind=kind or None, extractor=name, extracted=damaged(kind, held))
            return
        verdict = self.globs.verdict(held.name) if self.spec.folder else None
        spec, skip = None, held.problem or (verdict if verdict == "excluded" else None)
        if skip is None and held.data is not None:
            spec, skip = self._judge(held, held.data)
        if skip is not None or spec is None or held.data is None:
            yield make(kind=None, skip=skip)
            return
        nesting = replace(self.nesting, path=self.nesting.path + suffix, context=context)
        for n, child in enumerate(self._nested(spec, held.name, held.data, make, nesting)):
            if n == 0 and verdict == "members" and child.extracted is not None:
                child = replace(child, extracted=for_members_only(child.extracted))
            yield child

    def _judge(self, held: Held, data: bytes) -> tuple[ExtractorSpec | None, str | None]:
        """The extractor of `held`, or why it is passed over."""
        if self.spec.folder:
            return judge(held.name, data, self.registry)
        registry = self.registry
        if registry.handles(held.name) and not held.typed:
            return registry.for_path(held.name), None
        if not held.content_type:  # no type to go by (an embedded object): its bytes say
            return judge(held.name, data, registry)
        spec = registry.for_type(held.content_type)
        return spec, None if spec is not None else f"no extractor for {held.content_type}"

    def _nested(
        self, spec: ExtractorSpec, name: str, data: bytes, make: partial[Child], nesting: Nesting
    ) -> Iterator[Child]:
        """The child `make` describes, extracted by `spec`, then its own children."""
        if spec.children is not None:
            limit = self.nesting.limits.max_depth if spec.max_depth is None else spec.max_depth
            if self.nesting.depth + 1 > limit:
                yield make(kind=spec.kind, extractor=spec.name, skip="depth_limit")
                return
        inner = replace(nesting, depth=self.nesting.depth + 1)
        if spec.isolated or (self.defer and not spec.folder):
            yield make(kind=spec.kind, extractor=spec.name, pending=data, nesting=inner)
            return
        doc, found = unit_of(spec, name, data, self.options, self.registry, inner, defer=self.defer)
        yield make(kind=spec.kind, extractor=spec.name, extracted=doc)
        suffix = make.keywords["suffix"]
        for child in found:
            yield replace(child, suffix=suffix + child.suffix)


def _unfiltered(options: Options) -> Options:
    """`options` without the walk's globs."""
    limits = options.containers
    if not (limits.include or limits.exclude):
        return options
    return replace(options, containers=replace(limits, include=(), exclude=()))
