"""Run configuration: every option of `indexer run`, its default and its checks.

`load_config(path, overrides)` reads a TOML file (`configs/default.toml`
documents every key), lays the command line's `overrides` on top and returns a
frozen `Config`. Keys live in TOML tables (`[run]`, `[pdf]`, `[walk]`,
`[extract]`, `[output]`) but are flat attributes of `Config`. Anything wrong (an
unknown key, a wrong type, a value out of range) raises `ConfigError` naming the
key, the bad value and what is allowed, before any work starts.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import orjson

from indexer._types import Options, PdfEngine
from indexer.pipeline.walk.walker import WalkPolicy, compile_globs

__all__ = ["TABLES", "Config", "ConfigError", "load_config", "usable_cpus"]

MiB = 1024 * 1024


class ConfigError(ValueError):
    """A configuration key has a bad value, or is not a key at all."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        """The offending key (`config` for the file itself)."""
        self.message = message
        """What is wrong, naming the key, the value and what is allowed."""


def usable_cpus() -> int:
    """Return how many CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every option of a run. Raises `ConfigError` for a bad value."""

    # [run]
    workers: int = field(default_factory=usable_cpus)
    pdf_workers: int = field(default_factory=usable_cpus)
    max_failures: int = 0
    batch_files: int = 64
    batch_bytes: int = 4 * MiB
    window: int = 1024
    engine: Literal["local", "dask"] = "local"
    scheduler: str | None = None
    quiet: bool = False
    json: bool = False
    full: bool = False
    allow_empty: bool = False
    # [pdf]
    timeout: float = 120.0
    max_memory_mb: int = 2048
    recycle_after: int = 1000
    # [walk]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    skip_hidden: bool = True
    max_file_bytes: int = 256 * MiB
    # [extract]
    rows_per_chunk: int = 20
    max_chunk_chars: int = 4000
    pdf_engine: PdfEngine = "pdfium"
    # [output]
    shard_bytes: int = 64 * MiB
    shard_files: int = 10_000

    def __post_init__(self) -> None:
        for key, check in _CHECKS.items():
            object.__setattr__(self, key, check(key, getattr(self, key)))
        if self.scheduler is not None and self.engine != "dask":
            raise ConfigError(
                "scheduler",
                f"scheduler = {self.scheduler!r} is only used with engine = 'dask', "
                f"but engine = {self.engine!r}: drop it or set engine = 'dask'",
            )

    def extract_options(self) -> Options:
        """Return the extraction options these settings imply."""
        return Options(
            rows_per_chunk=self.rows_per_chunk,
            max_chunk_chars=self.max_chunk_chars,
            pdf_engine=self.pdf_engine,
        )

    def walk_policy(self, claims: Callable[[str], bool]) -> WalkPolicy:
        """Return the walk policy; `claims` says whether an extractor claims a rel path."""
        return WalkPolicy(
            include=self.include,
            exclude=self.exclude,
            skip_hidden=self.skip_hidden,
            max_file_bytes=self.max_file_bytes,
            claims=claims,
        )

    def digest(self) -> str:
        """Return the sha256 (hex) of the settings that can change the output bytes.

        Those are the extraction options, the walk's filters and the shard
        settings, plus `timeout` and `max_memory_mb`: when they trigger, a PDF's
        record reads `failed` instead of its text. Settings that change only speed
        or reporting (workers, window, batches, engine, quiet, ...) are left out,
        so `--workers 1` and `--workers 16` give the same digest.
        """
        values = asdict(self)
        raw = orjson.dumps({k: values[k] for k in OUTPUT_KEYS}, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(raw).hexdigest()


OUTPUT_KEYS = (
    "rows_per_chunk",
    "max_chunk_chars",
    "pdf_engine",
    "include",
    "exclude",
    "skip_hidden",
    "max_file_bytes",
    # Shard boundaries move with these, so the shard files' bytes do too.
    "shard_bytes",
    "shard_files",
    "timeout",
    "max_memory_mb",
)
"""The keys `Config.digest` covers."""

TABLES: dict[str, tuple[str, ...]] = {
    "run": (
        "workers",
        "pdf_workers",
        "max_failures",
        "batch_files",
        "batch_bytes",
        "window",
        "engine",
        "scheduler",
        "quiet",
        "json",
        "full",
        "allow_empty",
    ),
    "pdf": ("timeout", "max_memory_mb", "recycle_after"),
    "walk": ("include", "exclude", "skip_hidden", "max_file_bytes"),
    "extract": ("rows_per_chunk", "max_chunk_chars", "pdf_engine"),
    "output": ("shard_bytes", "shard_files"),
}
"""Which TOML table holds each key."""

_TABLE_OF = {key: table for table, keys in TABLES.items() for key in keys}


def load_config(path: str | os.PathLike[str] | None, overrides: Mapping[str, object]) -> Config:
    """Return the defaults, overlaid by the TOML file at `path`, overlaid by `overrides`.

    `overrides` are flat keys (the CLI's flags); a None value means "not given".
    Raises `ConfigError` for an unreadable or malformed file (key `config`), an
    unknown key, a key in the wrong table, a wrong type or a value out of range.
    """
    values = _read_file(path) if path is not None else {}
    for key, value in overrides.items():
        if key not in _TABLE_OF:
            raise ConfigError(key, f"unknown option {key!r}{_did_you_mean(key)}")
        if value is not None:
            values[key] = value
    return Config(**values)


def _read_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    import tomllib  # here: most runs have no config file to pay its import for

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(
            "config", f"cannot read config file {os.fsdecode(path)!r}: {exc}"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", f"config file {os.fsdecode(path)!r}: {exc}") from exc
    values: dict[str, Any] = {}
    for table, body in data.items():
        if table not in TABLES:
            raise _misplaced(table)
        if not isinstance(body, dict):
            raise ConfigError(table, f"[{table}] must be a table, got {body!r}")
        for key, value in body.items():
            if _TABLE_OF.get(key) != table:
                raise _misplaced(key, table)
            values[key] = value
    return values


def _misplaced(key: str, table: str | None = None) -> ConfigError:
    where = f"[{table}] {key}" if table else key
    if key in _TABLE_OF:
        return ConfigError(key, f"{where}: this key belongs in the [{_TABLE_OF[key]}] table")
    tables = ", ".join(f"[{t}]" for t in TABLES)
    hint = _did_you_mean(key) or f"; the tables are {tables}"
    return ConfigError(key, f"unknown config table or key {where!r}{hint}")


def _did_you_mean(key: str) -> str:
    import difflib  # here: only a mistake pays for its import

    close = difflib.get_close_matches(key, [*_TABLE_OF, *TABLES], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


_Check = Callable[[str, Any], Any]


def _integer(minimum: int, *, auto: bool = False) -> _Check:
    allowed = f"an integer >= {minimum}" + (' or "auto" (usable CPUs)' if auto else "")

    def check(key: str, value: Any) -> int:
        if auto and value == "auto":
            return usable_cpus()
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {allowed}")
        return value

    return check


def _seconds(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected seconds > 0")
    return float(value)


def _boolean(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected true or false")
    return value


def _choice(*allowed: str | None) -> _Check:
    names = " or ".join(repr(a) for a in allowed if a is not None)

    def check(key: str, value: Any) -> Any:
        if value not in allowed or isinstance(value, bool):
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {names}")
        return value

    return check


def _scheduler(key: str, value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a scheduler address")
    return value


def _globs(key: str, value: Any) -> tuple[str, ...]:
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


def _option(kind: type[int] | type[str]) -> _Check:
    """Check an extraction option against `Options`' own rules, the single source of them."""

    def check(key: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, kind):
            expected = "an integer" if kind is int else "a string"
            raise ConfigError(key, f"{key} = {value!r} is not allowed: expected {expected}")
        try:
            kwargs: dict[str, Any] = {key: value}
            Options(**kwargs)
        except ValueError as exc:
            raise ConfigError(key, f"{key} = {value!r} is not allowed: {exc}") from exc
        return value

    return check


_CHECKS: dict[str, _Check] = {
    "workers": _integer(1, auto=True),
    "pdf_workers": _integer(1, auto=True),
    "max_failures": _integer(0),
    "batch_files": _integer(1),
    "batch_bytes": _integer(1),
    "window": _integer(1),
    "engine": _choice("local", "dask"),
    "scheduler": _scheduler,
    "quiet": _boolean,
    "json": _boolean,
    "full": _boolean,
    "allow_empty": _boolean,
    "timeout": _seconds,
    "max_memory_mb": _integer(64),
    "recycle_after": _integer(1),
    "include": _globs,
    "exclude": _globs,
    "skip_hidden": _boolean,
    "max_file_bytes": _integer(1),
    "rows_per_chunk": _option(int),
    "max_chunk_chars": _option(int),
    "pdf_engine": _option(str),
    "shard_bytes": _integer(1024),
    "shard_files": _integer(1),
}
