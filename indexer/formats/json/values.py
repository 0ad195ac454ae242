"""JSON values read with their numbers exact, and pretty-printed by orjson.

Numbers a double or a 64-bit integer cannot hold exactly (`123456789012345678901234`,
`1E400`) keep their source literal, as an `orjson.Fragment`, instead of being rounded
or rejected.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any

import orjson

# Any integer orjson rounds has 19+ digits; with every digit mapped to 0 a
# substring search finds such a run at C speed.
DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
NINETEEN_DIGITS = b"0" * 19
_INT_MIN, _UINT_MAX = -(2**63), 2**64 - 1
_REPLACEMENT_CHARACTER = "\ufffd".encode()
INDENT = orjson.OPT_INDENT_2


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
    if has_exponent(rendered) and NINETEEN_DIGITS in _zero_digits(text):
        value = parse_exact(text)
        rendered = render(value)
    return value, rendered


def _loads(text: str, data: bytes | None) -> Any:
    if data is not None and bytes_read_as_text(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "number" not in str(exc):  # e.g. "number is infinity when parsed as double"
            raise
        return parse_exact(text)


def bytes_read_as_text(data: bytes) -> bool:
    """True when orjson may read `data` in place of its text: it reads the same.

    Bytes orjson accepts are UTF-8 with no NUL and no BOM, which `decode` reads
    as UTF-8 (unless they hold U+FFFD, which it counts as errors), changing at
    most CR line ends: whitespace between tokens.
    """
    # A one-byte search runs at memchr speed, a three-byte one much slower: test it first.
    return b"\xef" not in data or _REPLACEMENT_CHARACTER not in data


def has_exponent(rendered: str) -> bool:
    """True when `rendered` may hold a number orjson rounded (`1.8446744073709552e+19`)."""
    # `+` is rare and found at memchr speed; `e+` alone is a much slower search.
    return "+" in rendered and "e+" in rendered


def _zero_digits(text: str) -> bytes:
    return text.encode(errors="replace").translate(DIGITS_TO_ZERO)


def render(value: Any) -> str:
    """Return `value` pretty-printed with a 2-space indent.

    Raises `ValueError` when orjson cannot render it (nesting over 254 levels, a
    string holding a lone surrogate).
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError as exc:
        raise ValueError(str(exc)) from exc


def render_each(values: Iterable[Any]) -> Iterator[str]:
    """`render` of each of `values`, lazily; parts of a value that rendered cannot fail.

    Chained `map`s keep the loop in C, where a comprehension runs it in Python.
    """
    return map(bytes.decode, map(orjson.dumps, values, repeat(None), repeat(INDENT)))


def parse_exact(text: str) -> Any:
    """The JSON value of `text`, read by the stdlib parser; raises `ValueError`."""
    # It hands us each number's literal, so the ones orjson would round or reject
    # can be kept verbatim as a Fragment.
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
