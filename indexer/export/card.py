"""The dataset card of a Hugging Face `datasets` layout: `README.md`, whose YAML header
names the two configurations (`chunks`, the default, and `documents`) and their files,
and whose body gives the counts, languages, kinds and statuses, the filters and the
output it was made from."""

from __future__ import annotations

from typing import Any

import orjson

from indexer.export.filters import Filters
from indexer.export.tally import Tally

HEADER = """\
---
configs:
- config_name: chunks
  default: true
  data_files:
  - split: train
    path: data/chunks-*.parquet
- config_name: documents
  data_files:
  - split: train
    path: data/documents-*.parquet
---
"""


def card(tally: Tally, filters: Filters, source: dict[str, Any]) -> str:
    """The text of `README.md` for an export holding `tally`, made with `filters` from the
    output whose manifest is `source`."""
    made = {key: source.get(key) for key in ("version", "contract", "output_format",
                                             "shard_layout", "config_digest")}  # fmt: skip
    lines = [
        HEADER,
        "# Corpus export",
        "",
        "Exported by `indexer export` from a committed output of `indexer run`: one "
        "parquet file per shard, the schema in `docs/hygiene.md` of indexer.",
        "",
        f"- documents: {tally.documents:,}",
        f"- chunks: {tally.chunks:,}",
        "",
        "```python",
        "import datasets",
        'chunks = datasets.load_dataset("path/to/this/folder", "chunks", split="train")',
        "```",
        "",
        _table("Languages", "language", tally.languages),
        _table("Kinds", "kind", tally.kinds),
        _table("Statuses", "status", tally.statuses),
        "## Filters",
        "",
        "```json",
        orjson.dumps(filters.to_dict(), option=orjson.OPT_INDENT_2).decode(),
        "```",
        "",
        "## Made from",
        "",
        "```json",
        orjson.dumps(made, option=orjson.OPT_INDENT_2).decode(),
        "```",
        "",
    ]
    return "\n".join(lines)


def _table(title: str, name: str, counts: dict[str, int]) -> str:
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    body = "\n".join(f"| {key or '(none)'} | {count:,} |" for key, count in rows)
    return f"## {title}\n\n| {name} | documents |\n|---|---:|\n{body}\n"
