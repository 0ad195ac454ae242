"""Extractors that misbehave for real: segfault, hang, allocate without bound, sleep.

Module-level so that worker processes import them by reference.
"""

from __future__ import annotations

import ctypes
import os
import time

from indexer import Chunk, Extracted, Options
from indexer.registry import ExtractorSpec


def segfault(data: bytes, path: str, options: Options) -> Extracted:
    """Dereference NULL: the worker process dies of SIGSEGV."""
    ctypes.string_at(0)
    raise AssertionError("unreachable")


def hang(data: bytes, path: str, options: Options) -> Extracted:
    """Never return."""
    while True:
        time.sleep(1)


def balloon(data: bytes, path: str, options: Options) -> Extracted:
    """Allocate until something gives."""
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


def slow(data: bytes, path: str, options: Options) -> Extracted:
    """Take a while, then succeed: for killing runs mid-way."""
    time.sleep(0.3)
    text = data.decode("utf-8", "replace").strip()
    return Extracted(kind="slow", text=text, chunks=(Chunk(text=text or "empty"),))


def flaky(data: bytes, path: str, options: Options) -> Extracted:
    """Crash while the file named in `data` exists, else succeed: a failure that goes
    away by itself, as a timeout on a loaded machine does."""
    marker = data.decode().strip()
    if os.path.exists(marker):
        ctypes.string_at(0)
    return Extracted(kind="flaky", text=marker, chunks=(Chunk(text=f"read fine: {marker}"),))


def remover(data: bytes, path: str, options: Options) -> Extracted:
    """Delete the file named in `data`: a file the walk listed is gone when its turn
    to be read comes (a Maildir message moved from new/ to cur/)."""
    target = data.decode().strip()
    os.unlink(target)
    return Extracted(kind="remove", text=target, chunks=(Chunk(text=f"removed {target}"),))


def tally(data: bytes, path: str, options: Options) -> Extracted:
    """Append a line to the file named in `data`'s first line, then give each further
    line as a block: the calls of every worker process, counted on disk."""
    first, *lines = data.decode().splitlines()
    with open(first, "a") as calls:
        calls.write(f"{path}\n")
    chunks = tuple(Chunk(text=line, meta={"line": i}) for i, line in enumerate(lines) if line)
    return Extracted(kind="tally", text="\n".join(lines), chunks=chunks)


def needy(data: bytes, path: str, options: Options) -> Extracted:
    """Take the megabytes `data` names, of address space only (`bytes(n)` is calloc's
    fresh pages), then succeed: a document that fits under a raised memory cap."""
    held = bytes(int(data) << 20)
    text = f"needed {len(held) >> 20} MB"
    return Extracted(kind="needy", text=text, chunks=(Chunk(text=text),))


_STRAY = bytes(7) + b"\x08" + bytes(4) + b"garbage!"
"""What looks like a length-prefixed frame of 8 bytes, then bytes no pickle is."""


def scribble(data: bytes, path: str, options: Options) -> Extracted:
    """Write stray bytes to file descriptors 3 to 11, as a C library with a debug log
    on an inherited descriptor would, then succeed: the worker's reply pipe, wherever
    it is, must not be one of them, or its corruption must cost this call only."""
    import crashy

    crashy.scribble_low_fds(_STRAY)
    return Extracted(kind="scribble", text="scribbled", chunks=(Chunk(text="scribbled"),))


def forge(data: bytes, path: str, options: Options) -> Extracted:
    """Write stray bytes into every pipe the worker may write to, its reply pipe among
    them, then succeed: the reply is corrupt, and must cost this document only."""
    import crashy

    crashy.write_to_every_pipe(_STRAY)
    return Extracted(kind="forge", text="forged", chunks=(Chunk(text="forged"),))


def _spec(
    name: str, fn: object, *, isolated: bool = True, options: tuple[str, ...] | None = None
) -> ExtractorSpec:
    return ExtractorSpec(
        name=name,
        kind=name,
        extensions=(name,),
        version="1",
        extract=fn,  # type: ignore[arg-type]
        isolated=isolated,
        options_used=options,
    )


SEGFAULT = _spec("segv", segfault)
HANG = _spec("hang", hang)
BALLOON = _spec("oom", balloon)
SLOW = _spec("slow", slow)
FLAKY = _spec("flaky", flaky)
REMOVER = _spec("remove", remover, isolated=False)
NEEDY = _spec("needy", needy, isolated=False)
"""Needs as many megabytes as its file says, in the general pool."""
GREEDY = _spec("greedy", balloon, isolated=False)
"""Allocates without bound in the general pool, where text formats run."""
SCRIBBLE = _spec("scribble", scribble)
"""Writes garbage to fds 3-11 in the isolated pool."""
SCRIBBLE_GENERAL = _spec("scribbles", scribble, isolated=False)
"""Writes garbage to fds 3-11 in the general pool."""
FORGE = _spec("forge", forge)
"""Writes garbage into its reply pipe in the isolated pool."""
FORGE_GENERAL = _spec("forges", forge, isolated=False)
"""Writes garbage into its reply pipe in the general pool."""
TALLY = _spec("tally", tally, isolated=False, options=("rows_per_chunk",))
"""Counts its calls; keyed by `rows_per_chunk` only, to change an option it uses."""
