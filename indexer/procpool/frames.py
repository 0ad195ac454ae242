"""The frames a worker's pipes carry both ways, and the checks that find a corrupt one.

A frame is a prefix, then a pickle (the body) and its out-of-band buffers:

    MAGIC | body length | buffer count      (`HEAD`)
    each buffer's length                   (`LENGTH`, once per buffer)
    CRC-32 of the prefix so far | CRC-32 of the body and the buffers   (`CHECKS`)
    body | buffers

A worker runs plugins and C libraries, any of which may write to a descriptor it
does not own. The worker keeps its pipes far from the usual descriptors, but a stray
write that lands in a reply all the same must cost that call, not the run: the magic
and the prefix's checksum are checked before any length is trusted (so garbage can
neither stall a reader nor make it allocate), the payload's before anything is
unpickled. Imported by the worker too, so it imports nothing heavy.
"""

from __future__ import annotations

import pickle
import struct
import zlib
from typing import Any

__all__ = [
    "CHECKS",
    "HEAD",
    "LENGTH",
    "ProtocolError",
    "check_head",
    "check_payload",
    "check_prefix",
    "encode_frame",
    "frame_parts",
    "unpickle",
]

MAGIC = b"IXf1"
HEAD = struct.Struct(">4sQI")
LENGTH = struct.Struct(">Q")
CHECKS = struct.Struct(">II")
MAX_BUFFERS = 1 << 16
"""More out-of-band buffers than any reply has (one per large block): a count past it
is garbage, refused before its lengths are read."""


class ProtocolError(Exception):
    """A frame failed its checks, or its pickle could not be loaded: the peer's pipe
    is out of step and cannot be trusted again. The message says which check."""


def encode_frame(obj: object) -> bytes:
    """Return `obj` pickled (by reference, like multiprocessing) and framed.

    Raises whatever `pickle.dumps` raises for an object that cannot be pickled.
    """
    return b"".join(frame_parts(obj))


def frame_parts(obj: object) -> tuple[bytes | memoryview, ...]:
    """`encode_frame(obj)` as its prefix, its body and its out-of-band buffers, to write
    without joining them (a reply is megabytes: joining copied each one into fresh
    pages). A `pickle.PickleBuffer` in `obj` (a large document's block) is such a
    buffer: it is written from where it lies, and read into the object it becomes."""
    buffers: list[pickle.PickleBuffer] = []
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL, buffer_callback=buffers.append)
    raws = [buffer.raw() for buffer in buffers]
    prefix = HEAD.pack(MAGIC, len(body), len(raws))
    prefix += b"".join(LENGTH.pack(raw.nbytes) for raw in raws)
    payload = zlib.crc32(body)
    for raw in raws:
        payload = zlib.crc32(raw, payload)
    return prefix + CHECKS.pack(zlib.crc32(prefix), payload), body, *raws


def check_head(head: bytes) -> tuple[int, int]:
    """Return a frame's body length and buffer count from its `HEAD` bytes; raises
    `ProtocolError` if they are not a frame's."""
    magic, size, count = HEAD.unpack(head)
    if magic != MAGIC:
        raise ProtocolError(f"bad frame magic {magic!r}")
    if count > MAX_BUFFERS:
        raise ProtocolError(f"bad frame: {count} buffers")
    return size, count


def check_prefix(
    head: bytes, lengths: bytes | bytearray, checks: bytes | bytearray
) -> tuple[list[int], int]:
    """Return the buffers' lengths and the payload's expected CRC-32; raises
    `ProtocolError` if the prefix's own checksum does not match."""
    prefix_crc, payload_crc = CHECKS.unpack(checks)
    if zlib.crc32(head + lengths) != prefix_crc:
        raise ProtocolError("frame prefix checksum mismatch")
    return [n for (n,) in LENGTH.iter_unpack(lengths)], payload_crc


def check_payload(expected: int, body: bytes | bytearray, buffers: list[bytearray]) -> None:
    """Raise `ProtocolError` unless the body and buffers have the CRC-32 `expected`."""
    crc = zlib.crc32(body)
    for buffer in buffers:
        crc = zlib.crc32(buffer, crc)
    if crc != expected:
        raise ProtocolError("frame payload checksum mismatch")


def unpickle(body: bytes | bytearray, buffers: list[bytearray]) -> Any:
    """Return the object a checked frame holds; raises `ProtocolError` if it cannot
    be loaded here (a class this process cannot import, a hostile `__reduce__`)."""
    try:
        return pickle.loads(body, buffers=buffers)
    except Exception as exc:
        raise ProtocolError(f"reply could not be unpickled: {type(exc).__name__}") from exc
