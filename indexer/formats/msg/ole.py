"""An Outlook message's compound file, read no deeper than the messages we keep.

olefile builds a file's whole directory tree by recursion, one frame per sibling
along each storage's red-black tree and more per storage level; python-oxmsg then
reads every stream of every storage, recursing again. A message enclosing messages
a hundred deep (each an attachment's storage holding a message's storage) ran out
of stack before a single property was read, and the whole file failed. Here the
tree is walked with a stack instead, and storages below `MAX_STORAGE_LEVEL` are
left without children: nothing in them is read, and what is read is what
`outlook` uses, so the top-level message and its first `MAX_NESTING` enclosed ones
come out as from a shallow file.
"""

from __future__ import annotations

from typing import Any

from olefile import OleFileIO, isOleFile
from olefile.olefile import DEFECT_INCORRECT, NOSTREAM
from oxmsg import Message
from oxmsg.storage import Storage

__all__ = ["MAX_NESTING", "MAX_STORAGE_LEVEL", "load_message"]

MAX_NESTING = 8
"""Levels of enclosed messages read as messages (`outlook`); one deeper is an
attachment."""
MAX_STORAGE_LEVEL = 2 * MAX_NESTING + 2
"""Storages at this level (the root's is 0) or deeper have no children read: each
enclosed message is two levels below its parent (its attachment's storage, then its
own), so this keeps `MAX_NESTING` levels of messages and the properties of the
deepest ones' attachments."""


def load_message(data: bytes) -> Message:
    """Return the Outlook message in `data`; raises ValueError when it is no OLE
    file, or olefile's errors for a damaged one."""
    if not isOleFile(data=data):
        raise ValueError("msg_file is not an Outlook MSG file")
    with _ShallowOle(data) as ole:
        root = Storage.from_ole(ole)  # recurses only as deep as the tree we built
    message = Message(root)
    message._validate()
    return message


class _ShallowOle(OleFileIO):  # type: ignore[misc]
    """`OleFileIO` whose directory tree stops at `MAX_STORAGE_LEVEL`, built without
    recursion (olefile calls `loaddirectory` once, from `open`)."""

    def loaddirectory(self, sect: int) -> None:
        self.directory_fp = self._open(sect, force_FAT=True)
        self.direntries = [None] * (self.directory_fp.size // 128)
        self.root = self._load_direntry(0)
        storages: list[tuple[Any, int]] = [(self.root, 0)]
        while storages:
            entry, level = storages.pop()
            if entry.sid_child == NOSTREAM or level >= MAX_STORAGE_LEVEL:
                continue
            for kid in self._kids(entry):
                storages.append((kid, level + 1))
            entry.kids.sort()

    def _kids(self, entry: Any) -> list[Any]:
        """`entry`'s children in tree order, recorded in `entry.kids` and
        `kids_dict` with olefile's checks (`append_kids`), without recursion."""
        found: list[Any] = []
        stack: list[Any] = []
        sid = entry.sid_child
        while stack or sid != NOSTREAM:
            if sid != NOSTREAM:
                child = self._child(sid)
                if child is not None:
                    stack.append(child)
                    sid = child.sid_left
                    continue
                sid = NOSTREAM
            if not stack:
                break
            child = stack.pop()
            if child.name.lower() in entry.kids_dict:
                self._raise_defect(DEFECT_INCORRECT, "Duplicate filename in OLE storage")
            entry.kids.append(child)
            entry.kids_dict[child.name.lower()] = child
            found.append(child)
            sid = child.sid_right
        return found

    def _child(self, sid: int) -> Any:
        """The directory entry `sid`, marked used; None when out of range or used
        already (a cycle), as olefile's defects allow."""
        if not 0 <= sid < len(self.direntries):
            self._raise_defect(DEFECT_INCORRECT, "OLE DirEntry index out of range")
            return None
        child = self._load_direntry(sid)
        if child.used:
            self._raise_defect(DEFECT_INCORRECT, "OLE Entry referenced more than once")
            return None
        child.used = True
        return child
