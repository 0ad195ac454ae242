"""`changes.ndjson`: which documents a run added, changed or removed against the last commit.

A document is `changed` when its record (`documents-NNNNN.ndjson`) differs in any way;
the record carries `digest`, a hash of its chunk lines, so a new chunking of the
same bytes (another `rows_per_chunk`, another PDF engine) counts as a change too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from indexer.pipeline.output.prevdocs import PreviousDocs, fingerprint, load_previous

CHANGES = "changes.ndjson"


@dataclass(frozen=True, slots=True, kw_only=True)
class Previous:
    """What a run compares its documents with: the committed output `out`, its documents
    read when first needed (`Deferred`, `load_previous`); None: no previous commit, every
    document is added."""

    out: Path | None = None

    def load(self, skip: Collection[str] = ()) -> PreviousDocs:
        """Its documents, but those of the document files named in `skip` (blocking)."""
        return PreviousDocs() if self.out is None else load_previous(self.out, skip)


def pending_previous(out: Path) -> Previous:
    """The committed documents of `out`, read when a run first needs them (`Deferred`)."""
    return Previous(out=out)


class ChangeTracker:
    """Compares each new document line with the previous commit, in walk order; owns
    `previous`, whose documents it takes as it meets them (`close` drops them)."""

    def __init__(self, previous: PreviousDocs) -> None:
        self._unseen = previous
        self.counts = {"added": 0, "changed": 0, "removed": 0}

    def see_all(self, docs: list[tuple[str, str, int]]) -> list[bytes]:
        """The `changes.ndjson` lines of consecutive documents (path, doc id, the
        fingerprint of its line), in their order; none for one unchanged."""
        old = self._unseen.take([path for path, _, _ in docs])
        lines = []
        for path, did, new in docs:
            before = old.pop(path, None)  # popped: a path seen twice is added the second time
            if before is None:
                lines.append(self._line("added", path, did))
            elif before != new:
                lines.append(self._line("changed", path, did))
        return lines

    def unchanged(self, paths: Collection[str]) -> None:
        """Note documents known to be the previous commit's, as they are."""
        self._unseen.forget(paths)

    def removed(self) -> Iterator[bytes]:
        """Lines for the previous documents this run never saw, in their old order."""
        from indexer.pipeline.output.records import doc_id

        return (self._line("removed", path, doc_id(path)) for path in self._unseen.left())

    def close(self) -> None:
        """Drop the previous documents not seen."""
        self._unseen.close()

    def _line(self, change: str, path: str, did: str) -> bytes:
        self.counts[change] += 1
        record = {"change": change, "path": path, "doc_id": did}
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def seen_lines(lines: list[bytes]) -> list[tuple[str, str, int]]:
    """Document record lines as `ChangeTracker.see_all` takes them (each parsed)."""
    records = [orjson.loads(line) for line in lines]
    return [
        (r["path"], r["doc_id"], fingerprint(line)) for r, line in zip(records, lines, strict=True)
    ]


_HELD = 50_000
"""Documents held before the previous records are read: memory stays bounded."""
_BATCH = 2_000
"""Documents held once they are: looked up at once (one query per 500)."""


class Deferred:
    """Changes against a `Previous` that is read only when first needed: the documents
    seen before are held (path, id, fingerprint) until then, and the old document files
    of segments taken whole are not read at all (their documents are unchanged). Once
    read, documents are still held, `_BATCH` at a time, and looked up together."""

    def __init__(self, previous: Previous) -> None:
        self._previous = previous
        self.tracker: ChangeTracker | None = None
        """The tracker, once the previous records are read."""
        self._held: list[tuple[str, str, int]] = []
        self._skip: set[str] = set()

    def hold(self, path: str, doc_id: str, line: bytes) -> bool:
        """Hold a document; True when it is time to `flush`."""
        self._held.append((path, doc_id, fingerprint(line)))
        return len(self._held) >= (_HELD if self.tracker is None else _BATCH)

    def taken_whole(self, documents: Collection[str], paths: list[str]) -> None:
        """Note a segment taken whole: its old document files and its documents."""
        if self.tracker is None:
            self._skip.update(documents)
        else:
            self.tracker.unchanged(paths)

    def flush(self) -> list[bytes]:
        """The change lines of the documents held, in order, the previous records read
        first (but the skipped files') when they are still to be read. Blocking."""
        if self.tracker is None:
            self.tracker = ChangeTracker(self._previous.load(self._skip))
        held, self._held = self._held, []
        return self.tracker.see_all(held) if held else []

    def close(self) -> None:
        """Drop the previous records (when read)."""
        if self.tracker is not None:
            self.tracker.close()
