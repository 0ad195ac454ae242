"""`indexer`'s exit codes: declared once here; `--help`, the README table (a test
compares them) and the CLI use them."""

from __future__ import annotations

import signal
from enum import IntEnum

__all__ = ["MEANING", "Exit", "epilog", "markdown_table", "signal_exit"]


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
    Exit.OK: "success: every document accounted for, new failures within `--max-failures`",
    Exit.FAILURES: "too many new failed documents (not failed with the same content before; "
    "the output is still complete and committed), or a sink failed after the commit, or a "
    "conformance check failed, or `indexer extract` met a failed document",
    Exit.USAGE: "usage or configuration error: a bad flag or key, a SOURCE that is not a "
    "readable folder (or an IMAP URL whose login, certificate or folder is refused), an OUT "
    "that cannot be written, a file `extract` cannot read, an empty SOURCE over a non-empty "
    "OUT without `--allow-empty`, or a `serve` that may not start (an address beyond "
    "loopback without a token, a port it cannot bind); nothing was done",
    Exit.FATAL: "fatal error during the run (disk full, an I/O error, no dask workers, an "
    "IMAP server lost past its retries): nothing committed, the previous output (if any) "
    "intact",
    Exit.LOCKED: "another run holds the lock on OUT (`EX_TEMPFAIL`: try again later)",
    Exit.SIGINT: "interrupted by SIGINT before the commit: the previous output intact",
    Exit.SIGTERM: "terminated by SIGTERM before the commit: the previous output intact",
}
"""One line per code, for `--help` and the README."""


def signal_exit(signum: int) -> Exit:
    """The exit code for a run stopped by `signum` (SIGINT or SIGTERM)."""
    return Exit.SIGINT if signum == signal.SIGINT else Exit.SIGTERM


def epilog() -> str:
    """The exit-code table `--help` prints."""
    rows = "\n".join(f"  {code.value:<4} {MEANING[code].replace('`', '')}" for code in Exit)
    return f"exit codes:\n{rows}\n"


def markdown_table() -> str:
    """The exit-code table as the README shows it (a test compares the two)."""
    rows = "\n".join(f"| {code.value} | {MEANING[code]} |" for code in Exit)
    return f"| code | meaning |\n|---|---|\n{rows}\n"
