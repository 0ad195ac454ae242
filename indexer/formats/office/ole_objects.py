"""Objects embedded in a Word 97 or Excel 97 file, as the files they wrap (`ole_objects`).

A legacy file keeps each embedded object as a storage of its own compound file: Word
under `ObjectPool/_<n>/`, Excel as `MBD<hex>/` at the root. A storage whose streams
wrap a file (`embedded.wrapped`: an `Ole10Native` package, a PDF or RTF `CONTENTS`, an
OOXML `Package`) gives that file, charged to the nesting budget as any unpacked part
is; a storage that is a document in the compound format itself (a Word document in a
workbook), an equation or a chart is not one here (a `.doc` of no text of its own reads
an embedded Word document as its part `embedded`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from indexer._spec import Held, Nesting
from indexer.formats.office.container import ContainerError
from indexer.formats.office.embedded import charge, wrapped
from indexer.formats.office.ole import open_ole

__all__ = ["ole_objects"]

_MBD = re.compile(r"MBD[0-9A-Fa-f]{8}")


def ole_objects(data: bytes, nesting: Nesting) -> Iterator[Held]:
    """The files the object storages of compound file `data` wrap, in storage-name
    order; none when it is no readable compound file. Never raises."""
    try:
        with open_ole(data) as ole:  # one object's bytes held at a time
            entries = ole.listdir(streams=True, storages=False)
            for storage in _storages(entries):
                held = _held(ole, storage, entries, nesting)
                if held is not None:
                    yield held
    except ContainerError:  # not a compound file, or one damaged past the objects read
        return


def _storages(entries: list[list[str]]) -> list[tuple[str, ...]]:
    pool = {tuple(e[:2]) for e in entries if len(e) >= 3 and e[0] == "ObjectPool"}
    books = {(e[0],) for e in entries if len(e) >= 2 and _MBD.fullmatch(e[0])}
    return sorted(pool | books)


def _held(
    ole: Any, storage: tuple[str, ...], entries: list[list[str]], nesting: Nesting
) -> Held | None:
    """The file storage `storage` wraps, or None when it wraps none."""
    depth = len(storage)
    streams = {
        e[depth].lower(): e for e in entries if len(e) == depth + 1 and tuple(e[:depth]) == storage
    }
    path = "/".join(storage)
    base = storage[-1] + ".bin"
    try:
        found = wrapped(ole, streams, base, ole.getclsid(list(storage)))
    except ContainerError as exc:
        return Held(path=path, name=base, data=None, size=0, problem=exc.reason, damaged=True)
    if found is None:
        return None
    name, payload = found
    problem = charge(nesting, len(payload))
    if problem is not None:
        return Held(path=path, name=name, data=None, size=len(payload), problem=problem)
    inner = path if name.rsplit(".", 1)[0] == storage[-1] else f"{path}/{name}"
    return Held(path=inner, name=name, data=payload, size=len(payload))
