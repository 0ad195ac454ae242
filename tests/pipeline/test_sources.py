"""A source other than the local folder, built here from outside the package the way a
plugin would (docs/architecture.md, "Adding a source"): an in-memory folder whose
version token is a counter that says nothing about the content."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest
from outputs import committed, documents

import indexer
from indexer.config import Config
from indexer.pipeline.walk.entry import Entry
from indexer.pipeline.walk.policy import WalkPolicy
from indexer.pipeline.walk.source import Listed, LocalFolder, Source, listed

CONFIG = Config(workers=1, pdf_workers=1)


class MemorySource:
    """Files held in a dict; each edit bumps a counter that is the entry's version."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = dict(files)
        self.versions = dict.fromkeys(files, 1)
        self.opened: list[str] = []

    @property
    def local(self) -> bool:
        return False

    def put(self, rel: str, data: bytes) -> None:
        self.files[rel] = data
        self.versions[rel] = self.versions.get(rel, 0) + 1

    def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
        items = (
            Listed(rel=rel, size=len(data), version=f"v{self.versions[rel]}", path=rel.encode())
            for rel, data in sorted(self.files.items())
        )
        return listed(items, policy, self.open)

    def open(self, entry: Entry) -> BinaryIO:
        rel = entry.path.decode()
        if rel not in self.files:
            raise FileNotFoundError(rel)
        self.opened.append(rel)
        return io.BytesIO(self.files[rel])


FILES = {
    "notes/a.txt": b"alpha is the first note\n",
    "notes/b.md": b"# Beta\n\nThe second note, in Markdown.\n",
    "data/c.csv": b"name,value\ncarbon,12\n",
    "data/d.json": b'{"delta": [1, 2, 3]}\n',
    "box/inbox.mbox": b"From a@b Mon Jan  1 00:00:00 2024\nSubject: hi\n\nmbox body\n",
    "raw.data": b"\x00\x01binary",
    ".hidden.txt": b"never read\n",
}


def _on_disk(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_a_memory_source_is_a_source_and_indexes_as_the_same_files_on_disk(
    tmp_path: Path,
) -> None:
    source = MemorySource(FILES)
    assert isinstance(source, Source) and isinstance(LocalFolder(tmp_path), Source)
    indexer.run(source, tmp_path / "out", CONFIG)
    indexer.run(_on_disk(tmp_path / "disk", FILES), tmp_path / "local", CONFIG)
    assert committed(tmp_path / "out") == committed(tmp_path / "local")
    docs = documents(tmp_path / "out")
    assert docs["raw.data"]["reason"] == "binary"
    assert docs[".hidden.txt"]["reason"] == "hidden"
    assert docs["box/inbox.mbox#1"]["status"] == "ok"


def test_a_rerun_reads_nothing_and_an_edit_re_extracts_only_that_entry(tmp_path: Path) -> None:
    source, out = MemorySource(FILES), tmp_path / "out"
    first = indexer.run(source, out, CONFIG)
    source.opened.clear()
    again = indexer.run(source, out, CONFIG)
    assert (again.extracted, again.changes["changed"]) == (0, 0)
    assert again.changes == {"added": 0, "changed": 0, "removed": 0}
    assert source.opened == ["raw.data"], "only the sniff of a binary (as on a disk) is redone"
    source.put("notes/a.txt", b"alpha, edited\n")
    source.put("data/e.txt", b"epsilon is new\n")
    source.opened.clear()
    edited = indexer.run(source, out, CONFIG)
    assert edited.extracted == 2
    assert edited.changes == {"added": 1, "changed": 1, "removed": 0}
    # sniffed (a .txt is claimed by no extension) and read; the unchanged ones never
    assert set(source.opened) == {"box/inbox.mbox", "data/e.txt", "notes/a.txt", "raw.data"}
    assert edited.reused == first.extracted - 1
    changes = [json.loads(line) for line in (out / "changes.ndjson").read_bytes().splitlines()]
    assert sorted(c["path"] for c in changes) == ["data/e.txt", "notes/a.txt"]
    disk = _on_disk(tmp_path / "disk", source.files)
    indexer.run(disk, tmp_path / "fresh", CONFIG)
    assert committed(out) == committed(tmp_path / "fresh")


def test_a_new_version_with_the_same_bytes_is_read_but_not_extracted(tmp_path: Path) -> None:
    source, out = MemorySource(FILES), tmp_path / "out"
    indexer.run(source, out, CONFIG)
    source.put("notes/b.md", FILES["notes/b.md"])  # a touch: the token moves, the bytes not
    source.opened.clear()
    touched = indexer.run(source, out, CONFIG)
    assert (touched.extracted, touched.changes["changed"]) == (0, 0)
    assert "notes/b.md" in source.opened


def test_an_entry_gone_between_listing_and_reading_is_vanished(tmp_path: Path) -> None:
    class Forgetful(MemorySource):
        def walk(self, policy: WalkPolicy) -> Iterator[Entry]:
            for entry in super().walk(policy):
                if entry.rel == "notes/a.txt":
                    del self.files["notes/a.txt"]
                yield entry

    indexer.run(Forgetful(FILES), tmp_path / "out", CONFIG)
    assert documents(tmp_path / "out")["notes/a.txt"]["reason"] == "vanished"


def test_listed_gives_the_walks_verdicts_and_refuses_an_unsorted_listing() -> None:
    source = MemorySource({"a.txt": b"x" * 50, "b.bin": b"y", "c/.d": b"z", "e.txt": b"ok"})
    policy = WalkPolicy(max_file_bytes=10, exclude=("e.*",))
    verdicts = {e.rel: (e.skip, e.version) for e in source.walk(policy)}
    assert verdicts == {
        "a.txt": ("too_large", "v1"), "b.bin": ("binary", "v1"), "c/.d": ("hidden", "v1"),
        "e.txt": ("excluded", "v1"),
    }  # fmt: skip
    backwards = [Listed(rel="b", size=1, version="1"), Listed(rel="a", size=1, version="1")]
    with pytest.raises(ValueError, match="not sorted"):
        list(listed(backwards, WalkPolicy(), source.open))
