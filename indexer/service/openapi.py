"""The OpenAPI 3.1 document of `indexer serve` (`GET /openapi.json`).

Written out rather than derived: the routes are four, and the record schemas are the
package's own JSON Schemas (`indexer/schemas/`), referenced, not restated.
"""

from __future__ import annotations

from typing import Any

from indexer.service.upload import PARAMETERS

_JSON = "application/json"
_ERROR = {
    "description": "",
    "content": {_JSON: {"schema": {"$ref": "#/components/schemas/Error"}}},
}
_PARAMETER_DOCS = {
    "name": "The file's name; its extension picks the format (required for a raw body).",
    "pdf_engine": "As `indexer extract --pdf-engine`: pdfium or pdfplumber.",
    "ocr": "As `indexer extract --ocr`: auto, off or force.",
    "whole_page": "As `indexer extract --whole-page`: true for the whole web page.",
}


def _error(description: str) -> dict[str, Any]:
    return {**_ERROR, "description": description}


def _parameters() -> list[dict[str, Any]]:
    return [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"},
         "description": _PARAMETER_DOCS[name]}
        for name in PARAMETERS
    ]  # fmt: skip


def _extract() -> dict[str, Any]:
    return {
        "summary": "Extract one file: what `indexer extract --json` prints for it",
        "parameters": _parameters(),
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {"file": {"type": "string", "format": "binary"}},
                        "required": ["file"],
                    }
                },
            },
        },
        "responses": {
            "200": {
                "description": "The file's records (a document that failed is an answer: "
                "`document.status` is failed, `document.reason` says why)",
                "content": {_JSON: {"schema": {"$ref": "#/components/schemas/Extraction"}}},
            },
            "400": _error("A bad parameter, or a file with no name"),
            "401": _error("No valid bearer token"),
            "408": _error("The body was still arriving at the request timeout"),
            "413": _error("The body is over the server's limit"),
            "503": _error("Saturated: retry after the `Retry-After` seconds"),
            "504": _error("The extraction ran past the request timeout"),
        },
    }


def _components() -> dict[str, Any]:
    chunks = {"type": "array", "items": {"type": "object"}}
    record: dict[str, Any] = {
        "type": "object",
        "properties": {
            "document": {"type": "object", "description": "indexer/schemas/documents.json"},
            "chunks": {**chunks, "description": "indexer/schemas/chunks.json"},
        },
        "required": ["document", "chunks"],
    }
    extraction = {
        **record,
        "properties": {
            **record["properties"],
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
        },
        "required": ["document", "chunks", "children"],
    }
    error = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
    return {"schemas": {"Record": record, "Extraction": extraction, "Error": error}}


def _get(summary: str, *, open_path: bool = False) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "summary": summary,
        "responses": {"200": {"description": summary, "content": {_JSON: {}}}},
    }
    if open_path:
        operation["security"] = []
    return {"get": operation}


def schema() -> dict[str, Any]:
    """The OpenAPI document: the four paths, the bearer scheme, the shapes."""
    from indexer._version import __version__

    return {
        "openapi": "3.1.0",
        "info": {"title": "indexer serve", "version": __version__},
        "paths": {
            "/v1/health": _get("The server is up: its running, waiting requests", open_path=True),
            "/v1/capabilities": _get("What `indexer capabilities` prints"),
            "/v1/extract": {"post": _extract()},
            "/openapi.json": _get("This document"),
        },
        "components": {
            **_components(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }
