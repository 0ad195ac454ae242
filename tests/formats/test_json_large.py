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


@pytest.mark.slow  # a 9 MB document, traced
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


OBJECTS: list[dict[str, Any]] = [
    {f"k{i}": v for i, v in enumerate(short_strings(300))},
    {f'k,"{i}"': {"a": [i, {"b": '},"x": ['}], "c": None} for i in range(200)},
    {"x" * 1200: 1, "y": list(range(500)), "z": {"deep": [[[]]]}, "é": "😀"},
]


@pytest.mark.parametrize("entries", OBJECTS)
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": "), None])
def test_large_object_blocks_hold_each_entry_as_a_whole_parse_renders_it(
    monkeypatch: pytest.MonkeyPatch, entries: dict[str, Any], separators: tuple[str, str] | None
) -> None:
    monkeypatch.setattr(groups, "_GROUP_BYTES", 64)
    indent = 2 if separators is None else None
    source = json.dumps(entries, ensure_ascii=False, separators=separators, indent=indent)
    whole = [c.text for c in json_extractor.chunk(source, OPTIONS).chunks]  # one per entry
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    result = json_extractor.extract(source.encode(), "d.json", OPTIONS)
    keys = list(entries)
    for chunk in result.chunks:
        first, last = map(keys.index, chunk.meta["keys"])
        assert chunk.text == "\n".join(whole[first : last + 1])
    assert result.text == "\n".join(whole)
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
    [('{"a": [1, 2], "b": 3}', {"keys": ["a", "b"]}), ('[1, 2, "\\ud800"]', None), ("[1, 2", None),
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


def jsonl(n: int, newline: str = "\n") -> str:
    rows = [json.dumps({"id": i, "name": name}) for i, name in enumerate(short_strings(n))]
    rows[7] = "  "  # blank lines count, and give no record
    rows[9] = '{"id": 9, "broken'
    rows[11] = '{"n": 123456789012345678901234}'
    return newline.join(rows) + newline + newline


@pytest.mark.parametrize("source", [jsonl(400), jsonl(400, "\r\n"), jsonl(400, "\r")[:-2]])
def test_large_jsonl_blocks_hold_each_record_as_a_smaller_file_gives_it(
    monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    from indexer.formats.json import large_lines

    data = source.encode()
    records = {c.meta["line"]: c.text for c in extract("d.jsonl", data).chunks}
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    monkeypatch.setattr(large_lines, "_SLICE", 100)
    result = extract("d.jsonl", data)
    assert result.degraded and len(records) == 399 and records[10] == '{"id": 9, "broken'
    covered = []
    for chunk in result.chunks:
        first, last = chunk.meta["lines"]
        numbers = [n for n in records if first <= n <= last]
        assert chunk.text == "\n".join(records[n] for n in numbers)
        covered += numbers
    assert covered == list(records), "every record once, in order"
    assert (result.chunks[0].meta["lines"][0], result.chunks[-1].meta["lines"][1]) == (1, 400)
    assert result.text == "\n".join(records.values())


@pytest.mark.parametrize(
    "source", ['[\n  {"a": 1},\n  {"b": 2}\n]\n', '\n\n{"a": \n 1}\n', "\ufeff" + jsonl(20)]
)
def test_large_jsonl_whose_first_record_is_bad_is_read_as_a_smaller_file(
    monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    data = source.encode()
    expected = extract("d.ndjson", data)
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    assert extract("d.ndjson", data) == expected


def test_large_jsonl_named_json_gives_blocks_or_one_degraded_text_as_a_smaller_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = "\n".join(json.dumps({"id": i, "s": s}) for i, s in enumerate(short_strings(300)))
    bad = good.replace('{"id": 150,', '{"id": 150')
    records = [c.text for c in extract("d.json", good.encode()).chunks]
    expected_bad = extract("d.json", bad.encode())
    monkeypatch.setattr(large, "GROUP_ABOVE", 0)
    result = extract("d.json", good.encode())
    assert result.text == "\n".join(records) and not result.degraded
    assert result.chunks[-1].meta["lines"][1] == 300 and len(result.chunks) < len(records)
    assert extract("d.json", bad.encode()) == expected_bad
    assert expected_bad.degraded and len(expected_bad.chunks) > 1  # the whole text, cut
