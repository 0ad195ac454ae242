"""A toy mail format whose extractor marks the quoted part of a reply `meta.quoted`, as
the mail readers do: a `.qmail` file's text before a line `>>>` is the reply, after it
the quote (importable by worker processes)."""

from __future__ import annotations

from indexer._spec import ExtractorSpec
from indexer._types import Chunk, Extracted, Options


def extract(data: bytes, path: str, options: Options) -> Extracted:
    text = data.decode()
    reply, _, quoted = text.partition("\n>>>\n")
    chunks = [Chunk(text=reply.strip(), meta={})]
    if quoted.strip():
        chunks.append(Chunk(text=quoted.strip(), meta={"quoted": True}))
    return Extracted(kind="qmail", text=text, chunks=tuple(chunks))


QMAIL = ExtractorSpec(
    name="qmail", kind="qmail", extensions=("qmail",), version="1", extract=extract
)
