"""The package version and the contract it implements: the one place each is written."""

__version__ = "0.1.0"

CONTRACT = "extractors-v1"
"""The extractor contract (../shared/seed/extractors-v1.md) this package implements."""

OUTPUT_FORMAT = 2
"""The output's format: 2 is packed retrieval chunks, in `manifest.json` as
`output_format`; a run with `chunking = "blocks"` writes format 1 (extractors-v1's chunks,
the bytes of the runs before packing), whose manifest has no such key."""
