"""`indexer mcp` through the SDK's own stdio client: a real server subprocess.

`extract` answers what `indexer extract --json` prints (a crashing file fails its own
call, as a record); `search` finds what `indexer search --json` finds; `chunks` gives a
document's chunk records as the run committed them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
import servers
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import indexer
from indexer.cli import main

pytestmark = pytest.mark.slow

NOTES = {
    "alpha.txt": "The heron waits by the reed bed.\n\nA second paragraph about tides.",
    "beta.txt": "Invoices are due within thirty days of receipt.",
}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    source.mkdir()
    for name, text in NOTES.items():
        (source / name).write_text(text)
    indexer.run(source, tmp_path / "out", workers=1, pdf_workers=1)
    return tmp_path / "out"


@asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[ClientSession]:
    """A session with `indexer mcp` (entered in the test's own task: the SDK's cancel
    scopes must be left in the task that entered them)."""
    site = servers.install_plugin(tmp_path / "plugin")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "indexer", "mcp", "--workers", "1", "--pdf-workers", "1"],
        env=servers.environment(site),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def test_the_tools_are_listed_and_extract_answers_what_extract_json_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served(tmp_path) as session:
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {"extract", "search", "chunks"}
        path = tmp_path / "notes.txt"
        path.write_text("\n\n".join(f"Paragraph {i} says a few words." for i in range(60)))
        got = await _call(session, "extract", path=str(path))
        capsys.readouterr()
        # In a thread: the CLI's run starts an event loop of its own.
        await anyio.to_thread.run_sync(main, ["extract", str(path), "--json"])
        assert got == json.loads(capsys.readouterr().out)


async def test_a_crashing_file_fails_its_call_and_the_next_call_succeeds(tmp_path: Path) -> None:
    async with served(tmp_path) as session:
        (tmp_path / "x.segv").write_bytes(b"boom")
        (tmp_path / "a.txt").write_text("alpha")
        crashed = await _call(session, "extract", path=str(tmp_path / "x.segv"))
        assert (crashed["document"]["status"], crashed["document"]["reason"]) == (
            "failed",
            "crashed",
        )
        after = await _call(session, "extract", path=str(tmp_path / "a.txt"))
        assert after["document"]["status"] == "ok"


async def test_search_finds_what_indexer_search_finds(
    tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served(tmp_path) as session:
        got = await _call(session, "search", out=str(out), query="heron", limit=5)
        capsys.readouterr()
        assert main(["search", str(out), "heron", "--json", "--limit", "5"]) == 0
        expected = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert got["hits"] == expected
        assert [hit["path"] for hit in got["hits"]] == ["alpha.txt"]


async def test_chunks_by_doc_id_or_path_are_the_committed_records(
    tmp_path: Path, out: Path
) -> None:
    async with served(tmp_path) as session:
        committed = [
            orjson.loads(line) for line in (out / "chunks-00000.ndjson").read_bytes().splitlines()
        ]
        doc = next(c for c in committed if c["path"] == "alpha.txt")
        by_path = await _call(session, "chunks", out=str(out), path="alpha.txt")
        by_id = await _call(session, "chunks", out=str(out), doc_id=doc["doc_id"])
        assert by_path == by_id
        assert by_path["chunks"] == [c for c in committed if c["doc_id"] == doc["doc_id"]]
        missing = await session.call_tool("chunks", {"out": str(out), "path": "nope.txt"})
        assert missing.is_error and "nope.txt" in str(missing.content)
