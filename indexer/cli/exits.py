"""`indexer`'s exit codes: declared once here; `--help`, the README table and the CLI use them."""

from __future__ import annotations

import signal
from enum import IntEnum

__all__ = ["Exit", "epilog", "signal_exit"]


class Exit(IntEnum):
    """What an `indexer` command's exit code means."""

    OK = 0
    FAILURES = 1
    USAGE = 2
    FATAL = 3
    LOCKED = 75
    SIGINT = 130
    SIGTERM = 143


MEANING = {
    Exit.OK: "success: every document accounted for, failures within --max-failures",
    Exit.FAILURES: "too many failed documents (output still complete and committed), "
    "or a sink failed after the commit, or a conformance check failed",
    Exit.USAGE: "usage or configuration error, or an empty SOURCE over a non-empty OUT "
    "without --allow-empty (nothing was done)",
    Exit.FATAL: "fatal error (disk full, unreadable SOURCE): nothing committed, "
    "the previous output intact",
    Exit.LOCKED: "another run holds the lock on OUT (EX_TEMPFAIL: try again later)",
    Exit.SIGINT: "interrupted by SIGINT before the commit: the previous output intact",
    Exit.SIGTERM: "terminated by SIGTERM before the commit: the previous output intact",
}
"""One line per code, for `--help` and the README."""


def signal_exit(signum: int) -> Exit:
    """The exit code for a run stopped by `signum` (SIGINT or SIGTERM)."""
    return Exit.SIGINT if signum == signal.SIGINT else Exit.SIGTERM


def epilog() -> str:
    """The exit-code table `--help` prints."""
    rows = "\n".join(f"  {code.value:<4} {MEANING[code]}" for code in Exit)
    return f"exit codes:\n{rows}\n"
