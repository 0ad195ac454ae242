"""OCR engines behind one small interface: found on this machine, never downloaded.

`find_engine(options)` returns the engine `options.ocr_engine` names, set up with the
language and per-page timeout of `options`, or None when it is not installed. Its
`recognize(image, dpi=...)` returns a page's text or raises `OcrError`. `paragraphs`
turns that text into the paragraphs that become chunks.

Importing this package is cheap (no Pillow, no subprocess): the run's cache keys ask
`identity()` which engine would read the scans, so that installing or upgrading one
re-extracts what it can now read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from indexer._text import normalize_newlines, split_paragraphs
from indexer.formats.ocr.engine import Engine, OcrError

if TYPE_CHECKING:
    from indexer._types import Options

__all__ = [
    "NOT_INSTALLED",
    "Engine",
    "OcrError",
    "describe",
    "find_engine",
    "identity",
    "paragraphs",
]

NOT_INSTALLED = "OCR not installed"
"""The reason given where OCR was needed and no engine is installed."""

_ALNUM = re.compile(r"\w")
_SPACES = re.compile(r"[ \t\u00a0]+")


def find_engine(options: Options) -> Engine | None:
    """Return the engine `options` name, configured by them, or None if not installed."""
    from indexer.formats.ocr import tesseract  # the only engine so far (`OCR_ENGINES`)

    found = tesseract.installed()
    if found is None:
        return None
    return tesseract.Tesseract(
        installed=found, language=options.ocr_language, timeout=options.ocr_page_timeout
    )


def identity(name: str) -> str:
    """Return `name version` of the engine called `name`, or `name: not installed`."""
    from indexer.formats.ocr import tesseract

    found = tesseract.installed() if name == "tesseract" else None
    return f"{name}: not installed" if found is None else f"{name} {found.version}"


def describe() -> dict[str, Any]:
    """Return what `indexer capabilities` says about OCR: the engine `auto` uses (None when
    none is installed) and each known engine's version and language models."""
    from indexer.formats.ocr import tesseract

    found = tesseract.installed()
    engines = [
        {
            "name": "tesseract",
            "version": None if found is None else found.version,
            "languages": [] if found is None else list(tesseract.languages(found)),
        }
    ]
    return {"active": None if found is None else f"tesseract {found.version}", "engines": engines}


def paragraphs(text: str) -> list[str]:
    """Return an engine's page text as paragraphs (blank-line separated blocks).

    Runs of spaces become one, lines are trimmed, and lines without a letter or digit
    (rules, speckles read as `|` or `~`) are dropped.
    """
    out = []
    for block in split_paragraphs(normalize_newlines(text.replace("\f", "\n\n"))):
        lines = (_SPACES.sub(" ", line).strip() for line in block.split("\n"))
        kept = "\n".join(line for line in lines if _ALNUM.search(line))
        if kept:
            out.append(kept)
    return out
