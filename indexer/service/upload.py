"""A `POST /v1/extract` request read: its options (query parameters) and its file
(the raw body, named by `?name=`, or the multipart field `file`).

The file is written straight into the request's folder as it arrives, so a request
holds a few chunks in memory whatever its size (`BodyLimit` bounds the size).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import anyio
from starlette.datastructures import UploadFile
from starlette.requests import Request

from indexer.service.onefile import OCR_MODES, PDF_ENGINES, Choices

PARAMETERS = ("name", "pdf_engine", "ocr", "whole_page")
"""The query parameters `POST /v1/extract` takes: `indexer extract`'s flags."""
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


class BadRequest(Exception):
    """A request the server cannot extract as sent (400)."""


def choices_of(query: Mapping[str, str]) -> Choices:
    """The extraction options in `query`; raises `BadRequest` for an unknown
    parameter or a value `indexer extract` would refuse."""
    unknown = sorted(set(query) - set(PARAMETERS))
    if unknown:
        raise BadRequest(f"unknown parameter {unknown[0]!r} (known: {', '.join(PARAMETERS)})")
    pdf_engine, ocr = query.get("pdf_engine"), query.get("ocr")
    if pdf_engine is not None and pdf_engine not in PDF_ENGINES:
        raise BadRequest(f"pdf_engine must be one of {', '.join(PDF_ENGINES)}")
    if ocr is not None and ocr not in OCR_MODES:
        raise BadRequest(f"ocr must be one of {', '.join(OCR_MODES)}")
    whole_page = query.get("whole_page", "").lower()
    if whole_page not in _TRUE + _FALSE:
        raise BadRequest("whole_page must be true or false")
    return Choices(pdf_engine=pdf_engine, ocr=ocr, whole_page=whole_page in _TRUE)


async def receive_file(request: Request, folder: Path) -> Path:
    """Write the request's file into `folder` under its name; return its path.
    Raises `BadRequest` (no name, no file field) and `TooLarge` (from `BodyLimit`)."""
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/form-data"):
        return await _from_form(request, folder)
    path = folder / _file_name(request.query_params.get("name"))
    with path.open("wb") as out:  # chunks of the socket's reads: small, page-cache writes
        async for chunk in request.stream():
            out.write(chunk)
    return path


async def _from_form(request: Request, folder: Path) -> Path:
    async with request.form(max_files=1, max_fields=8) as form:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise BadRequest("a multipart request carries its file in the field 'file'")
        path = folder / _file_name(request.query_params.get("name") or upload.filename)
        with path.open("wb") as out:
            await anyio.to_thread.run_sync(shutil.copyfileobj, upload.file, out)
    return path


def _file_name(name: str | None) -> str:
    """The file's name: its last path component, which picks its format."""
    base = Path(name or "").name
    if base in ("", ".", "..") or "\0" in base:
        raise BadRequest("the file needs a name: ?name=FILE (or a multipart filename)")
    return base
