"""The limits a general (text formats) worker runs under, as the failures they cause see them.

An isolated extractor's cache keys hold its limits (`--timeout`, `--max-memory`), so
changing them re-extracts what failed under them. A general extractor's keys do not:
the limits rarely decide its output, and they would re-extract every text file when
they change. Its output that the limits did decide (`out_of_memory`, `timeout`,
`crashed`) instead records them as a dependency (`CacheKeys.limits_dep`, added by `extract.calls`),
`LIMITS` in `CacheKeys.digests`: such a stored failure is reused only while the
limits are the same.
"""

from __future__ import annotations

from indexer.config import Config

_GENERAL_BASE_MB = 1024
_GENERAL_PER_FILE = 12
"""Room per MB of the largest file: `scripts/bench large` measures a text format's worker
at up to about five times its file (plain text); kinds it does not measure may need more."""
LIMITS = "@general-limits"
"""The name of the general workers' limits among `CacheKeys.digests` (no extractor's:
those are names of a file's kind)."""


def general_memory_mb(max_file_bytes: int, max_memory_mb: int) -> int:
    """The address-space cap of a general (text formats) worker, in MB: room for the
    largest file the walk lets through, and never below the isolated workers' cap
    (`max_memory_mb`, the one knob). A document that needs more fails alone, as
    `out_of_memory`, instead of taking the machine's memory."""
    room = _GENERAL_BASE_MB + _GENERAL_PER_FILE * -(-max_file_bytes // (1 << 20))
    return max(room, max_memory_mb)


def general_limits(config: Config) -> str:
    """The limits of a call to a general worker: its timeout and memory cap."""
    memory_mb = general_memory_mb(config.max_file_bytes, config.max_memory_mb)
    return f"{config.timeout:g}s/{memory_mb}MB"


CLAIMS = "@claims"
"""The name of the registry's claims among `CacheKeys.digests` (`Registry.claims`): what
a stored mail whose attachment no extractor read (`no_extractor`, `binary`) depends on,
so that installing an extractor for it re-extracts the mail."""
