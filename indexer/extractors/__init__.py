"""The built-in extractors, one module per format, registered like any plugin."""

from __future__ import annotations

from indexer.extractors import csv, eml, html, json, pdf, text
from indexer.registry import ExtractorSpec, Registry

__all__ = ["BUILTIN_SPECS", "register_builtins"]

_LIMIT = ("max_chunk_chars",)

BUILTIN_SPECS = (
    ExtractorSpec(
        name="csv",
        kind="csv",
        extensions=("csv", "tsv"),
        version=csv.VERSION,
        extract=csv.extract,
        chunker=csv.chunk,
        builtin=True,
        options_used=("rows_per_chunk", *_LIMIT),
    ),
    ExtractorSpec(
        name="eml",
        kind="eml",
        extensions=("eml",),
        # html-only mails are rendered by the html extractor, so its upgrades count too
        version=f"{eml.VERSION}+html.{html.VERSION}",
        extract=eml.extract,
        chunker=eml.chunk,
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="html",
        kind="html",
        extensions=("html", "htm", "xhtml"),
        version=html.VERSION,
        extract=html.extract,
        chunker=html.chunk,
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="json",
        kind="json",
        extensions=("json", "jsonl", "ndjson"),
        version=json.VERSION,
        extract=json.extract,
        chunker=json.chunk,
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="pdf",
        kind="pdf",
        extensions=("pdf",),
        version=pdf.VERSION,
        extract=pdf.extract,
        isolated=True,
        builtin=True,
        options_used=("pdf_engine", *_LIMIT),
    ),
    ExtractorSpec(
        name="text",
        kind="text",
        extensions=(),
        version=text.VERSION,
        extract=text.extract,
        chunker=text.chunk,
        builtin=True,
        fallback=True,
        options_used=_LIMIT,
    ),
)


def register_builtins(registry: Registry) -> None:
    """Register the six built-in extractors into `registry`, through its public API."""
    for spec in BUILTIN_SPECS:
        registry.register(spec)
