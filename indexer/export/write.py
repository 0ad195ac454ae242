"""Writing an export: one parquet file per shard of the committed output, named by it
(`documents-00003.ndjson` -> `documents-00003.parquet`), and `export.json` last, the
commit marker: what each file was made from.

A re-export rewrites only the files whose sources changed: a documents file when its
shard did; a chunks file when its shard did or a documents shard holding one of its
chunks' documents did (whether a document is kept is a function of its record); a file
whose shard is gone is removed. Changing the filters or the layout rewrites everything.
Each file is written to a temporary name and renamed into place.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from indexer.export import ExportError
from indexer.export.card import card
from indexer.export.filters import Filters
from indexer.export.schema import arrow
from indexer.export.tally import Tally

MANIFEST = "export.json"
EXPORT_FORMAT = 1
"""The version of `export.json` and of the files' layout."""
FIRST_FORMAT = 6
"""The first output format whose records carry `metadata.language` and `metadata.quality`."""
Layout = Literal["parquet", "hf"]


@dataclass(slots=True, kw_only=True)
class _Export:
    out: Path
    data: Path
    filters: Filters
    previous: dict[str, Any]
    tally: Tally = field(default_factory=Tally)
    files: dict[str, Any] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    home: dict[str, str] = field(default_factory=dict)
    """Each document's documents shard, by doc_id: what a chunks file depends on."""


def export(out: Path, dest: Path, layout: Layout, filters: Filters) -> Tally:
    """Export the committed output in `out` to `dest` (`hf`: with the dataset card,
    `card`); return what it holds and what was rewritten. Raises `ExportError` for an
    OUT with no committed output of a format that has the fields exported, OSError for
    what the disk says."""
    source = source_manifest(out)
    key = {"export_format": EXPORT_FORMAT, "layout": layout, "filters": filters.to_dict(),
           "output_format": source.get("output_format", "")}  # fmt: skip
    data = dest / "data" if layout == "hf" else dest
    data.mkdir(parents=True, exist_ok=True)
    old = _old(dest)
    same = all(old.get(k) == v for k, v in key.items())
    job = _Export(out=out, data=data, filters=filters, previous=old["files"] if same else {})
    for entry in source["documents"]:
        _documents(job, entry)
    shas = {e["name"]: e["sha256"] for e in source["documents"]}
    for entry in source["shards"]:
        _chunks(job, entry, shas)
    old_data = dest / "data" if old.get("layout") == "hf" else dest
    for name in sorted(set(old["files"]) - (set(job.files) if old_data == data else set())):
        (old_data / name).unlink(missing_ok=True)
        job.tally.removed.append(name)
    if layout == "hf":
        _atomic(dest / "README.md", card(job.tally, filters, source).encode())
    _atomic(dest / MANIFEST, orjson.dumps({**key, "files": job.files}, option=_JSON))
    return job.tally


def source_manifest(out: Path) -> dict[str, Any]:
    """OUT's `manifest.json`; raises `ExportError` when there is none or its format is
    older than `FIRST_FORMAT`."""
    try:
        manifest: dict[str, Any] = orjson.loads((out / "manifest.json").read_bytes())
    except FileNotFoundError:
        raise ExportError(f"{out} holds no committed output (no manifest.json)") from None
    found = manifest.get("output_format", FIRST_FORMAT)  # none: a blocks run (records checked)
    if found < FIRST_FORMAT:
        raise ExportError(
            f"{out} is output format {found}: an export needs {FIRST_FORMAT} or later "
            "(run indexer run on it again)"
        )
    return manifest


def _documents(job: _Export, entry: dict[str, Any]) -> None:
    records = list(_records(job.out / entry["name"]))
    _check(records, arrow("documents"), job.out / entry["name"])
    chosen = [r for r in records if job.filters.keeps(r)]
    job.home.update((r["doc_id"], entry["name"]) for r in records)
    job.kept.update(r["doc_id"] for r in chosen)
    tally = job.tally
    tally.documents += len(chosen)
    tally.chunks += sum(r["chunks"] for r in chosen)
    tally.languages.update(r["metadata"]["language"]["code"] for r in chosen)
    tally.kinds.update(r["kind"] for r in chosen)
    tally.statuses.update(r["status"] for r in chosen)
    made = {"source": entry["name"], "sha256": entry["sha256"], "rows": len(chosen)}
    name = _parquet(entry["name"])
    old = job.previous.get(name)
    if old is not None and old["sha256"] == entry["sha256"] and (job.data / name).is_file():
        job.files[name] = old
        tally.kept.append(name)
        return
    _write(job.data / name, chosen, "documents")
    job.files[name] = made
    tally.written.append(name)


def _chunks(job: _Export, entry: dict[str, Any], shas: dict[str, str]) -> None:
    name = _parquet(entry["name"])
    old = job.previous.get(name)
    if (
        old is not None
        and old["sha256"] == entry["sha256"]
        and all(shas.get(s) == sha for s, sha in old["documents"].items())
        and (job.data / name).is_file()
    ):
        job.files[name] = old
        job.tally.kept.append(name)
        return
    records = list(_records(job.out / entry["name"]))
    homes = sorted({job.home[r["doc_id"]] for r in records})
    chosen = [r for r in records if r["doc_id"] in job.kept]
    _write(job.data / name, chosen, "chunks")
    job.files[name] = {"source": entry["name"], "sha256": entry["sha256"], "rows": len(chosen),
                       "documents": {s: shas[s] for s in homes}}  # fmt: skip
    job.tally.written.append(name)


def _write(path: Path, records: list[dict[str, Any]], kind: str) -> None:
    """`records` as a parquet file of `kind`'s schema, renamed into place; raises
    `ExportError` for a record whose keys are not the schema's (nothing is dropped)."""
    schema = arrow(kind)
    _check(records, schema, path)
    table = pa.Table.from_pylist(records, schema=schema)
    temporary = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, temporary, compression="zstd")
    os.replace(temporary, path)


def _check(records: list[dict[str, Any]], schema: pa.Schema, path: Path) -> None:
    struct = pa.struct(list(schema))
    for record in records:
        if not _fits(record, struct):
            raise ExportError(
                f"{path.name}: a record of {record.get('path')!r} has other keys than the "
                "export's schema (an output of another version: run indexer run on it again)"
            )


def _fits(value: Any, kind: pa.DataType) -> bool:
    """Whether `value` has exactly the keys of `kind`, at every depth (`from_pylist`
    would drop a key it does not know, and fill one missing with null)."""
    if not pa.types.is_struct(kind):
        return True
    if not isinstance(value, dict) or list(value) != [f.name for f in kind]:
        return False
    return all(_fits(value[f.name], f.type) for f in kind)


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as handle:
        for line in handle:
            yield orjson.loads(line)


def _old(dest: Path) -> dict[str, Any]:
    """The manifest of the export in `dest` (`{"files": {}}` for none)."""
    try:
        found: dict[str, Any] = orjson.loads((dest / MANIFEST).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {"files": {}}
    found.setdefault("files", {})
    return found


def _parquet(name: str) -> str:
    return name.removesuffix(".ndjson") + ".parquet"


def _atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


_JSON = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE | orjson.OPT_SORT_KEYS
