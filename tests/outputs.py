"""What tests compare between runs (an OUT's committed files) and a tree to run on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def committed(out: Path) -> dict[str, bytes]:
    """What must equal a fresh run's output: every visible file but run.json and changes."""
    skip = {"run.json", "changes.ndjson"}
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name not in skip and not p.name.startswith(".")
    }


def document_lines(out: Path) -> list[bytes]:
    """Every document record line of `out`, in walk order: its document shards in name order."""
    return [
        line
        for path in sorted(out.glob("documents-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]


def document_records(out: Path) -> list[dict[str, Any]]:
    """Every document record of `out`, parsed, in walk order."""
    return [json.loads(line) for line in document_lines(out)]


def documents(out: Path) -> dict[str, dict[str, Any]]:
    """The document records of `out`, by path."""
    return {record["path"]: record for record in document_records(out)}


def write_notes(root: Path) -> None:
    """120 small notes in six folders, each note's size its own."""
    for folder in "abcdef":
        for i in range(20):
            path = root / folder / f"n{i:02d}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"Note {folder}{i}. " + "words " * (i + 3) + "\n")


def threads_by_content(out: Path) -> dict[str, tuple[str, str]]:
    """Each message of `out` by its sha256: its thread id and its parent's sha256 (`""`
    for none). A parent is a `doc_id`, a path's: this is what two trees of the same
    messages under other paths (or an IMAP folder and its Maildir copy) agree on."""
    records = [r for r in document_records(out) if r["metadata"]["thread"]["id"]]
    sha = {r["doc_id"]: r["sha256"] for r in records}
    found = {}
    for r in records:
        thread = r["metadata"]["thread"]
        found[r["sha256"]] = (thread["id"], sha[thread["parent"]] if thread["parent"] else "")
    return found
