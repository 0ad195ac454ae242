"""indexer: turn a directory of documents into clean text and structure-aware chunks.

The library API (`extract`) works on one document in memory; the pipeline API
(`index`, `run`) indexes a whole directory into deterministic NDJSON shards, with
a `Config` (`load_config` reads one from TOML) and returns a `RunSummary`. Every
exception indexer raises on purpose is an `IndexerError` (see `indexer.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer import registry
from indexer._extract import extract
from indexer._malloc import pad_heap
from indexer._types import KINDS, Chunk, Extracted, Options
from indexer._version import CONTRACT, __version__
from indexer.config import Config, load_config
from indexer.errors import ConfigError, IndexerError, RegistryError

if TYPE_CHECKING:
    from indexer.pipeline.run.runner import RunSummary, index, run

__all__ = [
    "CONTRACT",
    "KINDS",
    "Chunk",
    "Config",
    "ConfigError",
    "Extracted",
    "IndexerError",
    "Options",
    "RegistryError",
    "RunSummary",
    "__version__",
    "extract",
    "index",
    "load_config",
    "pad_heap",
    "registry",
    "run",
]


def __getattr__(name: str) -> object:
    # The pipeline is imported on first use so that `import indexer` (and every
    # worker process) stays light for library users who only call extract().
    if name in ("index", "run", "RunSummary"):
        from indexer.pipeline.run import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'indexer' has no attribute {name!r}")
