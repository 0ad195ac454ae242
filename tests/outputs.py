"""What tests compare between runs: an OUT's committed files."""

from __future__ import annotations

from pathlib import Path


def committed(out: Path) -> dict[str, bytes]:
    """What must equal a fresh run's output: every visible file but run.json and changes."""
    skip = {"run.json", "changes.ndjson"}
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name not in skip and not p.name.startswith(".")
    }
