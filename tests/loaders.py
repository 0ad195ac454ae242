"""An output's NDJSON files as DuckDB, polars, pandas and Hugging Face `datasets` load them
with default options, and the records they should have found (tests/pipeline/
test_record_shape.py, tests/e2e/test_loaders.py)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

Records = list[dict[str, Any]]


def parsed(out: Path, pattern: str) -> Records:
    """Every record of the files `pattern` matches in `out`, parsed, in name then line order."""
    return [
        json.loads(line)
        for path in sorted(out.glob(pattern))
        for line in path.read_bytes().splitlines()
    ]


def _polars(files: list[str]) -> Records:
    import polars

    return polars.read_ndjson(files).to_dicts()


def _duckdb(files: list[str]) -> Records:
    import duckdb

    relation = duckdb.read_json(files)  # read_json_auto's defaults
    names = relation.columns
    return [dict(zip(names, row, strict=True)) for row in relation.fetchall()]


def _pandas(files: list[str]) -> Records:
    import pandas

    frames = [pandas.read_json(f, lines=True) for f in files]
    frame = pandas.concat(frames, ignore_index=True)
    return [_plain(r) for r in frame.to_dict("records")]


def _datasets(files: list[str]) -> Records:
    os.environ["HF_DATASETS_OFFLINE"] = "1"  # nothing to fetch: the files are local
    import datasets

    datasets.disable_progress_bars()
    cache = Path(files[0]).parent.parent / ".hf-cache"
    table = datasets.load_dataset("json", data_files=files, split="train", cache_dir=str(cache))
    return list(table)


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones (pandas hands them out)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


LOADERS: dict[str, Callable[[list[str]], Records]] = {
    "duckdb": _duckdb,
    "polars": _polars,
    "pandas": _pandas,
    "datasets": _datasets,
}


def load(loader: str, out: Path, pattern: str) -> Records:
    """The records of the files `pattern` matches in `out` as `loader` loads them."""
    files = [str(p) for p in sorted(out.glob(pattern))]
    return LOADERS[loader](files)


def differences(loaded: Records, wanted: Records, key: str) -> list[str]:
    """What `loaded` lost or changed of `wanted` (matched by `key`), at most 5 lines."""
    found = {r[key]: r for r in loaded}
    lost: list[str] = []
    for record in wanted:
        got = found.get(record[key])
        if not same(got, record):
            lost.append(f"{record[key]}: {_diff(got, record)}")
    return lost[:5] + ([f"... {len(lost)} in all"] if len(lost) > 5 else [])


def same(got: Any, want: Any) -> bool:
    """Whether `got` is `want`, a float read to within 4 ulp as the same float: pandas'
    `read_json` parses decimals imprecisely unless told `precise_float=True` (0.954 reads
    as 0.9540000000000001), a loss in the last bit, not of a key or a value."""
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(same(got[k], want[k]) for k in want)
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(same(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, float) and isinstance(got, float) and got != want:
        return abs(got - want) <= 4 * math.ulp(want)
    return bool(got == want) and type(got) is type(want)


def _diff(got: dict[str, Any] | None, want: dict[str, Any]) -> str:
    if got is None:
        return "missing"
    keys = [k for k in want if got.get(k, "<absent>") != want[k]]
    keys += [k for k in got if k not in want]
    return ", ".join(f"{k}={got.get(k, '<absent>')!r:.80} want {want.get(k)!r:.80}" for k in keys)
