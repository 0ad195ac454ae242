"""`indexer export`: a committed output as a dataset any loader reads, parquet files with
a declared Arrow schema (`schema`), or the Hugging Face `datasets` layout with a dataset
card (`card`), filtered by `Filters`; re-exported shard by shard (`write`)."""

from __future__ import annotations

from indexer.errors import IndexerError

__all__ = ["ExportError"]


class ExportError(IndexerError, ValueError):
    """OUT cannot be exported: no committed output, or one of a format without the
    fields an export needs (exit 2)."""
