"""`indexer mcp`: the MCP server (stdio, the official `mcp` SDK) for agents.

Tools:

    extract(path, ocr?, pdf_engine?, whole_page?)  what `indexer extract --json` prints
    search(out, query, limit?, kind?, path?)      `indexer search OUT QUERY --json` hits
    chunks(out, doc_id? | path?)                  a document's chunk records from OUT

`extract` runs on the same `Extractor` as `indexer serve` (long-lived killable pools,
the `[isolation]` limits, a per-call timeout), so a hostile file fails its call with
its record, never the server. A tool's error (no such file, no index, no document)
is an MCP tool error with the reason as its text. stdout carries the protocol: the
pipeline prints nothing there, and worker processes point theirs at /dev/null.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from indexer.errors import ConfigError, LockHeld
from indexer.service.extractor import Extractor, TimedOut, discard
from indexer.service.onefile import Choices, place
from indexer.service.searching import document_chunks, up_to_date
from indexer.service.upload import BadRequest, choices_of

INSTRUCTIONS = (
    "indexer turns documents into clean text and retrieval chunks. `extract` reads one "
    "file (a path on this machine) and returns its document record, chunks and children; "
    "`search` finds chunks in an output folder of `indexer run` (BM25); `chunks` returns "
    "one document's chunks from such a folder, by doc_id or path."
)


def build(extractor: Extractor) -> MCPServer[None]:
    """The MCP server whose `extract` tool runs on `extractor` (opened with the server)."""

    @asynccontextmanager
    async def lifespan(server: MCPServer[None]) -> AsyncIterator[None]:
        async with extractor:
            yield None

    server: MCPServer[None] = MCPServer(
        name="indexer", instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING"
    )

    @server.tool(description="Extract one file: its document record, chunks and children.")
    async def extract(
        path: str, ocr: str = "", pdf_engine: str = "", whole_page: bool = False
    ) -> dict[str, Any]:
        choices = _choices(ocr, pdf_engine, whole_page)
        return await _extract(extractor, Path(path), choices)

    @server.tool(description="Search an indexed output folder: the best chunks, best first.")
    async def search(
        out: str, query: str, limit: int = 10, kind: str = "", path: str = ""
    ) -> dict[str, Any]:
        hits = await anyio.to_thread.run_sync(
            partial(_search, Path(out), query, limit, kind or None, path or None)
        )
        return {"hits": hits}

    @server.tool(description="One document's chunk records from an output folder.")
    async def chunks(out: str, doc_id: str = "", path: str = "") -> dict[str, Any]:
        lookup = partial(document_chunks, Path(out), doc_id=doc_id, path=path)
        try:
            return await anyio.to_thread.run_sync(lookup)
        except (ValueError, LookupError, OSError) as exc:
            raise ToolError(str(exc)) from None

    return server


def _choices(ocr: str, pdf_engine: str, whole_page: bool) -> Choices:
    given = {"ocr": ocr, "pdf_engine": pdf_engine, "whole_page": "true" if whole_page else ""}
    try:
        return choices_of({key: value for key, value in given.items() if value})
    except BadRequest as exc:
        raise ToolError(str(exc)) from None


async def _extract(extractor: Extractor, path: Path, choices: Choices) -> dict[str, Any]:
    try:
        config = extractor.settings(choices)
    except ConfigError as exc:
        raise ToolError(str(exc)) from None
    root = extractor.folder()
    try:
        place(path, root / "source" / path.name)
        return await extractor.extract(root, config)
    except (OSError, TimedOut) as exc:
        raise ToolError(f"cannot extract {path}: {exc}") from None
    finally:
        await discard(root)


def _search(
    out: Path, query: str, limit: int, kind: str | None, path: str | None
) -> list[dict[str, Any]]:
    from indexer.sinks.search import search

    if limit < 1:
        raise ToolError("limit must be at least 1")
    try:
        up_to_date(out)
        return [hit.to_dict() for hit in search(out, query, limit=limit, kind=kind, path=path)]
    except FileNotFoundError:
        raise ToolError(f"{out} holds no committed output (or no search index)") from None
    except LockHeld:
        raise ToolError(f"a run holds {out} and it has no index yet") from None
    except ValueError as exc:
        raise ToolError(str(exc)) from None
