"""OCR engines behind one small interface: found on this machine, never downloaded.

`find_engine(options)` returns the engine `options.ocr_engine` names, set up with the
language and per-page timeout of `options`, or None when it is not installed;
`unavailable(options)` says why OCR cannot run (no engine, a language pack missing).
Its `recognize(image, dpi=...)` returns a page's `Reading` (text and mean word
confidence) or raises `OcrError`. `paragraphs` turns that text into the paragraphs that
become chunks; `page_meta` is the meta of an OCR'd page's chunks.

Importing this package is cheap (no Pillow, no subprocess): the run's cache keys ask
`identity()` which engine would read the scans, so that installing or upgrading one
re-extracts what it can now read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from indexer._text import normalize_newlines, split_paragraphs
from indexer.formats.ocr.engine import LOW_CONFIDENCE, Engine, OcrError, Reading

if TYPE_CHECKING:
    from indexer._types import Options
    from indexer.formats.ocr.tesseract import Installed

__all__ = [
    "LOW_CONFIDENCE",
    "NOT_INSTALLED",
    "Engine",
    "OcrError",
    "Reading",
    "describe",
    "find_engine",
    "identity",
    "low_confidence",
    "page_meta",
    "paragraphs",
    "unavailable",
]

NOT_INSTALLED = "OCR not installed"
"""The reason given where OCR was needed and no engine is installed."""
_NO_BINDING = "OCR not installed: the tesserocr engine needs pip install tesserocr"

_ALNUM = re.compile(r"\w")
_SPACES = re.compile(r"[ \t\u00a0]+")


def find_engine(options: Options) -> Engine | None:
    """Return the engine `options` name, configured by them, or None if not installed."""
    from indexer.formats.ocr import tesseract  # both engines are Tesseract (`OCR_ENGINES`)

    found = _found(options.ocr_engine)
    if found is None:
        return None
    return tesseract.Tesseract(
        installed=found, language=options.ocr_language, timeout=options.ocr_page_timeout
    )


def unavailable(options: Options) -> str | None:
    """Return why OCR cannot read with `options` (no engine, which language pack is
    missing), or None when it can."""
    from indexer.formats.ocr import tesseract

    found = _found(options.ocr_engine)
    if found is None:
        return NOT_INSTALLED if options.ocr_engine == "tesseract" else _NO_BINDING
    have = tesseract.languages(found)
    missing = [lang for lang in options.ocr_language.split("+") if lang not in have]
    if not missing:
        return None
    packs = ", ".join(f"tesseract-ocr-{lang.lower().replace('_', '-')}" for lang in missing)
    return f"OCR language {'+'.join(missing)} not installed; install {packs}"


def identity(name: str) -> str:
    """Return `name version (languages)` of the engine called `name`, or `name: not
    installed`: installing a language pack re-extracts what it can now read."""
    from indexer.formats.ocr import tesseract

    found = _found(name)
    if found is None:
        return f"{name}: not installed"
    return f"{name} {found.version} ({'+'.join(tesseract.languages(found))})"


def _found(name: str) -> Installed | None:
    """The installation engine `name` reads with: the program, or the library."""
    from indexer.formats.ocr import tesseract

    return tesseract.installed() if name == "tesseract" else tesseract.library()


def page_meta(page: int, confidence: float | None) -> dict[str, Any]:
    """The meta of the chunks of OCR'd page `page`: its confidence, flagged when low."""
    meta: dict[str, Any] = {"page": page, "ocr": True, "ocr_confidence": confidence}
    if low_confidence(confidence):
        meta["low_confidence"] = True
    return meta


def low_confidence(confidence: float | None) -> bool:
    """True for a page read under `LOW_CONFIDENCE` (or with no word at all)."""
    return confidence is None or confidence < LOW_CONFIDENCE


def describe() -> dict[str, Any]:
    """Return what `indexer capabilities` says about OCR: the engine `auto` uses (None when
    none is installed) and each known engine's version and language models."""
    from indexer.formats.ocr import tesseract

    found = tesseract.installed()
    engines = [
        {
            "name": name,
            "version": None if there is None else there.version,
            "languages": [] if there is None else list(tesseract.languages(there)),
        }
        for name, there in (("tesseract", found), ("tesserocr", tesseract.library()))
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
