"""The conformance check: the four extractors-v1 invariants, on every registered extractor.

For each extractor and each chunker it runs a built-in deterministic corpus (the
reference's five strings, whitespace, seeded random bytes and damaged variants of a
valid sample of every format) and, optionally, every file under a directory, and
checks that:

1. `never_raises`: the extractor returned instead of raising (or crashing, or hanging
   when it runs isolated);
2. `empty_gives_no_chunks`: empty or whitespace-only input gives no chunks;
3. `nonempty_gives_chunks`: any other input gives at least one chunk, none blank and
   none longer than `max_chunk_chars` (or is skipped with a reason: an image too small
   to hold text);
4. `deterministic`: the same input gives the same output twice (isolated extractors
   run in separate worker processes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from indexer._extract import raised, run_chunker, run_extractor
from indexer._samples import REFERENCE_STRINGS, SAMPLES, WHITESPACE, mutants, random_blobs
from indexer._text import decode
from indexer._types import DEFAULT_OPTIONS, Extracted, Options
from indexer.registry import ExtractorSpec, Registry, default_registry

INVARIANTS = ("never_raises", "empty_gives_no_chunks", "nonempty_gives_chunks", "deterministic")
_MAX_NAMED = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One invariant over one extractor (or kind) and one input set."""

    name: str
    category: str
    passed: bool
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Scorecard:
    """All checks of one conformance run."""

    version: str
    checks: tuple[Check, ...]

    @property
    def all_passed(self) -> bool:
        """True when every check passed."""
        return all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        """Return the scorecard as deterministic JSON-ready data."""
        return {
            "version": self.version,
            "passed": sum(c.passed for c in self.checks),
            "total": len(self.checks),
            "all_passed": self.all_passed,
            "checks": [
                {"name": c.name, "category": c.category, "passed": c.passed, "detail": c.detail}
                for c in self.checks
            ],
        }


@dataclass(frozen=True, slots=True)
class _Case:
    label: str
    spec: ExtractorSpec
    path: str
    data: bytes
    via_chunker: bool


def builtin_cases(registry: Registry) -> Iterator[_Case]:
    """Yield the built-in corpus for every extractor and every chunker in `registry`."""
    blobs = [(f"reference-{i}", s.encode()) for i, s in enumerate(REFERENCE_STRINGS)]
    blobs += [(f"whitespace-{i}", w) for i, w in enumerate(WHITESPACE)]
    blobs += list(random_blobs())
    for ext, sample in sorted(SAMPLES.items()):
        blobs.append((f"sample-{ext}", sample))
        blobs.extend(mutants(ext, sample))
    for spec in registry.extractors():
        path = f"sample.{spec.extensions[0] if spec.extensions else 'txt'}"
        for label, data in blobs:
            yield _Case(label, spec, path, data, via_chunker=False)
            if spec.chunker is not None:
                yield _Case(label, spec, path, data, via_chunker=True)


def corpus_cases(registry: Registry, root: Path) -> Iterator[_Case]:
    """Yield every regular file under `root`, dispatched by extension, in sorted order."""
    for file in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = file.relative_to(root).as_posix()
        yield _Case(rel, registry.for_path(rel), rel, file.read_bytes(), via_chunker=False)


async def check(
    registry: Registry | None = None,
    corpus: Path | None = None,
    options: Options = DEFAULT_OPTIONS,
    timeout: float = 60.0,
) -> Scorecard:
    """Run the conformance check and return its scorecard (never raises on bad input)."""
    from indexer._version import __version__
    from indexer.procpool.cpus import usable_cpus
    from indexer.procpool.pool import WorkerPool

    registry = registry or default_registry()
    cases: list[tuple[str, _Case]] = [("builtin", c) for c in builtin_cases(registry)]
    if corpus is not None:
        cases += [("corpus", c) for c in corpus_cases(registry, corpus)]
    failures: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    async with WorkerPool(size=usable_cpus(), name="conformance", max_tasks_per_worker=50) as pool:

        async def judge(category: str, case: _Case) -> None:
            first = await _run(pool, case, options, timeout)
            second = await _run(pool, case, options, timeout)
            subject = _subject(category, case)
            for invariant, ok in _verdicts(case, first, second, options):
                key = (category, subject, invariant)
                counts[key] += 1
                if not ok:
                    failures[key].append(case.label)

        limiter = anyio.CapacityLimiter(max(2, usable_cpus() * 2))

        async def guarded(category: str, case: _Case) -> None:
            async with limiter:
                await judge(category, case)

        async with anyio.create_task_group() as tg:
            for category, case in cases:
                tg.start_soon(guarded, category, case)
    return Scorecard(version=__version__, checks=tuple(_checks(counts, failures)))


def _subject(category: str, case: _Case) -> str:
    if category == "corpus":
        return case.spec.kind
    return f"{'chunker' if case.via_chunker else 'extractor'}:{case.spec.name}"


async def _run(pool: Any, case: _Case, options: Options, timeout: float) -> Extracted | str:
    from indexer.errors import PoolError

    if case.via_chunker:
        return run_chunker(case.spec, decode(case.data), options)
    if not case.spec.isolated:
        return run_extractor(case.spec, case.path, case.data, options)
    try:
        result: Extracted = await pool.run(
            run_extractor, case.spec, case.path, case.data, options, timeout=timeout
        )
    except PoolError as exc:
        return f"{exc.code}: {exc.reason}"
    return result


def _verdicts(
    case: _Case, first: Extracted | str, second: Extracted | str, options: Options
) -> Iterable[tuple[str, bool]]:
    if isinstance(first, str) or isinstance(second, str):
        yield "never_raises", False
        return
    yield "never_raises", not raised(first)
    blank = not case.data.strip() or (
        case.spec.chunker is not None and not decode(case.data).strip()
    )
    if blank:
        yield "empty_gives_no_chunks", not first.chunks
    else:
        good = (bool(first.chunks) or first.skipped is not None) and all(
            c.text.strip() and len(c.text) <= options.max_chunk_chars for c in first.chunks
        )
        yield "nonempty_gives_chunks", good
    yield "deterministic", first == second


def _checks(
    counts: dict[tuple[str, str, str], int], failures: dict[tuple[str, str, str], list[str]]
) -> Iterator[Check]:
    order = {name: i for i, name in enumerate(INVARIANTS)}
    for key in sorted(counts, key=lambda k: (k[0], k[1], order[k[2]])):
        category, subject, invariant = key
        bad = sorted(failures.get(key, []))
        detail = f"{counts[key] - len(bad)}/{counts[key]} inputs"
        if bad:
            named = ", ".join(bad[:_MAX_NAMED]) + (" ..." if len(bad) > _MAX_NAMED else "")
            detail += f"; failed: {named}"
        yield Check(name=f"{subject}:{invariant}", category=category, passed=not bad, detail=detail)
