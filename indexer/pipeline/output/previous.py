"""The previous generation's files, as a new one reuses them (`shards.ShardWriter`).

Old chunk shards are found by the tag of their first document (`.layout.ndjson`) and
checked against their manifest entry in a thread while the one before is used; old
document shards are found by their sha256, and reused only when their bytes are the
new shard's (`same_bytes`). Nothing is reused that does not match its manifest entry
(`verify`): a damaged file is reported and written again.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import anyio
import orjson

from indexer.pipeline.output.staging import MANIFEST, FileInfo
from indexer.pipeline.output.verify import intact, listed_documents, report_damage

log = logging.getLogger(__name__)

LAYOUT = ".layout.ndjson"


@dataclass(frozen=True, slots=True)
class OldShard:
    """A shard of the previous generation: its file, manifest entry and documents."""

    path: Path
    info: FileInfo
    docs: list[tuple[str, int]]
    check: Future[bool]
    """Whether the file still matches `info` (`verify.intact`), computed in a thread."""

    async def trusted(self) -> bool:
        """Wait for `check`; report the file when it failed."""
        if await anyio.to_thread.run_sync(self.check.result):
            return True
        report_damage(self.path)
        return False


class PreviousShards:
    """The shards of the generation in `folder`, read in order as the writer needs them.

    Holds one shard's layout at a time, so memory does not grow with the output.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
        self._infos = {s["name"]: FileInfo(**s) for s in manifest["shards"]}
        try:
            documents = listed_documents(manifest)
        except (KeyError, TypeError):  # none listed: none reused
            documents = []
        self._documents: dict[tuple[str, int], list[str]] = {}
        """The old document shards' names, by content: a new one with the same is linked."""
        for d in documents:
            self._documents.setdefault((d.sha256, d.bytes), []).append(d.name)
        self._names = list(self._infos)
        self._handle: IO[bytes] | None = open(folder / LAYOUT, "rb")  # noqa: SIM115
        try:
            self._firsts = _firsts(self._handle)
        except BaseException:
            self._handle.close()
            raise
        """Each old shard's layout line offset, by the tag of its first document."""
        self._checker = ThreadPoolExecutor(1, thread_name_prefix="verify")
        self._checks: dict[str, Future[bool]] = {}

    @classmethod
    def open(cls, folder: Path) -> PreviousShards | None:
        """The previous generation's shards, or None when it has no usable layout."""
        try:
            return cls(folder)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.debug("no shard reuse from %s: %s", folder, exc)
            return None

    def get(self, first: str) -> OldShard | None:
        """The old shard whose first document is tagged `first`, or None when there is
        none or it looks altered."""
        try:
            return self._find(first)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # a damaged layout
            log.debug("no shard reuse from %s: %s", self.folder, exc)
            self.close()
            return None

    def _find(self, first: str) -> OldShard | None:
        offset = self._firsts.get(first)
        if offset is None or self._handle is None:
            return None
        self._handle.seek(offset)
        entry = orjson.loads(self._handle.readline())
        name = str(entry["name"])
        info = self._infos.get(name)
        docs = [(str(tag), int(size)) for tag, size in entry["docs"]]
        path = self.folder / name
        if info is None or info.bytes != sum(n for _, n in docs):
            return None
        if path.stat().st_size != info.bytes:  # truncated or appended to since
            report_damage(path)
            return None
        at = self._names.index(name)
        for later in self._names[at + 1 : at + 2]:  # checked while this one is used
            self._check(later)
        return OldShard(path, info, docs, self._check(name))

    def _check(self, name: str) -> Future[bool]:
        """The check of the old shard `name` against its manifest entry, started once."""
        check = self._checks.get(name)
        if check is None:
            info = self._infos[name]
            check = self._checks[name] = self._checker.submit(intact, self.folder / name, info)
        return check

    def documents(self, sha256: str, size: int, name: str) -> Path | None:
        """An old document shard with this sha256 and size (the one called `name`, when
        several are), or None when there is none."""
        names = self._documents.get((sha256, size))
        if not names:
            return None
        return self.folder / (name if name in names else names[0])

    def close(self) -> None:
        """Close the layout file; checks not started yet are dropped."""
        self._checker.shutdown(wait=False, cancel_futures=True)
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _firsts(handle: IO[bytes]) -> dict[str, int]:
    """The offset of each layout line, by its shard's first document's tag (one entry
    per shard, so memory stays small)."""
    firsts: dict[str, int] = {}
    offset = 0
    for line in handle:
        docs = orjson.loads(line)["docs"]
        if docs:
            firsts.setdefault(str(docs[0][0]), offset)
        offset += len(line)
    return firsts
