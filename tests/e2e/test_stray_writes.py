"""A plugin extractor that writes stray bytes where it should not costs its own file only."""

from __future__ import annotations

from pathlib import Path

import pytest
from outputs import document_records
from plugins import install_plugin

from indexer.cli import main

_PLUGIN = """\
import hostile

def specs():
    return [hostile.SCRIBBLE, hostile.SCRIBBLE_GENERAL, hostile.FORGE, hostile.FORGE_GENERAL]
"""


def test_a_plugin_writing_garbage_to_descriptors_fails_only_its_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed through the entry point group and run from the command line, in both
    pools: writes to fds 3-11 reach nothing of the worker's, so those files are `ok`;
    writes into the reply pipe itself fail their file `crashed` and the worker is
    replaced. The run commits and exits by `max_failures`. Before the frames were
    checked, the run ended `fatal: UnpicklingError`, exit 3, nothing committed."""
    (tmp_path / "plugins").mkdir()
    install_plugin(tmp_path / "plugins", "strayplugin", _PLUGIN, monkeypatch)
    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    names = ["a.scribble", "b.scribbles", "c.forge", "d.forges"]
    for name in names:
        (source / name).write_bytes(b"payload")
    for i in range(4):
        (source / f"note-{i}.txt").write_text(f"note {i}\n")
    argv = ["run", str(source), "--out", str(out), "--quiet", "--workers", "1"]
    assert main([*argv, "--pdf-workers", "1", "--max-failures", "1"]) == 1
    docs = {d["path"]: (d["status"], d["reason"]) for d in document_records(out)}
    assert docs == {
        "a.scribble": ("ok", ""),
        "b.scribbles": ("ok", ""),
        "c.forge": ("failed", "crashed"),
        "d.forges": ("failed", "crashed"),
        **{f"note-{i}.txt": ("ok", "") for i in range(4)},
    }
    records = {d["path"]: d for d in document_records(out)}
    assert "protocol error: bad frame magic" in records["c.forge"]["reason_text"]
