"""What bounds the server: the request size (413), the queue (503), the bearer token
(401), each request's time (504).

`BodyLimit` and `BearerToken` are plain ASGI middleware around the Starlette app;
`Admission` is asked before a request's body is read, so a saturated server refuses
at the cost of a header.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

OPEN_PATHS = frozenset({"/v1/health"})
"""Paths answered without the token: a load balancer's probe carries none."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The server's bounds, fixed at its start (`indexer serve`'s flags)."""

    max_body: int
    """Bytes a request body may have (the file, or the whole multipart body)."""
    running: int
    """Extractions that run at once (each a one-file run on the shared pools)."""
    waiting: int
    """Admitted requests that may wait for a running slot; beyond them, 503."""
    request_timeout: float
    """Seconds a request's extraction may take before it is stopped (504)."""
    retry_after: int = 1
    """The `Retry-After` seconds of a 503."""


class TooLarge(Exception):
    """A request body grew past `Limits.max_body` while it was read."""


class Admission:
    """Up to `running + waiting` requests admitted, `running` of them extracting."""

    def __init__(self, limits: Limits) -> None:
        self._cap = limits.running + limits.waiting
        self._admitted = 0
        self._running = anyio.CapacityLimiter(limits.running)

    def admit(self) -> bool:
        """Take a place for one request; False (take none) when all are taken."""
        if self._admitted >= self._cap:
            return False
        self._admitted += 1
        return True

    def leave(self) -> None:
        """Give back the place `admit` took."""
        self._admitted -= 1

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """A running slot, waited for in admission order (anyio's limiter is fair)."""
        async with self._running:
            yield

    def stats(self) -> dict[str, int]:
        """The counts `GET /v1/health` reports."""
        running = int(self._running.borrowed_tokens)
        return {"running": running, "waiting": self._admitted - running, "capacity": self._cap}


class BodyLimit:
    """Answers 413 for a request whose `Content-Length` is over `limit`, and raises
    `TooLarge` (the app answers 413) once a body without one reads past it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await error(send, 413, f"the request body is over {self.limit} bytes")
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge(f"the request body is over {self.limit} bytes")
            return message

        await self.app(scope, counted, send)


class BearerToken:
    """Answers 401 to a request without `Authorization: Bearer <token>` (but on
    `OPEN_PATHS`); the comparison takes the same time whatever the guess."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            given = _header(scope, b"authorization") or ""
            if not hmac.compare_digest(given.encode(), self.expected):
                headers = [(b"www-authenticate", b'Bearer realm="indexer"')]
                await error(send, 401, "a valid bearer token is required", headers)
                return
        await self.app(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def error(
    send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Send a whole JSON error response `{"error": message}` with `status`."""
    body = orjson.dumps({"error": message})
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": head + (headers or [])})
    await send({"type": "http.response.body", "body": body})
