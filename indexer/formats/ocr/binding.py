"""Tesseract's library called in this process (the `tesserocr` binding), one model load a process.

The command-line program loads its model (and the `osd` model) for every page: 0.2-0.3
CPU s of the 0.5-1 s a page costs. Through the binding a worker process loads each model
once and keeps it, and the page goes in as its 8-bit grey pixels, with no image file
written or read. The binding's wheel brings its own libtesseract, built without OpenMP
(one thread, as the pool wants); the model data is the system's, the folder the
`tesseract` program lists its languages from.

`version()` is the library's version, or None when the binding is not installed;
`tsv(...)` returns Tesseract's TSV rows for a page (without the header) or raises
`OcrError`.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

from indexer.formats.ocr.engine import OcrError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["tsv", "version"]


@functools.cache
def version() -> str | None:
    """Return the binding's libtesseract version (`5.5.4`), or None when it is not
    installed or does not load (cached)."""
    try:
        import tesserocr
    except ImportError:  # an optional dependency: the program is used instead
        return None
    words = str(tesserocr.tesseract_version()).split()
    return words[1] if len(words) > 1 and words[0] == "tesseract" else None


@functools.cache
def _api(tessdata: str, language: str, psm: int) -> Any:
    """The library set up for `language` and page segmentation `psm`, kept for the
    process's life (a model loads in 0.1-0.3 s and takes 40 MB)."""
    import tesserocr

    try:
        return tesserocr.PyTessBaseAPI(path=tessdata, lang=language, psm=psm)
    except RuntimeError:
        raise OcrError(f"OCR language {language!r} not installed") from None


def tsv(image: Image, *, tessdata: str, language: str, psm: int, dpi: int, timeout: float) -> str:
    """Return Tesseract's TSV rows for `image` (8-bit grey; `dpi` 0 if unknown), read in
    `language` with page segmentation `psm`; raises `OcrError` past `timeout` seconds."""
    api = _api(tessdata, language, psm)
    grey = image if image.mode == "L" else image.convert("L")
    pixels = grey.tobytes()  # kept alive until the page is read: the library borrows it
    api.SetImageBytes(pixels, grey.width, grey.height, 1, grey.width)
    if dpi:  # else Tesseract estimates it from the text's height
        api.SetSourceResolution(dpi)
    start = time.monotonic()
    if not api.Recognize(timeout=max(1, round(timeout * 1000))):
        api.Clear()
        if time.monotonic() - start >= timeout:
            raise OcrError(f"OCR timeout after {timeout:g} s")
        raise OcrError("OCR engine failed")
    rows = str(api.GetTSVText(0))
    api.Clear()  # the page's pixels and results; the model stays loaded
    return rows
