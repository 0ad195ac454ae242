"""Benchmarks of the indexer, run as `scripts/bench SUITE [flags]` (`python -m benchmarks`).

A suite is a module `benchmarks/<name>.py` (a `-` in the name is a `_` in the module) with
    run(args) -> dict          measure; return JSON-ready results ("ok": False exits 1)
    render(result) -> str      the text report of those results
    add_arguments(parser)      optional: the suite's own flags
registered by one line in `SUITES` (benchmarks/__main__.py). Shared tools (timed
subprocesses, process-tree RSS, tables, targets) are in `benchmarks.common`.
"""
