"""Install a plugin the way pip would: a module and a dist-info naming it in the
`indexer.extractors` entry point group, on `sys.path` for this test only."""

from __future__ import annotations

from pathlib import Path

import pytest


def install_plugin(root: Path, name: str, module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write module `name` (source `module`, whose `specs()` returns the plugin's specs)
    and its dist-info under `root`, put `root` on `sys.path` and forget the default
    registry, so that the next `default_registry()` finds the plugin."""
    from indexer import registry as registry_module

    (root / f"{name}.py").write_text(module)
    dist = root / f"{name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[indexer.extractors]\n{name} = {name}:specs\n")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(registry_module, "_DEFAULT", None)
