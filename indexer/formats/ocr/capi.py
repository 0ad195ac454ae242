"""The `tesseract` program's own library (libtesseract), called in the worker through its C API.

The program loads its model for every page it is started on: a process start and 0.16
CPU s of model loading (0.30 with `osd`) of the 0.5-1 s a page costs. The library the
program is linked against, loaded once in a worker process with `ctypes`, keeps its
models for the worker's life and takes the page as its 8-bit grey pixels: the same code
and the same models as the program, so the same TSV, byte for byte
(`tests/formats/test_ocr_capi.py` holds that), for a fraction of the CPU.

It is used only when it loads, says it is the program's version, and can be held to one
thread: `OMP_THREAD_LIMIT=1` is read by OpenMP when it loads, so a process that already
had OpenMP loaded (by something else) runs the program instead. `tsv(...)` returns
Tesseract's TSV rows for a page (without the header), None when the library is not
usable here (the caller runs the program), or raises `OcrError`.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import functools
import os
import threading
import time
from typing import TYPE_CHECKING

from indexer.formats.ocr.engine import OcrError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["tsv"]

_LOCK = threading.Lock()  # one page at a time through a process's library handles
_VOID, _TEXT, _INT = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
_SIGNATURES: dict[str, tuple[list[type], type | None]] = {
    "TessVersion": ([], _TEXT),
    "TessBaseAPICreate": ([], _VOID),
    "TessBaseAPIDelete": ([_VOID], None),
    "TessBaseAPIInit3": ([_VOID, _TEXT, _TEXT], _INT),
    "TessBaseAPISetVariable": ([_VOID, _TEXT, _TEXT], _INT),
    "TessBaseAPISetPageSegMode": ([_VOID, _INT], None),
    "TessBaseAPISetImage": ([_VOID, _TEXT, _INT, _INT, _INT, _INT], None),
    "TessBaseAPISetSourceResolution": ([_VOID, _INT], None),
    "TessBaseAPIRecognize": ([_VOID, _VOID], _INT),
    "TessBaseAPIGetTsvText": ([_VOID, _INT], _VOID),
    "TessBaseAPIClear": ([_VOID], None),
    "TessDeleteText": ([_VOID], None),
    "TessMonitorCreate": ([], _VOID),
    "TessMonitorDelete": ([_VOID], None),
    "TessMonitorSetDeadlineMSecs": ([_VOID, _INT], None),
}


@functools.cache
def _load(version: str) -> ctypes.CDLL | None:
    """libtesseract when it loads, is `version` and can run on one thread; else None."""
    if _openmp_loaded():
        return None  # its thread limit was read already: the program keeps to one thread
    name = ctypes.util.find_library("tesseract")
    if name is None:
        return None
    os.environ["OMP_THREAD_LIMIT"] = "1"  # read by OpenMP as it loads, with the library
    try:
        lib = ctypes.CDLL(name)
        for function, (arguments, result) in _SIGNATURES.items():
            getattr(lib, function).argtypes = arguments
            getattr(lib, function).restype = result
    except (OSError, AttributeError):  # not there, or a Tesseract without this C API
        return None
    found = lib.TessVersion()
    if not isinstance(found, bytes) or found.decode("ascii", "replace") != version:
        return None  # another build than the program's: it might read differently
    return lib


def _openmp_loaded() -> bool:
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            return any("libgomp" in line or "libomp" in line for line in maps)
    except OSError:  # not Linux: nothing to read it from; OpenMP loads with the library
        return False


@functools.cache
def _api(version: str, tessdata: str, language: str) -> int:
    """A library handle with `language`'s models loaded, kept for the process's life."""
    lib = _load(version)
    assert lib is not None  # `tsv` asked first
    handle: int = lib.TessBaseAPICreate()
    if lib.TessBaseAPIInit3(handle, tessdata.encode(), language.encode()) != 0:
        lib.TessBaseAPIDelete(handle)
        raise OcrError(f"OCR language {language!r} not installed")
    # the program writes its notes ("Estimating resolution as 302") to its own stderr
    lib.TessBaseAPISetVariable(handle, b"debug_file", os.devnull.encode())
    atexit.register(lib.TessBaseAPIDelete, handle)  # else it reports its models as leaks
    return handle


def tsv(
    image: Image, *, version: str, tessdata: str, language: str, psm: int, dpi: int, timeout: float
) -> str | None:
    """Return the TSV rows (no header) the program `version` would write for `image` (8-bit
    grey; `dpi` 0 if unknown) read in `language` with segmentation `psm`; None when its
    library cannot be used here. Raises `OcrError` past `timeout` seconds."""
    lib = _load(version)
    if lib is None:
        return None
    with _LOCK:
        handle = _api(version, tessdata, language)
        grey = image if image.mode == "L" else image.convert("L")
        pixels = grey.tobytes()  # kept alive until the page is read: the library borrows it
        lib.TessBaseAPISetPageSegMode(handle, psm)
        lib.TessBaseAPISetImage(handle, pixels, grey.width, grey.height, 1, grey.width)
        if dpi:  # else Tesseract estimates it from the text's height, as the program does
            lib.TessBaseAPISetSourceResolution(handle, dpi)
        return _recognized(lib, handle, timeout)


def _recognized(lib: ctypes.CDLL, handle: int, timeout: float) -> str:
    monitor = lib.TessMonitorCreate()
    lib.TessMonitorSetDeadlineMSecs(monitor, max(1, round(timeout * 1000)))
    start = time.monotonic()
    try:
        failed = lib.TessBaseAPIRecognize(handle, monitor) != 0
        if time.monotonic() - start >= timeout:  # cut at the deadline: a partial reading
            raise OcrError(f"OCR timeout after {timeout:g} s")
        if failed:
            raise OcrError("OCR engine failed")
        text = lib.TessBaseAPIGetTsvText(handle, 0)
        try:
            return (ctypes.string_at(text) if text else b"").decode("utf-8", "replace")
        finally:
            lib.TessDeleteText(text)
    finally:
        lib.TessBaseAPIClear(handle)  # the page's pixels and results; the models stay
        lib.TessMonitorDelete(monitor)
