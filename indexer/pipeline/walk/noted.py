"""Files the incremental state noted, whose sniff the walk skips.

A file the state holds a row for was read and extracted, so it passed the walk's sniff
then (or needed none). With its version token (`entry.stat_version`) unchanged it is trusted
to hold the same bytes, as the state trusts it for reuse, and the walk does not open
it to look for NUL bytes again: on a night where few files changed, that open, fstat,
read and close per file was most of the walk. The rows are looked up one directory at
a time, in one query per `_QUERY` names; a directory of more than `_MAX_FILES` files
is sniffed as before, so memory does not grow with it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from indexer.pipeline.walk.entry import escape_name, stat_version

Lookup = Callable[[Sequence[str]], Mapping[str, str]]
"""The version token the state noted for each of some paths it holds (`State.noted`)."""

log = logging.getLogger(__name__)

Item = tuple[bytes, Any]
"""A listed name: its sort key (a folder's ends in "/") and its `os.DirEntry`."""

_QUERY = 500
_MAX_FILES = 8192


class Noted:
    """Whether a file's stat is the one the state noted, cached for the folders being
    walked (the current one and its parents, whose files may come after a subfolder)."""

    def __init__(self, lookup: Lookup) -> None:
        self._lookup: Lookup | None = lookup
        self._folders: dict[str, Mapping[str, str]] = {}

    def holds(self, rel: str, st: os.stat_result, folder: str, listing: Sequence[Item]) -> bool:
        """True when the state noted `rel` with this stat's version. `folder` is its walk prefix
        and `listing` its folder's (`walker._listing`), looked up once per folder."""
        stats = self._folders.get(folder)
        if stats is None:
            self._folders = {f: s for f, s in self._folders.items() if folder.startswith(f)}
            names = [key for key, _ in listing if not key.endswith(b"/")]
            stats = self._folders[folder] = self._load([folder + escape_name(n) for n in names])
        return stats.get(rel) == stat_version(st)

    def _load(self, rels: list[str]) -> Mapping[str, str]:
        lookup = self._lookup
        if lookup is None or len(rels) > _MAX_FILES:
            return {}
        stats: dict[str, str] = {}
        try:
            for at in range(0, len(rels), _QUERY):
                stats.update(lookup(rels[at : at + _QUERY]))
        except Exception as exc:  # a state set aside or closed meanwhile: sniff, as before
            log.debug("no noted versions from the state: %s", exc)
            self._lookup = None
            return {}
        return stats
