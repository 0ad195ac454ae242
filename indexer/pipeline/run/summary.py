"""What a committed run reports: its `RunSummary`, and `run.json` beside the output."""

from __future__ import annotations

import os
import resource
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from indexer.config import Config
from indexer.pipeline.output.staged import Tally
from indexer.pipeline.run.failures import Failures

RUN_REPORT = "run.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSummary:
    """What a committed run produced (also printed by `indexer run --json`)."""

    out: str
    files: int
    documents: int
    chunks: int
    shards: int
    failed: int
    """Failed documents, `failed_new` and `failed_known` together."""
    failed_new: int = 0
    """Failures that are new in this run (`failures.py`): these count against
    `max_failures`, so a nightly run is red only for news."""
    failed_known: int = 0
    """Failures the previous output holds already, for the same path and content."""
    extracted: int
    """Documents extracted in this run."""
    reused: int
    """Documents whose extraction was reused from an earlier run."""
    repacked: int = 0
    """Of the `reused`, those re-packed from their stored blocks (a `[chunking]` change)."""
    by_status: dict[str, int]
    by_kind: dict[str, int]
    changes: dict[str, int]
    """Documents added, changed and removed against the previous committed output."""
    seconds: float
    sinks: dict[str, str] = field(default_factory=dict)
    """Each sink applied after the commit (`[output] sinks`): "ok: ..." or "failed: ..."."""
    excluded: int = 0
    """Of `files`, those left out by the include/exclude globs (each a `skipped` record)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)

    def too_many_failures(self, allowed: int) -> bool:
        """True when more than `allowed` failures are new: exit status 1."""
        return self.failed_new > allowed

    def line(self) -> str:
        """The one summary line `indexer run` prints: what the globs left out is counted
        apart (their records are `skipped`, reason `excluded`)."""
        out = self.excluded
        by_status = dict(self.by_status)
        if out:
            by_status["skipped"] -= out
        statuses = ", ".join(f"{n} {s}" for s, n in by_status.items() if n) or "none"
        left_out = f", {out} left out by --include/--exclude" if out else ""
        changes = ", ".join(f"{self.changes.get(k, 0)} {k}" for k in _CHANGES)
        repacked = f" ({self.repacked} re-packed)" if self.repacked else ""
        failures = (
            f"; failed: {self.failed_new} new, {self.failed_known} known" if self.failed else ""
        )
        return (
            f"indexed {self.files - out} files into {self.documents - out} documents "
            f"({statuses}){left_out}, "
            f"{self.chunks} chunks in {self.shards} shards, "
            f"{self.extracted} extracted, {self.reused} reused{repacked}; "
            f"{changes}{failures}; {self.seconds:.1f} s -> {self.out}"
        )


_CHANGES = ("added", "changed", "removed")


def summarize(
    out: Path, tally: Tally, shards: int, seconds: float, failures: Failures
) -> RunSummary:
    """The summary of a run committed into `out`; `failures` split its failures."""
    return RunSummary(
        out=str(out),
        files=tally.files,
        documents=tally.documents,
        chunks=tally.chunks,
        shards=shards,
        failed=tally.by_status.get("failed", 0),
        failed_new=failures.new,
        failed_known=failures.known,
        extracted=tally.extracted_now,
        reused=tally.reused,
        repacked=tally.repacked,
        by_status=dict(sorted(tally.by_status.items())),
        by_kind=dict(sorted(tally.by_kind.items())),
        changes=dict(tally.changes),
        seconds=round(seconds, 3),
        excluded=tally.excluded,
    )


def write_report(
    out: Path,
    config: Config,
    tally: Tally,
    seconds: float,
    unchanged: bool,
    failures: Failures,
) -> None:
    """Write `out/run.json`: the run's timings and throughput (never part of the output),
    and its failures, new and known."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = {
        "seconds": round(seconds, 3),
        "unchanged": unchanged,
        "files": tally.files,
        "documents": tally.documents,
        "extracted": tally.extracted_now,
        "reused": tally.reused,
        "repacked": tally.repacked,
        "changes": tally.changes,
        "failed": {"new": failures.new, "known": failures.known},
        "bytes_read": tally.bytes_read,
        "pages": tally.pages,
        "files_per_s": round(tally.files / seconds, 1) if seconds else None,
        "mb_per_s": round(tally.bytes_read / 1e6 / seconds, 2) if seconds else None,
        "pages_per_s": round(tally.pages / seconds, 1) if seconds else None,
        "workers": config.workers,
        "pdf_workers": config.pdf_workers,
        "peak_rss_mb": {"main": round(own, 1), "largest_worker": round(children, 1)},
        "ocr": tally.ocr.report(),
        "slowest": [
            {"path": path, "seconds": round(secs, 3)}
            for secs, path in sorted(tally.slowest, reverse=True)[:10]
        ],
    }
    tmp = out / (RUN_REPORT + ".tmp")
    tmp.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    os.replace(tmp, out / RUN_REPORT)
