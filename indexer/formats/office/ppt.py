"""`ppt`: legacy PowerPoint 97-2003 binary presentations, text atoms slide by slide.

The `Current User` stream points at the last edit; its persist directories (and those
of earlier edits) map object ids to offsets in the `PowerPoint Document` stream, so
only the current version of each slide is read, not the stale copies incremental
saves leave. Slides come in the order of the document's slide list. A slide's text is
its drawing's text boxes in drawing order (a placeholder's text, kept in the slide
list, is found through its reference); titles become a `#` heading and the notes page
follows after `Notes:`, one chunk per slide with `meta` `{"slide": n}` as for `pptx`.
An encrypted presentation fails with `encrypted`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc, slide_chunks
from indexer.formats.office.container import ENCRYPTED, ContainerError
from indexer.formats.office.entry import run
from indexer.formats.office.ole import ole_metadata, open_ole, stream

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["ppt"]  # bumped in indexer/formats/__init__.py

_ACCEPTS = ("ppt",)
_DOCUMENT, _SLIDE_LIST, _SLIDE_PERSIST = 0x03E8, 0x0FF0, 0x03F3
_SLIDE, _SLIDE_ATOM, _NOTES = 0x03EE, 0x03EF, 0x03F0
_TEXT_HEADER, _TEXT_CHARS, _TEXT_BYTES, _TEXT_REF = 0x0F9F, 0x0FA0, 0x0FA8, 0x0F9E
_USER_EDIT, _PERSIST_DIRECTORY = 0x0FF5, 0x1772
_ENCRYPTED_TOKEN = 0xF3D1C4DF
_TITLES = (0, 6)
"""Text types of a title and a centred title."""
_MAX_DEPTH = 32
_MAX_EDITS = 4096

Text = tuple[int, str]
"""A text body: its type (title, body, notes, ...) and its characters."""


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a PowerPoint 97-2003 presentation; never raises for bad input (see `entry.run`)."""
    return run("ppt", _ACCEPTS, read, data, path, options)


def read(data: bytes, options: Options) -> Doc:
    """Read a PowerPoint 97-2003 presentation, a chunk (or a few) per slide; raises
    `ContainerError`."""
    with open_ole(data) as ole:
        if ole.exists("EncryptedSummary"):
            raise ContainerError(ENCRYPTED)
        document = stream(ole, "PowerPoint Document")
        persist, root = _persist(document, stream(ole, "Current User"))
        slides = _slides(document, persist, root)
        metadata = ole_metadata(ole)
    doc = Doc(metadata={**metadata, "slides": len(slides)}, chunks=[])
    for number, blocks in enumerate(slides, start=1):
        doc.chunks = [*(doc.chunks or []), *slide_chunks(blocks, number, options)]
    return doc


def _header(data: bytes, at: int) -> tuple[int, int, int]:
    """(instance-and-version, type, body length) of the record at `at`."""
    ver_inst, kind, length = struct.unpack_from("<HHI", data, at)
    return ver_inst, kind, length


def _children(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """The records between `start` and `end`: (type, instance, body start, body end)."""
    at = start
    while at + 8 <= end:
        ver_inst, kind, length = _header(data, at)
        body = at + 8
        stop = min(body + length, end)
        yield kind, ver_inst >> 4, body, stop
        at = body + length


def _persist(data: bytes, current: bytes) -> tuple[dict[int, int], int]:
    """The persist directory (object id to offset), newest edits winning, and the
    document container's id."""
    if len(current) < 20:
        raise ContainerError("corrupt: no current user atom")
    token, offset = struct.unpack_from("<II", current, 12)
    if token == _ENCRYPTED_TOKEN:
        raise ContainerError(ENCRYPTED)
    persist: dict[int, int] = {}
    root = None
    seen: set[int] = set()
    while offset and offset not in seen and len(seen) < _MAX_EDITS:
        seen.add(offset)
        _, kind, _ = _header(data, offset)
        if kind != _USER_EDIT:
            raise ContainerError("corrupt: no user edit atom where the current user points")
        last, directory, doc_ref = struct.unpack_from("<III", data, offset + 16)
        root = doc_ref if root is None else root
        _, kind, length = _header(data, directory)
        at, end = directory + 8, directory + 8 + length
        while kind == _PERSIST_DIRECTORY and at + 4 <= end:
            entry = struct.unpack_from("<I", data, at)[0]
            first, count = entry & 0xFFFFF, entry >> 20
            for k in range(count):
                persist.setdefault(first + k, struct.unpack_from("<I", data, at + 4 + 4 * k)[0])
            at += 4 + 4 * count
        offset = last
    if root is None or root not in persist:
        raise ContainerError("corrupt: no document container")
    return persist, root


def _container(data: bytes, persist: dict[int, int], ref: int, kind: int) -> tuple[int, int] | None:
    at = persist.get(ref)
    if at is None or at + 8 > len(data):
        return None
    _, found, length = _header(data, at)
    return (at + 8, min(at + 8 + length, len(data))) if found == kind else None


def _slides(data: bytes, persist: dict[int, int], root: int) -> list[list[Block]]:
    body = _container(data, persist, root, _DOCUMENT)
    if body is None:
        raise ContainerError("corrupt: no document container")
    lists: dict[int, dict[int, list[Text]]] = {0: {}, 2: {}}
    order: list[int] = []
    for kind, instance, start, end in _children(data, *body):
        if kind == _SLIDE_LIST and instance in lists:
            lists[instance].update(_slide_list(data, start, end, order if instance == 0 else []))
    return [_slide(data, persist, ref, lists) for ref in order]


def _slide_list(data: bytes, start: int, end: int, order: list[int]) -> dict[int, list[Text]]:
    """The texts the slide list keeps for each slide (placeholders), by persist id."""
    texts: dict[int, list[Text]] = {}
    current: list[Text] = []
    kind_of_text = 1
    for kind, _, body, stop in _children(data, start, end):
        if kind == _SLIDE_PERSIST and stop - body >= 4:
            ref = struct.unpack_from("<I", data, body)[0]
            order.append(ref)
            current = texts.setdefault(ref, [])
        elif kind == _TEXT_HEADER and stop - body >= 4:
            kind_of_text = struct.unpack_from("<I", data, body)[0]
        elif kind in (_TEXT_CHARS, _TEXT_BYTES):
            current.append((kind_of_text, _text(data, kind, body, stop)))
    return texts


def _slide(data: bytes, persist: dict[int, int], ref: int, lists: dict[int, Any]) -> list[Block]:
    body = _container(data, persist, ref, _SLIDE)
    if body is None:
        return []
    texts, notes_ref = _drawing_texts(data, *body, lists[0].get(ref, []))
    title = [text for kind, text in texts if kind in _TITLES]
    blocks = [Block("# " + " ".join(title), "heading", ())] if title else []
    blocks.extend(Block(text, "para", ()) for kind, text in texts if kind not in _TITLES)
    notes = _container(data, persist, notes_ref, _NOTES) if notes_ref else None
    if notes is not None:
        found, _ = _drawing_texts(data, *notes, lists[2].get(notes_ref, []))
        text = "\n".join(text for kind, text in found if kind == 2)  # the notes body
        blocks.extend([Block("Notes:\n" + text, "para", ())] if text else [])
    return blocks


def _drawing_texts(data: bytes, start: int, end: int, listed: list[Text]) -> tuple[list[Text], int]:
    """The texts of a slide's (or notes page's) drawing in order, and its notes page's id."""
    notes_ref = 0
    for kind, _, body, stop in _children(data, start, end):
        if kind == _SLIDE_ATOM and stop - body >= 20:
            notes_ref = struct.unpack_from("<I", data, body + 16)[0]
    return _in_order(data, start, end, listed), notes_ref


def _is_container(data: bytes, at: int) -> bool:
    version: int = struct.unpack_from("<H", data, at)[0] & 0xF
    return version == 0xF


def _in_order(data: bytes, start: int, end: int, listed: list[Text]) -> list[Text]:
    """The text atoms under `start`..`end` depth first, references resolved to `listed`."""
    found: list[Text] = []
    kind_of_text = 1
    stack = [iter(list(_children(data, start, end)))]
    while stack:
        record = next(stack[-1], None)
        if record is None:
            stack.pop()
            continue
        kind, _, body, stop = record
        if _is_container(data, body - 8) and len(stack) < _MAX_DEPTH:
            stack.append(iter(list(_children(data, body, stop))))
        elif kind == _TEXT_HEADER and stop - body >= 4:
            kind_of_text = struct.unpack_from("<I", data, body)[0]
        elif kind in (_TEXT_CHARS, _TEXT_BYTES):
            found.append((kind_of_text, _text(data, kind, body, stop)))
        elif kind == _TEXT_REF and stop - body >= 4:
            index = struct.unpack_from("<I", data, body)[0]
            found.extend(listed[index : index + 1])
    return [(kind, text) for kind, text in found if text and text != "*"]


def _text(data: bytes, kind: int, start: int, end: int) -> str:
    raw = data[start:end]
    text = raw.decode("utf-16-le", "replace") if kind == _TEXT_CHARS else raw.decode("latin-1")
    lines = (" ".join(line.split()) for line in text.replace("\x0b", "\r").split("\r"))
    return "\n".join(line for line in lines if line)
