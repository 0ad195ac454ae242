"""The checks behind `Config`'s keys: each returns the value (normalised) or raises
`ConfigError` naming the key, the bad value and what is allowed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from indexer._globs import compile_globs
from indexer._types import Options
from indexer.errors import ConfigError
from indexer.procpool.cpus import usable_cpus

__all__ = [
    "Check",
    "boolean",
    "choice",
    "globs",
    "integer",
    "matching",
    "option",
    "path_or_none",
    "scheduler_address",
    "seconds",
]

Check = Callable[[str, Any], Any]
"""A check: `(key, value) -> value`, raising `ConfigError`."""


def integer(minimum: int, *, auto: bool = False) -> Check:
    allowed = f"an integer >= {minimum}" + (' or "auto" (usable CPUs)' if auto else "")

    def check(key: str, value: Any) -> int:
        if auto and value == "auto":
            return usable_cpus()
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {allowed}")
        return value

    return check


def matching(pattern: str, what: str) -> Check:
    """A check that the value is a string matching `pattern` whole."""
    whole = re.compile(pattern)

    def check(key: str, value: Any) -> str:
        if not isinstance(value, str) or not whole.fullmatch(value):
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {what}")
        return value

    return check


def seconds(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected seconds > 0")
    return float(value)


def words_per_shingle(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 8:
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected 1 to 8 words")
    return value


def fraction(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a number in (0, 1]")
    return float(value)


def boolean(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected true or false")
    return value


def choice(*allowed: str | None) -> Check:
    names = " or ".join(repr(a) for a in allowed if a is not None)

    def check(key: str, value: Any) -> Any:
        if value not in allowed or isinstance(value, bool):
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {names}")
        return value

    return check


def scheduler_address(key: str, value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a scheduler address")
    return value


def env_name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a variable's name")
    return value


def globs(key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a list of globs")
    for pattern in value:
        if not isinstance(pattern, str):
            raise ConfigError(key, f"{key}: {pattern!r} is not allowed: globs are strings")
    try:
        compile_globs(tuple(value))
    except ValueError as exc:
        raise ConfigError(key, f"{key}: {exc}") from exc
    return tuple(value)


def option(kind: type[int] | type[str] | type[float]) -> Check:
    """Check an extraction option against `Options`' own rules, the single source of them."""
    expected = {int: "an integer", str: "a string", float: "a number"}[kind]
    kinds = (int, float) if kind is float else (kind,)

    def check(key: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {expected}")
        if kind is float:
            value = float(value)
        try:
            kwargs: dict[str, Any] = {key: value}
            Options(**kwargs)
        except ValueError as exc:
            raise ConfigError(key, f"{key} = {value!r} is not allowed: {exc}") from exc
        return value

    return check


def languages(key: str, value: Any) -> str:
    """Check OCR languages, a list (`["eng", "deu"]`) or `+`-joined; return them `+`-joined."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = "+".join(value)
    return str(option(str)(key, value))


def path_or_none(key: str, value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a file path")
    return value
