"""glibc malloc settings for the processes that extract documents, one after another.

Parsers allocate and free a few megabytes per document (Lexbor's DOM, pdfium's page
objects). glibc hands the top of the heap back to the kernel after each, and the next
document faults it in again page by page; `pad_heap` keeps `TOP_PAD` bytes spare
instead. Both settings are process-wide and do nothing off glibc (musl, macOS).
"""

from __future__ import annotations

import sys

TOP_PAD = 4 << 20
"""Bytes glibc keeps spare at the top of the heap (and adds to each growth)."""

MMAP_THRESHOLD = 1 << 20
"""Blocks at least this large get an mmap of their own. Setting `TOP_PAD` turns off
glibc's sliding threshold, which would otherwise leave it at 128 KiB: every such block
freshly mapped, and faulted in, for every document."""

_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def pad_heap() -> bool:
    """Keep `TOP_PAD` bytes spare at the top of this process's heap; see the module
    docstring. Call it once in a process that extracts many documents. Returns False
    where the C library has no such setting."""
    return _mallopt(_M_TOP_PAD, TOP_PAD) and _mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def cap_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas, before any thread starts: with one arena per thread,
    output blobs freed by the writer fragment the reading threads' arenas."""
    return _mallopt(_M_ARENA_MAX, arenas)


def _mallopt(param: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(param, value))
    except (OSError, AttributeError):  # not glibc
        return False
