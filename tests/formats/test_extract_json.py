"""The `json` extractor: reference golden cases, our divergences, fixtures and the real corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual_kinds import (
    GOLDEN,
    REGISTRY_INPUTS,
    Case,
    assert_invariants,
    assert_lists_match_golden,
    golden,
    golden_registry_chunks,
    manifest_paths,
    outcome,
)

from indexer import Options, extract
from indexer._text import decode
from indexer.formats import json as json_extractor
from indexer.formats.json import elements, groups
from indexer.formats.json import lines as jsonl

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "json"
OPTIONS = Options()


def nested(depth: int) -> str:
    """A `depth`-deep nest of empty arrays, pretty-printed, written out independently."""
    opening = [" " * (2 * i) + "[" for i in range(depth - 1)]
    closing = [" " * (2 * i) + "]" for i in reversed(range(depth - 1))]
    return "\n".join([*opening, " " * (2 * (depth - 1)) + "[]", *closing])


# Golden cases of kind json where we agree with the reference:
# (name, path, input, text, chunks).
AGREED: list[Case] = [
    ("dispatch_upper_JSON", "DATA.JSON", '[{"a":1}]', '[\n  {\n    "a": 1\n  }\n]',
     ['{\n  "a": 1\n}']),
    ("dispatch_empty_json", "n.json", "", "", []),
    ("json_array_objects", "d.json", '[{"a":1},{"b":2}]',
     '[\n  {\n    "a": 1\n  },\n  {\n    "b": 2\n  }\n]', ['{\n  "a": 1\n}', '{\n  "b": 2\n}']),
    ("json_scalar_int", "d.json", "42", "42", ["42"]),
    ("json_scalar_str", "d.json", '"hello"', '"hello"', ['"hello"']),
    ("json_null", "d.json", "null", "null", ["null"]),
    ("json_true", "d.json", "true", "true", ["true"]),
    ("json_empty_array", "d.json", "[]", "[]", ["[]"]),
    ("json_empty_object", "d.json", "{}", "{}", ["{}"]),
    ("json_array_scalars", "d.json", '[1, "two", null, true, 2.5, ""]',
     '[\n  1,\n  "two",\n  null,\n  true,\n  2.5,\n  ""\n]',
     ["1", '"two"', "null", "true", "2.5", '""']),
    ("json_array_empty_string_only", "d.json", '[""]', '[\n  ""\n]', ['""']),
    ("json_nested_arrays", "d.json", "[[1,2],[],[[3]]]",
     "[\n  [\n    1,\n    2\n  ],\n  [],\n  [\n    [\n      3\n    ]\n  ]\n]",
     ["[\n  1,\n  2\n]", "[]", "[\n  [\n    3\n  ]\n]"]),
    ("json_jsonl_one_line", "d.json", '{"a":1}\n', '{\n  "a": 1\n}', ['"a": 1']),
    ("json_whitespace_only", "d.json", "  \n ", "", []),
    ("json_unicode_escapes", "d.json",
     '{"k":"caf\\u00e9 \\ud83d\\ude00 \\u0001 \\/ \\" tab\\t nl\\n é \x7f"}',
     '{\n  "k": "café 😀 \\u0001 / \\" tab\\t nl\\n é \x7f"\n}',
     ['"k": "café 😀 \\u0001 / \\" tab\\t nl\\n é \x7f"']),
    ("json_dup_keys", "d.json", '{"a":1,"a":2}', '{\n  "a": 2\n}', ['"a": 2']),
    ("json_nan", "d.json", "[NaN]", "[NaN]", ["[NaN]"]),
    ("json_trailing_comma", "d.json", "[1,2,]", "[1,2,]", ["[1,2,]"]),
    ("json_surrounding_ws", "d.json", '  \n [ {"a" : 1} ]  \n', '[\n  {\n    "a": 1\n  }\n]',
     ['{\n  "a": 1\n}']),
    ("json_lone_surrogate", "d.json", '["\\ud800"]', '["\\ud800"]', ['["\\ud800"]']),
    ("json_invalid_text", "d.json", "  not json at all  \n", "not json at all",
     ["not json at all"]),
    ("json_comment", "d.json", '// c\n{"a":1}', '// c\n{"a":1}', ['// c\n{"a":1}']),
    ("float_3", "f.json", "[1e-400]", "[\n  0.0\n]", ["0.0"]),
    ("j_1", "f.json", '"\\u2028 \\u0000 \\u007f \\u00a0"', '"\u2028 \\u0000 \x7f \xa0"',
     ['"\u2028 \\u0000 \x7f \xa0"']),
    ("j_2", "f.json", '{"a":{"b":{"c":[{"d":null}]}}}',
     '{\n  "a": {\n    "b": {\n      "c": [\n        {\n          "d": null\n        }\n'
     "      ]\n    }\n  }\n}",
     ['"a": {\n  "b": {\n    "c": [\n      {\n        "d": null\n      }\n    ]\n  }\n}']),
    ("j_3", "f.json", '[{"k":"v"}, [], {}, "x"]',
     '[\n  {\n    "k": "v"\n  },\n  [],\n  {},\n  "x"\n]',
     ['{\n  "k": "v"\n}', "[]", "{}", '"x"']),
    ("j_4", "f.json", "\n\n[1]\n\n", "[\n  1\n]", ["1"]),
    ("j_5", "f.json", "[1] [2]", "[1] [2]", ["[1] [2]"]),
    ("j_6", "f.json", '{"a":1}garbage', '{"a":1}garbage', ['{"a":1}garbage']),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "degraded"), [("[NaN]", True), ("[1] [2]", True), ("42", False)]
)
def test_unparsable_input_is_flagged_degraded(source: str, degraded: bool) -> None:
    assert extract("d.json", source.encode()).degraded is degraded


# Golden cases where we deliberately differ (docs/compat.md (`json`) says why):
# (name, path, input, our text, our chunks).
DIVERGED: list[Case] = [
    ("json_object_key_order", "d.json", '{"b":2,"a":1,"c":{"z":1,"y":[1,2]}}',
     '{\n  "b": 2,\n  "a": 1,\n  "c": {\n    "z": 1,\n    "y": [\n      1,\n      2\n    ]\n  }\n}',
     ['"b": 2', '"a": 1', '"c": {\n  "z": 1,\n  "y": [\n    1,\n    2\n  ]\n}']),
    ("json_object_nested_pretty", "d.json",
     '{"user":{"name":"x","tags":["a","b"],"empty":[],"eo":{}}}',
     '{\n  "user": {\n    "name": "x",\n    "tags": [\n      "a",\n      "b"\n    ],\n'
     '    "empty": [],\n    "eo": {}\n  }\n}',
     ['"user": {\n  "name": "x",\n  "tags": [\n    "a",\n    "b"\n  ],\n  "empty": [],\n'
      '  "eo": {}\n}']),
    ("json_key_with_quote", "d.json", '{"a\\"b":1, "ü":2, "B":3, "a":4}',
     '{\n  "a\\"b": 1,\n  "ü": 2,\n  "B": 3,\n  "a": 4\n}',
     ['"a\\"b": 1', '"ü": 2', '"B": 3', '"a": 4']),
    ("json_obj_in_obj_keys_sorting_unicode", "d.json",
     '{"é":1,"z":2,"Z":3,"_":4,"10":5,"9":6}',
     '{\n  "é": 1,\n  "z": 2,\n  "Z": 3,\n  "_": 4,\n  "10": 5,\n  "9": 6\n}',
     ['"é": 1', '"z": 2', '"Z": 3', '"_": 4', '"10": 5', '"9": 6']),
    ("json_jsonl_two_lines", "d.json", '{"a":1}\n{"b":2}\n', '{\n  "a": 1\n}\n{\n  "b": 2\n}',
     ['{\n  "a": 1\n}', '{\n  "b": 2\n}']),
    ("jsonl_ext_two_lines", "d.jsonl", '{"a":1}\n{"b":2}', '{\n  "a": 1\n}\n{\n  "b": 2\n}',
     ['{\n  "a": 1\n}', '{\n  "b": 2\n}']),
    ("ndjson_ext_array", "d.ndjson", '[{"a":1}]', '[\n  {\n    "a": 1\n  }\n]',
     ['[\n  {\n    "a": 1\n  }\n]']),
    ("json_bom", "d.json", '\ufeff{"a":1}', '{\n  "a": 1\n}', ['"a": 1']),
    ("json_floats", "d.json", "[1.0, 1e20, 1.5e-7, 0.1, -0.0, 1e16, 1e15, 123.456e5, 1E400]",
     "[\n  1.0,\n  1e+20,\n  1.5e-7,\n  0.1,\n  -0.0,\n  1e+16,\n  1000000000000000.0,\n"
     "  12345600.0,\n  1E400\n]",
     ["1.0", "1e+20", "1.5e-7", "0.1", "-0.0", "1e+16", "1000000000000000.0", "12345600.0",
      "1E400"]),
    ("json_big_ints", "d.json",
     "[12345678901234567890, 123456789012345678901234, -9223372036854775808, "
     "18446744073709551616]",
     "[\n  12345678901234567890,\n  123456789012345678901234,\n  -9223372036854775808,\n"
     "  18446744073709551616\n]",
     ["12345678901234567890", "123456789012345678901234", "-9223372036854775808",
      "18446744073709551616"]),
    ("float_0", "f.json",
     "[1.0, 1e20, 1.5e-7, 0.1, -0.0, 1e16, 1e15, 123.456e5, 0.000001, 0.00001, 1e-5, 100.0, "
     "1.7976931348623157e308, 5e-324, 3.0e0, 1e21, 1e22,12345678.9]",
     "[\n  1.0,\n  1e+20,\n  1.5e-7,\n  0.1,\n  -0.0,\n  1e+16,\n  1000000000000000.0,\n"
     "  12345600.0,\n  1e-6,\n  0.00001,\n  0.00001,\n  100.0,\n  1.7976931348623157e+308,\n"
     "  5e-324,\n  3.0,\n  1e+21,\n  1e+22,\n  12345678.9\n]",
     ["1.0", "1e+20", "1.5e-7", "0.1", "-0.0", "1e+16", "1000000000000000.0", "12345600.0",
      "1e-6", "0.00001", "0.00001", "100.0", "1.7976931348623157e+308", "5e-324", "3.0",
      "1e+21", "1e+22", "12345678.9"]),
    ("float_1", "f.json", "[1E400]", "[\n  1E400\n]", ["1E400"]),
    ("float_2", "f.json", "[-1E400]", "[\n  -1E400\n]", ["-1E400"]),
    ("j_0", "f.json",
     "[-0, 0, 1E2, 1e-5, 0.0001, 0.00012, -9223372036854775809, 9223372036854775808, 1.0e0, "
     "2e-7, 123456789012345680000.0]",
     "[\n  0,\n  0,\n  100.0,\n  0.00001,\n  0.0001,\n  0.00012,\n  -9223372036854775809,\n"
     "  9223372036854775808,\n  1.0,\n  2e-7,\n  1.2345678901234568e+20\n]",
     ["0", "0", "100.0", "0.00001", "0.0001", "0.00012", "-9223372036854775809",
      "9223372036854775808", "1.0", "2e-7", "1.2345678901234568e+20"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "path", "source", "text", "chunks"), AGREED + DIVERGED)
def test_golden_case(name: str, path: str, source: str, text: str, chunks: list[str]) -> None:
    assert outcome(path, source) == (text, chunks)


def test_golden_cases_are_of_kind_json_and_parse_when_they_should() -> None:
    results = [extract(path, source.encode()) for _, path, source, *_ in AGREED + DIVERGED]
    assert {r.kind for r in results} == {"json"}
    assert sum(r.degraded for r in results) == 7


def test_nesting_127_deep_renders_as_the_reference_does() -> None:
    source = "[" * 127 + "]" * 127
    result = json_extractor.chunk(source, OPTIONS)
    assert result.text == nested(127)
    assert [c.text for c in result.chunks] == [nested(126)]


@pytest.mark.parametrize("depth", [128, 129, 254])
def test_nesting_past_serde_limit_still_renders(depth: int) -> None:
    # The reference (serde_json, limit 128) degrades these; they are valid JSON.
    result = json_extractor.chunk("[" * depth + "]" * depth, OPTIONS)
    assert result.degraded is False
    assert result.text == nested(depth)


def test_nesting_past_orjson_render_limit_degrades_to_raw_text() -> None:
    source = "[" * 255 + "]" * 255
    result = extract("d.json", source.encode())
    assert result.degraded is True
    assert [c.text for c in result.chunks] == [source]


@pytest.mark.parametrize(
    "source",
    ['{"a": 1, "deep": ' + "[" * 254 + "]" * 254 + "}", "[1, " + "[" * 254 + "]" * 254 + "]"],
)
def test_a_part_that_renders_alone_but_not_in_its_document_degrades(source: str) -> None:
    # Each part is rendered on its own and the document's text built from the parts;
    # orjson renders 254 levels, so this part renders and the document does not.
    result = extract("d.json", source.encode())
    assert result.degraded is True
    assert [c.text for c in result.chunks] == [source]


def test_document_text_is_the_whole_rendering_built_from_its_parts() -> None:
    source = '{"a": [1, {"b": "x\\ny"}], "c": {}, "d": []}'
    result = extract("d.json", source.encode())
    assert result.text == json.dumps(json.loads(source), indent=2)
    assert [c.text for c in result.chunks] == [
        '"a": [\n  1,\n  {\n    "b": "x\\ny"\n  }\n]',
        '"c": {}',
        '"d": []',
    ]


def test_extract_splits_a_long_element_at_max_chunk_chars() -> None:
    result = extract("d.json", ("[" * 127 + "]" * 127).encode())
    assert len(result.chunks) == 8
    assert all(len(c.text) <= 4000 for c in result.chunks)
    assert "".join(c.text for c in result.chunks).replace("\n", "").replace(" ", "") == (
        "[" * 126 + "]" * 126
    )


def test_depth_bomb_of_a_megabyte_degrades_quickly() -> None:
    source = "[" * 1_000_000
    result = json_extractor.chunk(source, OPTIONS)
    assert result.degraded is True
    assert result.chunks[0].text == source


# The registry's text-to-chunks form, on the reference's five conformance strings.
CHUNKER = list(
    zip(
        REGISTRY_INPUTS,
        [
            [],
            ["single line"],
            ["a\n\n\n\nb"],
            ["para one\n\npara two\n\n\npara three"],
            ["mültibyte ä ö ü 漢字 \n\n end"],
            ["hello world"],
            [],
        ],
        strict=True,
    )
)


@pytest.mark.parametrize(("source", "chunks"), CHUNKER)
def test_chunker_matches_reference_registry_chunker(source: str, chunks: list[str]) -> None:
    assert [c.text for c in json_extractor.chunk(source, OPTIONS).chunks] == chunks


def test_chunk_meta_names_index_key_or_line() -> None:
    assert [c.meta for c in extract("d.json", b"[1, 2]").chunks] == [{"index": 0}, {"index": 1}]
    assert [c.meta for c in extract("d.json", b'{"b": 1, "a": 2}').chunks] == [
        {"key": "b"},
        {"key": "a"},
    ]
    assert [c.meta for c in extract("d.jsonl", b"1\n\n2\n").chunks] == [{"line": 1}, {"line": 3}]
    assert [c.meta for c in extract("d.json", b"7").chunks] == [{}]


def test_jsonl_bad_line_degrades_alone() -> None:
    result = extract("d.jsonl", (FIXTURES / "bad_line_records.jsonl").read_bytes())
    assert result.degraded is True
    assert [(c.text, c.meta) for c in result.chunks] == [
        ('{\n  "id": 1,\n  "name": "Ada"\n}', {"line": 1}),
        ('{"id": 2, "name": "Grace"', {"line": 2}),
        ('{\n  "id": 3,\n  "name": "Linus"\n}', {"line": 4}),
    ]


# Lines 1-3 render in one C-level pass; 4-6 (a bad line, a blank one) fall back
# line by line; 7-9 pass but an exponent in 8 and 9 sends those two through
# `_render_line` (9 is beyond 64 bits: orjson reads it as 1e+20).
BATCHED_RECORDS = b'1\n2\n3\n[4,\n5\n\n6\n"Edge+"\n99999999999999999999\n7\n'
BATCHED_CHUNKS = [
    ("1", {"line": 1}), ("2", {"line": 2}), ("3", {"line": 3}), ("[4,", {"line": 4}),
    ("5", {"line": 5}), ("6", {"line": 7}), ('"Edge+"', {"line": 8}),
    ("99999999999999999999", {"line": 9}), ("7", {"line": 10}),
]  # fmt: skip


def test_jsonl_batches_and_their_line_by_line_fallback_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonl, "_BATCH", 3)
    result = extract("d.jsonl", BATCHED_RECORDS)
    assert [(c.text, c.meta) for c in result.chunks] == BATCHED_CHUNKS
    assert result.text == "\n".join(text for text, _ in BATCHED_CHUNKS)
    assert result.degraded is True
    fixed = extract("d.json", BATCHED_RECORDS.replace(b"[4,", b"[4]"))
    assert [(c.text, c.meta) for c in fixed.chunks] == [
        ("[\n  4\n]", {"line": 4}) if meta == {"line": 4} else (text, meta)
        for text, meta in BATCHED_CHUNKS
    ]
    assert fixed.degraded is False
    # A `.json` file of records stops at its first bad line, in a fallen-back batch.
    assert [c.text for c in extract("d.json", BATCHED_RECORDS).chunks] == [
        BATCHED_RECORDS.decode().strip()
    ]


def test_jsonl_of_many_records_renders_each_as_parse_does() -> None:
    lines = [f'{{"id": {i}, "tags": ["a", "Edge+"], "big": {10**20 + i}}}' for i in range(700)]
    lines[400] = '{"id": 400'
    result = extract("d.jsonl", "\n".join(lines).encode())
    expected = [line if i == 400 else json_extractor.parse(line)[1] for i, line in enumerate(lines)]
    assert [c.text for c in result.chunks] == expected
    assert [c.meta["line"] for c in result.chunks] == list(range(1, 701))


def test_jsonl_whose_first_line_is_bad_keeps_the_rest() -> None:
    result = extract("d.ndjson", b'{"a": \n{"b": 2}\n{"c": 3}\n')
    assert [c.text for c in result.chunks] == ['{"a":', '{\n  "b": 2\n}', '{\n  "c": 3\n}']
    assert result.degraded is True


def test_jsonl_holding_one_pretty_printed_document_reads_it_whole() -> None:
    result = extract("d.jsonl", b'[\n  "x",\n  "y"\n]\n')
    assert [(c.text, c.meta) for c in result.chunks] == [
        ('"x"', {"index": 0}),
        ('"y"', {"index": 1}),
    ]
    assert result.degraded is False


def test_json_file_of_records_with_a_bad_line_degrades_whole() -> None:
    result = extract("d.json", b'{"a": 1}\n{"b": \n')
    assert [c.text for c in result.chunks] == ['{"a": 1}\n{"b":']
    assert result.degraded is True


def test_exact_numbers_fixture_keeps_every_literal() -> None:
    result = extract("d.json", (FIXTURES / "ok_exact_numbers.json").read_bytes())
    assert [(c.text, c.meta) for c in result.chunks] == [
        ('"id": 123456789012345678901234567890', {"key": "id"}),
        ('"tiny": 0.0', {"key": "tiny"}),
        ('"huge": 2.5e999', {"key": "huge"}),
        ('"ids": [\n  18446744073709551615,\n  18446744073709551616,\n  -9223372036854775809\n]',
         {"key": "ids"}),
        ('"name": "Ünïcode ✓"', {"key": "name"}),
    ]  # fmt: skip


def test_parse_keeps_numbers_exact_and_rejects_non_json() -> None:
    assert json_extractor.parse("[-9223372036854775808, 1.5]") == (
        [-9223372036854775808, 1.5],
        "[\n  -9223372036854775808,\n  1.5\n]",
    )
    assert json_extractor.parse("[1e16, 99999999999999999999]")[1] == (
        "[\n  1e+16,\n  99999999999999999999\n]"
    )
    with pytest.raises(ValueError):
        json_extractor.parse("[Infinity]")
    with pytest.raises(ValueError):
        json_extractor.parse('["\\ud800", 123456789012345678901234]')


@pytest.mark.parametrize(
    "line",
    ['{"a": [1, 2.5, "x"]}', "123456789012345678901234", "[1E400]", "[1e16]", '"e+"',
     '["\\ud800"]', '["\\ud800", 123456789012345678901234]', "[NaN]", "[1,]", "{", "  7  ",
     "[" * 300 + "]" * 300, "[" * 2000 + "]" * 2000, '"\u2028 é"'],
)  # fmt: skip
def test_jsonl_line_fast_path_renders_as_parse_does(line: str) -> None:
    try:
        expected: str | None = json_extractor.parse(line)[1]
    except ValueError:
        expected = None
    assert jsonl.render_line(line) == expected


@pytest.mark.parametrize(
    "data",
    [b'{"a": "\xc3\xa9", "n": 1}', b'\xef\xbb\xbf[1,\r\n "\xc3\xa9"]\r\n', b'["caf\xe9"]',
     b"[123456789012345678901234]", b'["\\ud800"]', b"[1,]", "[\"é\"]".encode("utf-16"),
     '["37\ufffd36\'"]'.encode()],
)  # fmt: skip
def test_document_read_from_bytes_is_the_document_read_from_text(data: bytes) -> None:
    text = decode(data)
    try:
        expected: str | None = json_extractor.parse(text)[1]
    except ValueError:
        expected = None
    try:
        got: str | None = json_extractor.parse(text, data)[1]
    except ValueError:
        got = None
    assert got == expected
    assert extract("d.json", data) == json_extractor.chunk(text, OPTIONS)


def records(n: int, separators: tuple[str, str] = (",", ":")) -> str:
    """An array of `n` objects whose strings and nested lists hold `},{"id"`, as cuts do."""
    items = [
        {"id": i, "s": '},{"id":1 ]', "kids": [{"id": i}, {"id": -i}] if i % 3 else []}
        for i in range(n)
    ]
    return json.dumps(items, ensure_ascii=False, separators=separators)


@pytest.mark.parametrize(
    "source",
    [records(40), records(40, (", ", ": ")) + "\n", records(1), '[{"a\\"b": 1},{"a\\"b": [2]}]',
     '[{"é": "\\ud83d\\ude00"},{"é": 1e+300},{"é": 123456789012345678}]', "[{}]",
     records(40)[:-1] + "," + "[" * 253 + "]" * 253 + "]"],
)  # fmt: skip
def test_array_read_a_group_at_a_time_is_the_array_read_whole(
    monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    monkeypatch.setattr(groups, "_GROUP_BYTES", 16)  # a group every few elements
    data = source.encode()
    assert elements.array_in_groups(data) is not None
    assert json_extractor.extract(data, "d.json", OPTIONS) == json_extractor.chunk(source, OPTIONS)


@pytest.mark.parametrize(
    ("tail", "degraded"),
    [('"\\ud800"', True), ("[" * 254 + "]" * 254, True), ('{"n": 123456789012345678901234}', False),
     ('{"n": NaN}', True), ('{"n": 1', True)],
)  # fmt: skip
def test_array_whose_late_group_does_not_read_alike_is_read_whole(
    monkeypatch: pytest.MonkeyPatch, tail: str, degraded: bool
) -> None:
    # The last group fails to parse or render, or holds a number to read exactly.
    monkeypatch.setattr(groups, "_GROUP_BYTES", 16)
    source = records(40)[:-1] + "," + tail + "]"
    data = source.encode()
    assert elements.array_in_groups(data) is None
    result = json_extractor.extract(data, "d.json", OPTIONS)
    assert result == json_extractor.chunk(source, OPTIONS)
    assert result.degraded is degraded


def test_long_digit_run_inside_a_string_is_left_alone() -> None:
    result = extract("d.json", b'{"n": "123456789012345678901234", "v": 1}')
    assert [c.text for c in result.chunks] == ['"n": "123456789012345678901234"', '"v": 1']


def test_lone_surrogate_beside_a_big_number_degrades() -> None:
    source = '["\\ud800", 123456789012345678901234]'
    result = extract("d.json", source.encode())
    assert result.degraded is True
    assert [c.text for c in result.chunks] == [source]


# --- the real corpus ------------------------------------------------------------------------


@pytest.mark.slow
def test_every_corpus_json_file_keeps_the_invariants(corpus: Path) -> None:
    files = manifest_paths(corpus, "json", "ndjson")
    assert len(files) == 432
    degraded = [relpath for relpath in files if assert_invariants(corpus, relpath, "json")]
    assert len(degraded) == 231  # 217 malformed, 14 i_ (lone surrogates, 500-deep arrays)


@pytest.mark.slow
def test_jsontestsuite_verdicts_match_degraded_flag(corpus: Path) -> None:
    checked = 0
    for relpath in manifest_paths(corpus, "json"):
        name = relpath.rsplit("/", 1)[-1]
        if not relpath.startswith("jsontestsuite/test_parsing/") or name[:2] not in ("y_", "n_"):
            continue
        result = extract(relpath, (corpus / relpath).read_bytes())
        if result.chunks:  # n_ files of only whitespace (or a BOM) have nothing to flag
            assert result.degraded is name.startswith("n_"), relpath
            checked += 1
    assert checked == 280  # 95 y_ and 188 n_ files, less 3 n_ files that are blank


SPOT_CHECKS: list[tuple[str, bool, list[tuple[str, dict[str, Any]]]]] = [
    ("jsontestsuite/test_parsing/y_object_duplicated_key.json", False,
     [('"a": "c"', {"key": "a"})]),
    ("jsontestsuite/test_parsing/y_array_heterogeneous.json", False,
     [("null", {"index": 0}), ("1", {"index": 1}), ('"1"', {"index": 2}), ("{}", {"index": 3})]),
    ("jsontestsuite/test_parsing/y_number_real_capital_e_pos_exp.json", False,
     [("100.0", {"index": 0})]),
    ("jsontestsuite/test_parsing/i_number_too_big_neg_int.json", False,
     [("-123123123123123123123123123123", {"index": 0})]),
    ("jsontestsuite/test_parsing/i_structure_UTF-8_BOM_empty_object.json", False, [("{}", {})]),
    ("jsontestsuite/test_parsing/n_structure_unclosed_array.json", True, [("[1", {})]),
    ("jsontestsuite/test_transform/number_1.000000000000000005.json", False,
     [("1.0", {"index": 0})]),
    ("csv-csvkit/testjson_multiline.ndjson", False,
     [('{\n  "a": 2,\n  "b": 3\n}', {"line": 1}), ('{\n  "b": 2,\n  "d": 4\n}', {"line": 2})]),
]  # fmt: skip


@pytest.mark.parametrize(("relpath", "degraded", "chunks"), SPOT_CHECKS)
def test_corpus_spot_check(
    corpus: Path, relpath: str, degraded: bool, chunks: list[tuple[str, dict[str, Any]]]
) -> None:
    result = extract(relpath, (corpus / relpath).read_bytes())
    assert result.degraded is degraded
    assert [(c.text, c.meta) for c in result.chunks] == chunks


def test_ndjson_corpus_file_gives_one_chunk_per_record(corpus: Path) -> None:
    data = (corpus / "jsonl-simdjson" / "amazon_cellphones.ndjson").read_bytes()
    lines = [n for n, line in enumerate(data.decode().split("\n"), 1) if line.strip()]
    result = json_extractor.extract(data, "amazon_cellphones.ndjson", OPTIONS)
    assert result.degraded is False
    assert [c.meta for c in result.chunks] == [{"line": n} for n in lines]
    assert json.loads(result.chunks[0].text) == json.loads(data.decode().split("\n")[0])


def test_twitter_json_chunks_per_top_level_key(corpus: Path) -> None:
    data = (corpus / "json-nativejson-benchmark" / "twitter.json").read_bytes()
    result = json_extractor.extract(data, "twitter.json", OPTIONS)
    assert [c.meta for c in result.chunks] == [{"key": "statuses"}, {"key": "search_metadata"}]
    assert json.loads(result.text) == json.loads(data)


# --- cross-check against the reference file itself, when it is there --------------------------


@pytest.mark.skipif(not GOLDEN.is_file(), reason="../shared/reference is absent")
def test_case_lists_cover_every_golden_json_case_and_agree_with_it() -> None:
    deep = {"json_deep_127", "json_deep_128", "json_deep_129"}  # tested on their own above
    assert {row[0] for row in AGREED + DIVERGED} | deep == set(golden("json"))
    assert_lists_match_golden("json", AGREED, DIVERGED)
    assert golden_registry_chunks("json") == CHUNKER
