"""How many CPUs this process may use: the one answer for worker counts everywhere."""

from __future__ import annotations

import os

__all__ = ["usable_cpus"]


def usable_cpus() -> int:
    """Return how many CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
