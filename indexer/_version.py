"""The package version and the contract it implements: the one place each is written."""

__version__ = "0.1.0"

CONTRACT = "extractors-v1"
"""The extractor contract (../shared/seed/extractors-v1.md) this package implements."""
