"""`indexer serve` (HTTP, Starlette on uvicorn) and `indexer mcp` (stdio, the MCP SDK).

Both answer with what `indexer extract --json` prints: a one-file run (`onefile`) per
request, on worker pools kept open for the server's life (`extractor`). `app` is the
HTTP surface, `limits` its bounds, `upload` a request's file and options, `openapi` its
schema, `serving` the uvicorn server, `mcp` the MCP tools, `searching` what the tools
and `indexer search` read of an indexed OUT.
"""
