"""Property tests: arbitrary bytes under every extension keep the four invariants."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import indexer
from indexer._extract import raised
from indexer._text import decode

EXTENSIONS = ("txt", "json", "jsonl", "ndjson", "csv", "tsv", "eml", "html", "xhtml", "pdf", "md")
PREFIXES = (
    b"",
    b"%PDF-1.4\n",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"From: a@b\n\n",
    b"<html><body>",
    b"[{",
)

documents = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(PREFIXES),
    st.one_of(st.binary(max_size=600), st.text(max_size=300).map(lambda t: t.encode())),
)


def _blank(ext: str, data: bytes) -> bool:
    return not data.strip() or (ext != "pdf" and not decode(data).strip())


@pytest.mark.parametrize("ext", EXTENSIONS)
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents)
def test_arbitrary_bytes_keep_the_invariants(ext: str, data: bytes) -> None:
    options = indexer.Options(max_chunk_chars=200)
    first = indexer.extract(f"doc.{ext}", data, options)
    assert not raised(first), first.error
    if _blank(ext, data):
        assert first.chunks == ()
    else:
        assert first.chunks, "non-blank input gave no chunks"
        assert all(c.text.strip() and len(c.text) <= 200 for c in first.chunks)
    assert indexer.extract(f"doc.{ext}", data, options) == first


@given(text=st.text(max_size=400))
@settings(max_examples=examples(150), deadline=None)
def test_chunkers_keep_the_invariants_on_arbitrary_text(text: str) -> None:
    from indexer._extract import run_chunker
    from indexer.registry import default_registry

    for spec in default_registry().chunkers():
        result = run_chunker(spec, text, indexer.Options())
        assert not raised(result), (spec.name, result.error)
        assert bool(result.chunks) == bool(text.strip()), spec.name
        assert all(c.text.strip() for c in result.chunks)
        assert run_chunker(spec, text, indexer.Options()) == result
