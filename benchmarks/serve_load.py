"""The client side of suite `serve`: requests posted by concurrent httpx clients."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HOSTILE_BODY = b"hostile"


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """One request's outcome."""

    path: Path | None
    """The corpus file sent; None for a hostile one."""
    status: int
    """The HTTP status; 0 when the connection failed."""
    seconds: float
    record_status: str = ""
    body: Any = None
    """The parsed answer, kept only for the files asked for."""
    refused: int = 0
    """503s answered before this answer (each retried after its `Retry-After`)."""


async def post_all(
    url: str,
    sequence: Sequence[tuple[str, Path | None]],
    clients: int,
    keep: Collection[Path] = (),
) -> list[Answer]:
    """Post every (name, file) of `sequence` to `url`/v1/extract, `clients` at a time;
    return the answers in sending order. A file is read once and kept in memory."""
    bodies: dict[Path, bytes] = {}
    answers: list[Answer | None] = [None] * len(sequence)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(sequence)):
        queue.put_nowait(i)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:

        async def worker() -> None:
            while not queue.empty():
                i = queue.get_nowait()
                name, path = sequence[i]
                if path is not None and path not in bodies:
                    bodies[path] = path.read_bytes()
                data = HOSTILE_BODY if path is None else bodies[path]
                answers[i] = await _post(client, name, path, data, path in keep)

        await asyncio.gather(*(worker() for _ in range(clients)))
    return [a for a in answers if a is not None]


async def _post(
    client: httpx.AsyncClient, name: str, path: Path | None, data: bytes, keep: bool
) -> Answer:
    """Post until the server answers other than 503, as a client that honours
    `Retry-After` does; the seconds are the whole wait, retries included."""
    start, refused = time.perf_counter(), 0
    while True:
        try:
            reply = await client.post("/v1/extract", params={"name": name}, content=data)
        except httpx.HTTPError:
            return Answer(path=path, status=0, seconds=time.perf_counter() - start)
        if reply.status_code != 503:
            break
        refused += 1
        await asyncio.sleep(float(reply.headers.get("retry-after", "1")))
    seconds = time.perf_counter() - start
    if reply.status_code != 200:
        return Answer(path=path, status=reply.status_code, seconds=seconds, refused=refused)
    parsed = reply.json()
    return Answer(
        path=path,
        status=200,
        seconds=seconds,
        record_status=parsed["document"]["status"],
        body=parsed if keep else None,
        refused=refused,
    )
