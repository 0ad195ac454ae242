"""glibc malloc settings for the processes that extract documents, one after another.

Parsers allocate and free a few megabytes per document (Lexbor's DOM, pdfium's page
objects). glibc hands the top of the heap back to the kernel as soon as a free
leaves more than 128 KiB there, and grows it again, page by page, for the next
document: each of those pages is a page fault and a zeroed page. Measured here on
2,000 generated web pages in one process: 6.5 faults a page and 7-11 MB/s; with
4 MiB kept at the top, none and 16-18 MB/s. A whole `indexer run` over the 50 MB
mixed corpus faults half as often (120,000 times against 50,000-58,000, of which
its five processes' start takes about 18,000). The cost is at most `TOP_PAD` bytes
kept per process.

Both settings are process-wide and do nothing off glibc (musl, macOS).
"""

from __future__ import annotations

import sys

TOP_PAD = 4 << 20
"""Bytes glibc keeps spare at the top of the heap (and adds to each growth)."""

_M_TOP_PAD = -2
_M_ARENA_MAX = -8


def pad_heap() -> bool:
    """Keep `TOP_PAD` bytes spare at the top of this process's heap; see the module
    docstring. Call it once in a process that extracts many documents. Returns False
    where the C library has no such setting."""
    return _mallopt(_M_TOP_PAD, TOP_PAD)


def cap_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas, before any thread starts. With one arena per thread,
    output blobs freed by the writer fragment the reading threads' arenas: the
    parent's peak RSS on a 256 MB mbox fell from 137 MB to 89 MB (and 10% time)."""
    return _mallopt(_M_ARENA_MAX, arenas)


def _mallopt(param: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(param, value))
    except (OSError, AttributeError):  # not glibc
        return False
