"""The `scale` benchmark's night leaves its cached tree as it found it: after `undo`
every file is the same to the walk (bytes, size, mtime, inode), so a later run over the
tree reuses each one instead of reading it again."""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.scale import _Night, _write_file
from indexer.pipeline.walk.entry import stat_version

FILES = 30


def _walked(root: Path) -> dict[str, tuple[str, bytes]]:
    return {
        p.relative_to(root).as_posix(): (stat_version(p.stat()), p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_night_undone_gives_back_the_very_files_it_changed(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    rng = random.Random(5)
    for i in range(FILES):
        _write_file(root, rng, i)
    before = _walked(root)
    night = _Night(root, FILES, 0.3, seed=6)
    assert night.apply() == 9
    during = _walked(root)
    assert len(set(during) - set(before)) == 3 and len(set(before) - set(during)) == 3
    night.undo()
    assert _walked(root) == before
    assert not night.aside.exists()
