"""The `json` extractor on arrays over `GROUP_ABOVE` bytes: blocks of elements, memory bounded."""

from __future__ import annotations

import itertools
import json
import random
import tracemalloc
from typing import Any

import pytest

from indexer import Options, extract
from indexer.formats import json as json_extractor
from indexer.formats.json import groups, large
from indexer.formats.json.values import render

OPTIONS = Options()
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota")


def short_strings(n: int) -> list[str]:
    rng = random.Random(0)
    return [" ".join(rng.choices(WORDS, k=4)) for _ in range(n)]


def blocks_of(result: Any) -> list[tuple[str, list[int]]]:
    return [(c.text, c.meta["indexes"]) for c in result.chunks]


def assert_blocks_cover(elements: list[Any], result: Any, budget: int) -> None:
    """Every element's rendering, in order, each in the block whose range names it."""
    blocks = blocks_of(result)
    assert blocks[0][1][0] == 0 and blocks[-1][1][1] == len(elements) - 1
    for (_, before), (_, after) in itertools.pairwise(blocks):
        assert after[0] == before[1] + 1
    for text, (first, last) in blocks:
        assert text == "\n".join(render(e) for e in elements[first : last + 1])
        assert len(text) <= budget or first == last
    assert result.text == "\n".join(text for text, _ in blocks)


def test_large_array_of_short_strings_extracts_in_three_times_its_size() -> None:
    elements = short_strings(400_000)
    data = json.dumps(elements, separators=(",", ":")).encode()
    assert len(data) > 9_000_000
    tracemalloc.start()
    try:
        result = extract("big.json", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The text and the blocks, each about the size of the input, and one group at a time;
    # a chunk per element took 17 times the input.
    assert peak < 3 * len(data)
    assert result.status == "ok" and len(result.chunks) > len(data) // 1100
    assert result.chunks[0].text.startswith(json.dumps(elements[0]) + "\n")
    assert result.chunks[-1].text.endswith("\n" + json.dumps(elements[-1]))
    assert result.chunks[-1].meta == {"indexes": [result.chunks[-1].meta["indexes"][0], 399_999]}
    assert all(0 < len(c.text) <= large.BLOCK_CHARS for c in result.chunks)


ARRAYS: list[list[Any]] = [
    short_strings(300),
    ["a, b", '","', "[", "]", "x\\", '\\"', "", "é ☃ 😀", "\u2028"] * 40,
    [*range(-500, 500), 1.5, -0.0, 1e300, True, False, None],
    [[i, [i, "]"]] for i in range(200)] + [[]] * 5,
    [{"id": i, "name": '},{"id": 1', "kids": [{"id": -i}]} for i in range(200)],
    ["x" * 2500, "y", "z" * 999, "w"] * 10,
]


@pytest.mark.parametrize("elements", ARRAYS)
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": "), None])
def test_large_array_blocks_hold_each_element_as_a_whole_parse_renders_it(
    monkeypatch: pytest.MonkeyPatch, elements: list[Any], separators: tuple[str, str] | None
) -> None:
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    monkeypatch.setattr(groups, "_GROUP_BYTES", 64)  # many groups, cut in every way
    indent = 2 if separators is None else None  # pretty-printed input
    source = json.dumps(elements, ensure_ascii=False, separators=separators, indent=indent)
    result = json_extractor.extract(source.encode(), "d.json", OPTIONS)
    assert_blocks_cover(elements, result, large.BLOCK_CHARS)
    assert result == json_extractor.chunk(source, OPTIONS)


def test_large_array_numbers_keep_their_literals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    monkeypatch.setattr(groups, "_GROUP_BYTES", 16)
    source = "[" + ",".join(["1", "123456789012345678901234", "1E400", "2.5"] * 20) + "]"
    result = json_extractor.extract(source.encode(), "d.json", OPTIONS)
    assert result.text.split("\n")[:4] == ["1", "123456789012345678901234", "1E400", "2.5"]


def test_a_block_is_no_longer_than_max_chunk_chars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    elements = short_strings(500)
    data = json.dumps(elements).encode()
    result = json_extractor.extract(data, "d.json", Options(max_chunk_chars=100))
    assert_blocks_cover(elements, result, 100)


def test_only_documents_over_group_above_are_grouped(monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.dumps(short_strings(10)).encode()
    monkeypatch.setattr(large, "GROUP_ABOVE", len(data))
    assert [c.meta for c in extract("d.json", data).chunks] == [{"index": i} for i in range(10)]
    monkeypatch.setattr(large, "GROUP_ABOVE", len(data) - 1)
    assert [c.meta for c in extract("d.json", data).chunks] == [{"indexes": [0, 9]}]


@pytest.mark.parametrize(
    ("source", "meta"),
    [('{"a": [1, 2], "b": 3}', {"key": "a"}), ('[1, 2, "\\ud800"]', None), ("[1, 2", None),
     ("[1, 2,]", None), ("[]", None), ('  [\n  "a"\n]  \n', {"indexes": [0, 0]})],
)  # fmt: skip
def test_large_documents_that_are_no_clean_array_are_read_whole(
    monkeypatch: pytest.MonkeyPatch, source: str, meta: dict[str, Any] | None
) -> None:
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    monkeypatch.setattr(groups, "_GROUP_BYTES", 2)
    result = json_extractor.extract(source.encode(), "d.json", OPTIONS)
    assert result.chunks, "never nothing for non-empty input"
    if meta is None:
        assert result.degraded or result.chunks[0].meta != {"indexes": [0, 0]}
    else:
        assert result.chunks[0].meta == meta
