"""The package version and the contract it implements: the one place each is written."""

__version__ = "0.1.0"

CONTRACT = "extractors-v1"
"""The extractor contract (../shared/seed/extractors-v1.md) this package implements."""

OUTPUT_FORMAT = 6
"""The output's format, in `manifest.json` as `output_format`: 6 adds `meta.quoted` to
chunks and `metadata.thread` to documents, the walk's detail to a skipped or
unreadable file's `reason_text` (the size and the limit, the extension or the NUL
found, the error), and `metadata.language`, `metadata.quality`, `meta.language`
and `meta.pii` ([hygiene]), and `text_sha256` and `duplicate_of`
(docs/dedup.md); 5 is packed retrieval
chunks in shards cut by path hash, with the document records split alike
(`SHARD_LAYOUT`), each record's `reason` a code with its `reason_text`
(`indexer.reasons`), no chunk of a failed, skipped or empty document, and every record
in the stable shape of `indexer/schemas/` (no null, every key in every record); 4 had
free-form reasons, marker chunks, nulls and each kind's keys only; 3 had one
`documents.ndjson`; 2 was packed chunks in shards of `shard_files` entries. A run with
`chunking = "blocks"` writes extractors-v1's chunks, in the same shape, whose manifest
has no such key (and `shard_layout` only)."""

SHARD_LAYOUT = "path-hash-2"
"""How shards are cut (`pipeline.output.boundaries`), in `manifest.json` as `shard_layout`:
`path-hash-2` writes `documents-NNNNN.ndjson` beside each `chunks-NNNNN.ndjson` (the
manifest's `documents` is their list); `path-hash-1` had one `documents.ndjson`;
manifests without it were cut every `shard_files` walk entries."""
