"""Duplicates across documents, decided in walk order (docs/dedup.md)."""
