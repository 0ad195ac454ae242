"""The state's outputs files: append-only `outputs/<run>-<pid>.out` files that hold the
stored outputs, each located by a row's `(spool, at, length, crc)`.

A process appends to its own file only; any process reads any file. An output
whose bytes do not match its checksum (a file lost or cut short) reads as none.
"""

from __future__ import annotations

import logging
import os
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from indexer.errors import StateWriteError

log = logging.getLogger(__name__)

Ref = tuple[str | None, int | None, int | None, int | None]
"""Where an output lies: its file's stem, offset, length and CRC-32 (all None: none)."""
NOWHERE: Ref = (None, None, None, None)


class Spool:
    """The outputs files under `outputs`, this process's called `stem`. Not thread-safe:
    the state calls it under its lock."""

    def __init__(self, outputs: Path, stem: str) -> None:
        self.outputs = outputs
        self.stem = stem
        self._spool: IO[bytes] | None = None
        """This process's file, opened at the first output appended."""
        self._readers: dict[str, int] = {}
        """Open descriptors of outputs files, by name."""

    def append(self, parts: Sequence[bytes | bytearray] | None) -> Ref:
        """Append an output, given in parts, to this process's file; return where it lies.
        Raises `StateWriteError` when it cannot be written."""
        if parts is None:
            return NOWHERE
        crc = 0
        with self._writing():
            if self._spool is None:
                self.outputs.mkdir(exist_ok=True)
                self._spool = open(self.file(self.stem), "ab")  # noqa: SIM115
            at = self._spool.tell()
            for part in parts:
                self._spool.write(part)
                crc = zlib.crc32(part, crc)
        return self.stem, at, sum(map(len, parts)), crc

    def flush(self) -> None:
        """Write what was appended through to the file (before rows point at it)."""
        if self._spool is not None:
            with self._writing():
                self._spool.flush()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """An I/O error on the outputs files (disk full, a file size limit) becomes
        `StateWriteError`, as the database's do."""
        try:
            yield
        except OSError as exc:
            raise StateWriteError(f"cannot write {self.outputs}: {exc}") from exc

    def file(self, stem: str) -> Path:
        """The outputs file called `stem`."""
        return self.outputs / f"{stem}.out"

    def load(
        self, spool: str | None, at: int | None, length: int | None, crc: int | None
    ) -> bytes | None:
        """The output stored at this place, or None when there is none or its bytes
        are not what was stored (a file lost or cut short since)."""
        if spool is None or at is None or length is None:
            return None
        fd = self._readers.get(spool)
        try:
            if fd is None:
                fd = self._readers[spool] = os.open(self.file(spool), os.O_RDONLY)
            data = os.pread(fd, length, at)
        except OSError:
            return None
        if len(data) != length or zlib.crc32(data) != crc:
            log.debug("stored output %d@%d in %s.out is damaged", length, at, spool)
            return None
        return data

    def forget(self, stem: str) -> None:
        """Close `stem`'s outputs file, if open."""
        if stem == self.stem and self._spool is not None:
            self._spool.close()
            self._spool = None
        fd = self._readers.pop(stem, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        """Close every outputs file open."""
        for stem in [self.stem, *self._readers]:
            self.forget(stem)
