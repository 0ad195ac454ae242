"""`json`: one chunk per top-level array element or object entry, or per JSONL record.

Values are pretty-printed by orjson with a 2-space indent, keys in source order
and non-ASCII kept as is. Numbers a double or a 64-bit integer cannot hold
exactly (`123456789012345678901234`, `1E400`) keep their source literal instead
of being rounded or rejected. Input that is not JSON degrades to one chunk of
the trimmed text; a bad JSONL record degrades on its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any, NamedTuple, cast

import orjson

from indexer._spec import extension_of
from indexer._text import decode, gc_paused, normalize_newlines
from indexer._types import Chunk, Extracted, Options, make_chunks
from indexer.formats import VERSIONS

VERSION = VERSIONS["json"]  # bumped in indexer/formats/__init__.py

_RECORD_EXTENSIONS = frozenset({"jsonl", "ndjson"})
# Any integer orjson rounds has 19+ digits; with every digit mapped to 0 a
# substring search finds such a run at C speed.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19
_INT_MIN, _UINT_MAX = -(2**63), 2**64 - 1
_REPLACEMENT_CHARACTER = "\ufffd".encode()
_INDENT = orjson.OPT_INDENT_2
_BATCH = 256
"""JSONL lines rendered per C-level pass; a bad line costs its batch a second, slower pass."""
_END = object()
"""Marks the end of a list being drained by `_drain`."""
_GROUP_BYTES = 1 << 16
"""Bytes of source per group of elements in `_array_in_groups` (any size from 16 KiB to
128 KiB runs alike)."""
_GROUP_TRIES = 4
"""Cuts tried for a group before the document is left to `parse`."""


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Decode `data` and chunk it; `.jsonl`/`.ndjson` paths are read record by record.

    Returns an `Extracted` of kind `json`, `degraded` when some or all of the
    input did not parse. Never raises for any input.
    """
    with gc_paused():
        if extension_of(path) in _RECORD_EXTENSIONS:
            return _records_or_document(decode(data))
        grouped = _array_in_groups(data)
        if grouped is not None:
            return grouped
        return _document_or_records(decode(data), data)


def chunk(text: str, options: Options) -> Extracted:
    """Chunk already-decoded JSON text: a document, else newline-delimited records.

    Returns the document's chunks (meta `{"index": i}` or `{"key": k}`), or, when
    the whole does not parse but it has 2+ non-blank lines that each do, one
    chunk per record (meta `{"line": n}`); otherwise one degraded text chunk.
    """
    text = normalize_newlines(text)
    with gc_paused():
        return _document_or_records(text)


def _document_or_records(text: str, data: bytes | None = None) -> Extracted:
    try:
        return _document(*parse(text, data))
    except ValueError:
        pass
    records = _parse_lines(text, stop_at_bad=True)
    if len(records.rendered) >= 2 and records.rendered[-1] is not None:  # no bad line
        return _records(records)
    return _degraded(text)


def parse(text: str, data: bytes | None = None) -> tuple[Any, str]:
    """Return the JSON value of `text`, numbers exact, and its pretty rendering.

    `data`, the bytes `text` was decoded from, is read instead when orjson takes
    them, saving the UTF-8 encoding of `text`. Raises `ValueError` when `text`
    is not one JSON value (syntax, NaN, a lone surrogate, nesting deeper than
    orjson's limit of 1024) or when the value cannot be rendered (see `render`).
    """
    value = _loads(text, data)
    rendered = render(value)
    # orjson reads an integer outside [-2**63, 2**64) as a double, which renders
    # as `1.8446744073709552e+19`; only then is the source searched for one.
    if _has_exponent(rendered) and _NINETEEN_DIGITS in _zero_digits(text):
        value = _parse_exact(text)
        rendered = render(value)
    return value, rendered


def _loads(text: str, data: bytes | None) -> Any:
    if data is not None and _bytes_read_as_text(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "number" not in str(exc):  # e.g. "number is infinity when parsed as double"
            raise
        return _parse_exact(text)


def _bytes_read_as_text(data: bytes) -> bool:
    """True when orjson may read `data` in place of its text: it reads the same.

    Bytes orjson accepts are UTF-8 with no NUL and no BOM, which `decode` reads
    as UTF-8 (unless they hold U+FFFD, which it counts as errors), changing at
    most CR line ends: whitespace between tokens.
    """
    # A one-byte search runs at memchr speed, a three-byte one much slower: test it first.
    return b"\xef" not in data or _REPLACEMENT_CHARACTER not in data


def _has_exponent(rendered: str) -> bool:
    # `+` is rare and found at memchr speed; `e+` alone is a much slower search.
    return "+" in rendered and "e+" in rendered


def _zero_digits(text: str) -> bytes:
    return text.encode(errors="replace").translate(_DIGITS_TO_ZERO)


def render(value: Any) -> str:
    """Return `value` pretty-printed with a 2-space indent.

    Raises `ValueError` when orjson cannot render it (nesting over 254 levels, a
    string holding a lone surrogate).
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError as exc:
        raise ValueError(str(exc)) from exc


def _parse_exact(text: str) -> Any:
    # The stdlib parser hands us each number's literal, so the ones orjson
    # would round or reject can be kept verbatim as a Fragment.
    try:
        return json.loads(
            text, parse_int=_exact_int, parse_float=_exact_float, parse_constant=_reject
        )
    except RecursionError as exc:
        raise ValueError("nesting too deep") from exc


def _exact_int(literal: str) -> int | orjson.Fragment:
    if len(literal) <= 20:
        value = int(literal)
        if _INT_MIN <= value <= _UINT_MAX:
            return value
    return orjson.Fragment(literal)


def _exact_float(literal: str) -> float | orjson.Fragment:
    value = float(literal)
    return value if math.isfinite(value) else orjson.Fragment(literal)


def _reject(literal: str) -> None:
    raise ValueError(f"{literal} is not JSON")


def _array_in_groups(data: bytes) -> Extracted | None:
    """`_document(*parse(text, data))` for an array of objects, read a group at a time.

    Each group of elements is parsed, rendered and freed before the next, so the
    document is never whole in memory as Python objects (several times its size,
    whose fresh pages cost more CPU time than parsing them). When `[`
    + each group + `]` parses, the document is the array of all their elements,
    at the same depth, so it renders as the groups' renderings joined. Returns
    None, for `parse` to decide, when `data` is not `[{...`, a group does not
    parse or render, or a number may need reading exactly.
    """
    if data[:2] != b"[{":
        return None
    end = len(data.rstrip()) - 1  # the closing `]`
    if data[end : end + 1] != b"]" or not _bytes_read_as_text(data):
        return None
    separator = _separator(data)
    bodies: list[str] = []
    chunks: list[Chunk] = []
    stop = 0
    while stop < end:
        group = _next_group(data, stop + 1, end, separator)
        if group is None:
            return None
        values, stop = group
        rendered = _render_group(values, len(chunks))
        if rendered is None:
            return None
        bodies.append(rendered[0])
        chunks += rendered[1]
    bodies[0] = "[\n  " + bodies[0]
    bodies[-1] += "\n]"
    text = ",\n  ".join(bodies)
    if _has_exponent(text) and _NINETEEN_DIGITS in data.translate(_DIGITS_TO_ZERO):
        return None  # as in `parse`; `data` reads as `text` does
    return Extracted(kind="json", text=text, chunks=tuple(chunks))


def _render_group(values: list[Any], first: int) -> tuple[str, tuple[Chunk, ...]] | None:
    """The rendering of a group within its `[\n  ` and `\n]`, and its elements' chunks
    (indexes from `first`, `values` consumed); None when it does not render."""
    try:
        rendered = orjson.dumps(values, None, _INDENT)
    except orjson.JSONEncodeError:
        return None
    body = str(memoryview(rendered)[4:-2], "utf-8")
    n = len(values)
    metas = map(dict.fromkeys, repeat(("index",)), range(first, first + n))
    return body, make_chunks(_render_each(_drain(values)), metas, n)


def _separator(data: bytes) -> bytes:
    """What likely stands between two elements of the array `[{"key"...`: `},{"key"`.

    With the first key, fewer of its matches are between objects nested deeper;
    `}, {` is how Python's `json.dumps` separates them.
    """
    quote = data.find(b'"', 3, 67)
    key = data[2 : quote + 1] if quote > 0 else b""
    compact = b"},{" + key
    spaced = b"}, {" + key
    if data.find(compact, 0, 2 * _GROUP_BYTES) < 0 and spaced in data:
        return spaced
    return compact


def _next_group(data: bytes, start: int, end: int, separator: bytes) -> tuple[Any, int] | None:
    """The elements in `data[start:stop]` and `stop`, at least `_GROUP_BYTES` on; None if none.

    `stop` is where `separator` is, or `end`. A group cut in a string or nested
    array does not parse; it is tried again up to a later cut (`_balanced_cut`).
    """
    stop = _cut(data, start + _GROUP_BYTES, end, separator)
    for _ in range(_GROUP_TRIES):
        try:
            return _loads_group(data, start, stop), stop
        except orjson.JSONDecodeError:
            if stop == end:
                return None
        stop = _balanced_cut(data, start, stop, end, separator)
    return None


def _balanced_cut(data: bytes, start: int, stop: int, end: int, separator: bytes) -> int:
    """The first cut after `stop` with as many `]` as `[` since `start` (cuts in a nested
    array have more `[`; brackets in strings can mislead it), else `end`."""
    depth = data.count(b"[", start, stop) - data.count(b"]", start, stop)
    while stop < end:
        cut = _cut(data, stop, end, separator)
        depth += data.count(b"[", stop, cut) - data.count(b"]", stop, cut)
        stop = cut
        if not depth:
            break
    return stop


def _cut(data: bytes, start: int, end: int, separator: bytes) -> int:
    """Just after the `}` of the first `separator` in `data[start:end]`, else `end`."""
    at = data.find(separator, start, end)
    return end if at < 0 else at + 1


def _loads_group(data: bytes, start: int, stop: int) -> Any:
    return orjson.loads(b"".join((b"[", memoryview(data)[start:stop], b"]")))


def _document(value: Any, text: str) -> Extracted:
    """Chunk a parsed document rendered as `text`; raises `ValueError` if a part cannot be.

    `value` is consumed: each part leaves it as it is rendered (see `_drain`).
    """
    if isinstance(value, list) and value:
        n = len(value)  # before `_drain` adds its end marker
        metas = map(dict.fromkeys, repeat(("index",)), range(n))
        chunks = make_chunks(_render_each(_drain(value)), metas, n)
    elif isinstance(value, dict) and value:
        keys = list(value)
        entries = map("{}: {}".format, _render_each(keys), _render_each(map(value.pop, keys)))
        chunks = make_chunks(entries, map(dict.fromkeys, repeat(("key",)), keys), len(keys))
    else:
        chunks = (Chunk(text=text),)
    return Extracted(kind="json", text=text, chunks=chunks)


def _drain(values: list[Any]) -> Iterator[Any]:
    """Yield `values` in order, each leaving the list as it is yielded.

    A part is then freed once rendered, and its memory holds the parts' texts and
    chunks: otherwise these take fresh pages, each a page fault.
    """
    values.append(_END)
    values.reverse()
    return iter(values.pop, _END)


def _render_each(values: Iterable[Any]) -> Iterator[str]:
    """`render` of each of `values`, lazily; parts of a value that rendered cannot fail.

    Chained `map`s keep the loop in C, where a comprehension runs it in Python.
    """
    return map(bytes.decode, map(orjson.dumps, values, repeat(None), repeat(_INDENT)))


def _render_parts(values: Iterable[Any]) -> list[str]:
    """`render` of each of `values`, as a list."""
    return list(_render_each(values))


class _Lines(NamedTuple):
    """The non-blank lines of JSONL text, in parallel lists."""

    numbers: list[int]
    """Each line's number, counting from 1."""
    lines: list[str]
    rendered: list[str | None]
    """Each line's `_render_line`: None for a bad line."""


def _parse_lines(text: str, *, stop_at_bad: bool) -> _Lines:
    """Return the non-blank lines of `text`, rendered; with `stop_at_bad`, up to the first bad one.

    Lines are rendered a batch at a time by `_render_batch`, one by one in a
    batch it refuses.
    """
    lines = text.split("\n")
    while lines and not lines[-1]:  # a final newline: no record, and no batch spoiled
        lines.pop()
    out = _Lines([], [], [])
    for start in range(0, len(lines), _BATCH):
        batch = lines[start : start + _BATCH]
        rendered = _render_batch(batch)
        if rendered is not None:
            out.numbers.extend(range(start + 1, start + 1 + len(batch)))
            out.lines.extend(batch)
            out.rendered.extend(rendered)
            continue
        for number, line in enumerate(batch, start=start + 1):
            if not line or line.isspace():
                continue
            one = _render_line(line)
            out.numbers.append(number)
            out.lines.append(line)
            out.rendered.append(one)
            if one is None and stop_at_bad:
                return out
    return out


def _render_batch(lines: list[str]) -> list[str] | None:
    """`_render_line` of each of `lines` when all are plain records, else None.

    None when a line is blank or does not parse or render: `_render_line` then
    decides, line by line, meeting any exception again at the same line.
    """
    try:
        rendered = _render_parts(map(orjson.loads, lines))
    except Exception:  # whatever it is, `_render_line` meets it again in order
        return None
    if _has_exponent("".join(rendered)):  # numbers may need reading exactly
        for i, text in enumerate(rendered):
            if "e+" in text:  # what `_render_line` does with such a rendering
                try:
                    rendered[i] = parse(lines[i])[1]
                except ValueError:
                    return None
    return rendered


def _render_line(line: str) -> str | None:
    """`parse(line)`'s rendering, None when it raises; inlined for the common case."""
    try:
        rendered = orjson.dumps(orjson.loads(line), None, orjson.OPT_INDENT_2).decode()
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        rendered = "e+"  # not rendered: let `parse` say why, or read numbers exactly
    if "e+" not in rendered:
        return rendered
    try:
        return parse(line)[1]
    except ValueError:
        return None


def _records_or_document(text: str) -> Extracted:
    """Chunk `.jsonl` text per line, unless it is one (pretty-printed) document."""
    records = _parse_lines(text, stop_at_bad=False)
    if None not in records.rendered:
        return _records(records)
    try:
        return _document(*parse(text))
    except ValueError:
        pass
    if records.rendered.count(None) < len(records.rendered):
        return _records(records)
    return _degraded(text)


def _records(records: _Lines) -> Extracted:
    """One chunk per line: its rendering, or the stripped line when it is bad."""
    degraded = None in records.rendered
    if degraded:
        texts = [
            line.strip() if text is None else text
            for line, text in zip(records.lines, records.rendered, strict=True)
        ]
    else:
        texts = cast(list[str], records.rendered)
    metas = map(dict.fromkeys, repeat(("line",)), records.numbers)
    chunks = make_chunks(texts, metas, len(texts))
    return Extracted(kind="json", text="\n".join(texts), chunks=chunks, degraded=degraded)


def _degraded(text: str) -> Extracted:
    trimmed = text.strip()
    chunks = (Chunk(text=trimmed),) if trimmed else ()
    return Extracted(kind="json", text=trimmed, chunks=chunks, degraded=bool(trimmed))
