"""Packed chunks over the whole shared corpus and formats: nothing lost, boundaries kept,
sizes as issue 19 asks."""

from __future__ import annotations

import itertools
import json
import re
import statistics
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import indexer
from indexer.config import Config

pytestmark = pytest.mark.slow

Docs = dict[str, list[dict[str, Any]]]
HARD = ("part", "sheet", "slide", "chapter", "mail")
"""Meta keys whose change starts a new chunk (with the top-level heading)."""
DEFAULTS = Config()


def chunks_by_doc(source: Path, out: Path, config: Config) -> Docs:
    indexer.run(source, out, config)
    docs: Docs = defaultdict(list)
    for shard in sorted(out.glob("chunks-*.ndjson")):
        for line in shard.read_bytes().splitlines():
            record = json.loads(line)
            docs[record["doc_id"]].append(record)
    return docs


@pytest.fixture(scope="module", params=["corpus", "formats"])
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Docs]]:
    """The chunks of three runs: blocks, packed with the defaults, and packed with
    `chunk_max = max_chunk_chars` (no block is then cut)."""
    source: Path = request.getfixturevalue(request.param)
    # OCR off, as the other whole-corpus runs: tests/formats/ reads the scans. Quotes
    # kept: the corpus pass leaves a quoted block out of the blocks run, while a packed
    # chunk that also holds new text stays, so the two would not cover the same blocks.
    base = Config(workers=2, pdf_workers=2, max_failures=10**6, ocr_mode="off", keep_quotes=True)
    configs = {
        "blocks": replace(base, chunking="blocks"),
        "packed": base,
        "uncut": replace(base, chunk_max=base.max_chunk_chars),
    }
    top = tmp_path_factory.mktemp(f"chunks-{request.param}")
    return request.param, {
        name: chunks_by_doc(source, top / name, config) for name, config in configs.items()
    }


def squeezed(chunks: list[dict[str, Any]]) -> str:
    return "".join("".join(c["text"].split()) for c in chunks)


def test_uncut_packed_chunks_hold_exactly_the_blocks_characters_in_order(
    runs: tuple[str, dict[str, Docs]],
) -> None:
    _, by = runs
    blocks, uncut = by["blocks"], by["uncut"]
    assert blocks.keys() == uncut.keys() and len(blocks) > 100
    lost = [blocks[d][0]["path"] for d in blocks if squeezed(blocks[d]) != squeezed(uncut[d])]
    assert lost == []


def test_every_packed_chunk_names_consecutive_blocks_and_none_is_over_the_maximum(
    runs: tuple[str, dict[str, Docs]],
) -> None:
    _, by = runs
    for name, most in (("packed", DEFAULTS.chunk_max), ("uncut", DEFAULTS.max_chunk_chars)):
        for doc_id, chunks in by[name].items():
            ranges = [c["meta"]["blocks"] for c in chunks]
            assert ranges[0][0] == 0 and ranges[-1][1] == len(by["blocks"][doc_id]) - 1
            for (_, last), (first, _) in itertools.pairwise(ranges):
                assert first in (last, last + 1), chunks[0]["path"]  # the same block when cut
            assert max(len(c["text"]) for c in chunks) <= most, chunks[0]["path"]


def test_no_packed_chunk_crosses_a_part_sheet_slide_chapter_or_top_heading(
    runs: tuple[str, dict[str, Docs]],
) -> None:
    _, by = runs
    for doc_id, chunks in by["packed"].items():
        metas = [b["meta"] for b in by["blocks"][doc_id]]
        for chunk in chunks:
            first, last = chunk["meta"]["blocks"]
            inside = metas[first : last + 1]
            for key in HARD:
                values = [json.dumps(m[key]) for m in inside]
                if key == "part" and len(set(values)) == 2:  # the header summary leads
                    led = values.count('"headers"')
                    rest = values[led:]
                    assert led and values[:led] == ['"headers"'] * led and len(set(rest)) == 1
                    assert rest[0] in ('"body"', '"quoted"', '"forwarded"', '"signature"',
                                       '"disclaimer"')  # fmt: skip
                    continue
                assert len(set(values)) == 1, (chunk["path"], key)
            tops = {m["headings"].split(" > ")[0] for m in inside}
            assert len(tops) == 1, chunk["path"]


def test_packed_chunks_of_documents_over_the_target_are_sized_for_retrieval(
    runs: tuple[str, dict[str, Docs]],
) -> None:
    name, by = runs
    if name != "corpus":
        pytest.skip("the formats folder holds a few documents of each kind; see docs/chunking.md")
    sizes: dict[str, list[int]] = defaultdict(list)
    for doc_id, blocks in by["blocks"].items():
        if len("\n\n".join(b["text"] for b in blocks)) > DEFAULTS.chunk_target:
            sizes[blocks[0]["kind"]] += [len(c["text"]) for c in by["packed"][doc_id]]
    assert set(sizes) >= {"csv", "eml", "html", "json", "pdf", "text"}
    for kind, lengths in sizes.items():
        assert statistics.median(lengths) >= DEFAULTS.chunk_target / 2, kind
        assert sum(n < 200 for n in lengths) <= 0.10 * len(lengths), kind


HEADER_LINE = re.compile(r"(From|To|Cc|Date|Subject): ")


def test_no_packed_chunk_is_only_a_mail_header_summary_or_a_table_header(
    runs: tuple[str, dict[str, Docs]],
) -> None:
    _, by = runs
    alone = []
    for doc_id, chunks in by["packed"].items():
        blocks = by["blocks"][doc_id]
        head = blocks[0]["text"].split("\n", 1)[0]
        for chunk in chunks[:-1] if len(chunks) > 1 else []:
            lines = chunk["text"].strip().split("\n")
            summary = chunk["kind"] in ("eml", "msg") and all(HEADER_LINE.match(x) for x in lines)
            header = chunk["kind"] == "csv" and chunk["text"] == head
            # a summary over half a chunk leads nothing; a CSV header that leaves no
            # room for a record beside it (csv._pieces) is chunks of its own
            leads = 2 * len(blocks[0]["text"]) <= DEFAULTS.chunk_max
            fits = len(head) + 1 + 64 <= DEFAULTS.max_chunk_chars
            if (summary and leads) or (header and fits):
                alone.append(chunk["path"])
    assert alone == []
