"""The HTTP surface of `indexer serve`: a Starlette app over one `Extractor`.

    GET  /v1/health         {"status": "ok", "running", "waiting", "capacity"}
    GET  /v1/capabilities   the document `indexer capabilities` prints
    POST /v1/extract        what `indexer extract --json` prints for the file
    GET  /openapi.json      the schema of the above (`openapi.py`)

A document that failed (a crash, a timeout, out of memory, a broken file) is an
answer like any other: 200 with its failed record, `document.status` "failed" and
its `reason`. The errors are the request's: 400 (a bad parameter or no file name),
401 (no token), 408 (a body still arriving at the request timeout), 413 (too large),
503 (saturated, with `Retry-After`), 504 (the extraction past the request timeout),
500 (the server could not run the extraction: disk full, say).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from indexer.errors import ConfigError
from indexer.service.extractor import Extractor, TimedOut, discard
from indexer.service.limits import Admission, BearerToken, BodyLimit, Limits, TooLarge
from indexer.service.openapi import schema
from indexer.service.upload import BadRequest, choices_of, receive_file

log = logging.getLogger(__name__)


def json_response(
    value: object, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """`value` as a JSON response (orjson: the bytes `indexer extract --json` parses to)."""
    return Response(orjson.dumps(value), status, headers, media_type="application/json")


def create_app(extractor: Extractor, limits: Limits, token: str | None) -> Starlette:
    """The app serving `extractor` within `limits`; every path but `/v1/health` asks
    for `token` when one is given."""
    admission = Admission(limits)
    state: dict[str, bytes] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        from indexer.capabilities import capabilities

        state["capabilities"] = orjson.dumps(capabilities())
        async with extractor:  # the pools live as long as the server
            yield

    async def health(request: Request) -> Response:
        return json_response({"status": "ok", **admission.stats()})

    async def caps(request: Request) -> Response:
        return Response(state["capabilities"], media_type="application/json")

    async def openapi(request: Request) -> Response:
        return json_response(schema())

    async def extract(request: Request) -> Response:
        try:
            config = extractor.settings(choices_of(request.query_params))
        except (BadRequest, ConfigError) as exc:
            return json_response({"error": str(exc)}, 400)
        if not admission.admit():
            retry = {"Retry-After": str(limits.retry_after)}
            return json_response({"error": "the server is saturated; retry later"}, 503, retry)
        root = extractor.folder()
        try:
            # A body that trickles in holds its place: it gets the request's time too.
            with anyio.fail_after(limits.request_timeout):
                await receive_file(request, root / "source")
            async with admission.running():
                return json_response(await extractor.extract(root, config))
        except BadRequest as exc:
            return json_response({"error": str(exc)}, 400)
        except ClientDisconnect:  # nobody to answer
            return Response(status_code=400)
        except TimeoutError:
            return json_response({"error": "the request body came too slowly"}, 408)
        except TimedOut as exc:
            return json_response({"error": f"the request timed out: {exc}"}, 504)
        except OSError as exc:
            log.error("extraction failed: %s", exc)
            return json_response({"error": f"the server could not extract: {exc}"}, 500)
        finally:
            admission.leave()
            await discard(root)

    async def too_large(request: Request, exc: Exception) -> Response:
        return json_response({"error": str(exc)}, 413)

    middleware = [Middleware(BodyLimit, limit=limits.max_body)]
    if token is not None:
        middleware.insert(0, Middleware(BearerToken, token=token))
    routes = [
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/capabilities", caps, methods=["GET"]),
        Route("/v1/extract", extract, methods=["POST"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={TooLarge: too_large},
    )
