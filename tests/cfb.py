"""Write compound files (OLE2, version 3) and Outlook messages made of them, for tests.

`compound_file(tree)` lays out a tree of storages (dicts) and streams (bytes) the way
Office does: streams under 4096 bytes in the mini stream, each storage's children in
a balanced tree ordered as the format orders names. `nested_msg(depth)` is an Outlook
message enclosing a message enclosing a message ... `depth` levels down, each with its
own subject and body, as no real mail client writes and a hostile file may.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

Tree = dict[str, "bytes | Tree"]

_SECTOR, _MINI, _CUTOFF = 512, 64, 4096
_FREE, _END, _FAT_SECT, _NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
_STORAGE, _STREAM, _ROOT = 1, 2, 5


@dataclass
class _Entry:
    name: str
    kind: int
    data: bytes = b""
    children: list[int] = field(default_factory=list)
    start: int = _END
    left: int = _NONE
    right: int = _NONE
    child: int = _NONE


def compound_file(tree: Tree, *, chained: bool = False) -> bytes:
    """Return the bytes of a compound file holding `tree` under its root storage; with
    `chained`, each storage's children are a chain of right siblings (a valid file,
    as simple writers make it; a reader that recurses along siblings goes deep)."""
    entries = [_Entry("Root Entry", _ROOT)]
    _flatten(tree, 0, entries)
    for entry in entries:
        entry.child = _balance(entries, entry.children, chained)
    mini = bytearray()
    minifat: list[int] = []
    big: list[_Entry] = []
    for entry in entries[1:]:
        if entry.kind == _STREAM and len(entry.data) < _CUTOFF:
            entry.start = len(minifat) if entry.data else _END
            count = -(-len(entry.data) // _MINI)
            minifat += [len(minifat) + i + 1 for i in range(count - 1)] + [_END] * bool(count)
            mini += entry.data.ljust(count * _MINI, b"\0")
        elif entry.kind == _STREAM:
            big.append(entry)
    fat: list[int] = []
    sectors = bytearray()

    def place(data: bytes) -> int:
        count = -(-len(data) // _SECTOR)
        if not count:
            return _END
        first = len(fat)
        fat.extend([first + i + 1 for i in range(count - 1)] + [_END])
        sectors.extend(data.ljust(count * _SECTOR, b"\0"))
        return first

    entries[0].start, entries[0].data = place(bytes(mini)), bytes(mini)
    for entry in big:
        entry.start = place(entry.data)
    minifat_start = place(b"".join(struct.pack("<I", n) for n in minifat))
    directory_start = place(b"".join(_direntry(e) for e in entries))
    fat_count = 1
    while (len(fat) + fat_count) > fat_count * (_SECTOR // 4):
        fat_count += 1
    fat_ids = list(range(len(fat), len(fat) + fat_count))
    fat += [_FAT_SECT] * fat_count
    fat += [_FREE] * (fat_count * (_SECTOR // 4) - len(fat))
    sectors += b"".join(struct.pack("<I", n) for n in fat)
    minifat_sectors = -(-len(minifat) * 4 // _SECTOR)
    return _header(fat_ids, directory_start, minifat_start, minifat_sectors) + bytes(sectors)


def _flatten(tree: Tree, parent: int, entries: list[_Entry]) -> None:
    for name, value in tree.items():
        entries[parent].children.append(len(entries))
        if isinstance(value, bytes):
            entries.append(_Entry(name, _STREAM, value))
        else:
            entries.append(_Entry(name, _STORAGE))
            _flatten(value, len(entries) - 1, entries)


def _balance(entries: list[_Entry], sids: list[int], chained: bool) -> int:
    """The root of a balanced tree of `sids` (or a chain, leftmost first), in the
    format's order (length, then upper-case name); all black, which the format allows."""
    ordered = sorted(sids, key=lambda s: (len(entries[s].name), entries[s].name.upper()))
    if not ordered:
        return _NONE
    middle = 0 if chained else len(ordered) // 2
    root = entries[ordered[middle]]
    root.left = _balance(entries, ordered[:middle], chained)
    root.right = _balance(entries, ordered[middle + 1 :], chained)
    return ordered[middle]


def _direntry(entry: _Entry) -> bytes:
    name = (entry.name + "\0").encode("utf-16-le")
    return struct.pack(
        "<64sHBBIII16sIQQIQ",
        name, len(name), entry.kind, 1, entry.left, entry.right, entry.child,
        bytes(16), 0, 0, 0, entry.start, len(entry.data),
    )  # fmt: skip


def _header(fat_ids: list[int], directory: int, minifat: int, minifat_sectors: int) -> bytes:
    difat = fat_ids + [_FREE] * (109 - len(fat_ids))
    return struct.pack(
        "<8s16sHHHHH6sIIIIIIIII109I",
        bytes.fromhex("D0CF11E0A1B11AE1"), bytes(16), 0x3E, 3, 0xFFFE, 9, 6, bytes(6),
        0, len(fat_ids), directory, 0, _CUTOFF, minifat, minifat_sectors, _END, 0, *difat,
    )  # fmt: skip


_UNICODE, _LONG = 0x001F, 0x0003
_SUBJECT, _BODY, _METHOD, _DISPLAY_NAME = 0x0037, 0x1000, 0x3705, 0x3001


def _properties(header: bytes, strings: dict[int, str], longs: dict[int, int]) -> Tree:
    """A property stream (after `header`) and a stream per string property."""
    tree: Tree = {}
    rows = []
    for pid, text in strings.items():
        data = text.encode("utf-16-le")
        tree[f"__substg1.0_{pid:04X}{_UNICODE:04X}"] = data
        rows.append(struct.pack("<IIII", pid << 16 | _UNICODE, 6, len(data) + 2, 0))
    for pid, value in longs.items():
        rows.append(struct.pack("<IIii", pid << 16 | _LONG, 6, value, 0))
    tree["__properties_version1.0"] = header + b"".join(rows)
    return tree


def _message(level: int, depth: int) -> Tree:
    header = struct.pack("<8xIIII", 0, int(level < depth), 0, int(level < depth))
    text = {_SUBJECT: f"level {level} subject", _BODY: f"The body of the message at level {level}."}
    tree = _properties(header if level else header + bytes(8), text, {})
    if level < depth:
        attachment = _properties(bytes(8), {_DISPLAY_NAME: f"level {level + 1}"}, {_METHOD: 5})
        attachment["__substg1.0_3701000D"] = _message(level + 1, depth)
        tree["__attach_version1.0_#00000000"] = attachment
    return tree


def nested_msg(depth: int, *, chained: bool = False) -> bytes:
    """An Outlook message whose one attachment is a message, `depth` levels down
    (`chained`: see `compound_file`)."""
    return compound_file(_message(0, depth), chained=chained)
