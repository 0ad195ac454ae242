"""What the walk passes over: globs, hidden names, size, binary extensions, claims.

A `WalkPolicy` is built once per run from the config (`policy_for`) and read by the
walker for every path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from indexer._globs import compile_globs
from indexer.config import Config
from indexer.pipeline.walk.binary import BINARY_EXTENSIONS
from indexer.pipeline.walk.noted import Lookup
from indexer.registry import Registry


def _claims_nothing(rel: str) -> bool:
    return False


@dataclass(frozen=True, slots=True, kw_only=True)
class WalkPolicy:
    """What the walk passes over. Raises ValueError for an empty or blank glob."""

    include: tuple[str, ...] = ()
    """Globs a file's rel must match (any of them); empty means every file."""
    exclude: tuple[str, ...] = ()
    """Globs that exclude a file, or a whole directory when they match its rel."""
    skip_hidden: bool = True
    """Pass over names starting with "." (`.git` and the other ignored ones always)."""
    max_file_bytes: int = 256 * 1024 * 1024
    """Files larger than this are `too_large`."""
    binary_extensions: frozenset[str] = BINARY_EXTENSIONS
    """Lower-case extensions without the dot that are `binary` when not claimed."""
    claims: Callable[[str], bool] = _claims_nothing
    """True when an extractor claims a rel (no sniff then); `Registry.handles` fits."""
    streams: Callable[[str], bool] = _claims_nothing
    """True for a mailbox, read as a stream of messages: never `too_large`, never
    sniffed; `Registry.streams` fits."""
    noted: Lookup | None = None
    """The stats the incremental state noted: a file with its noted stat is not sniffed."""

    def __post_init__(self) -> None:
        compile_globs(self.include)
        compile_globs(self.exclude)
        if self.max_file_bytes < 0:
            raise ValueError(f"max_file_bytes must be >= 0, got {self.max_file_bytes}")


def policy_for(config: Config, registry: Registry) -> WalkPolicy:
    """Return the walk policy `config` sets, with what `registry`'s extractors claim."""
    return WalkPolicy(
        include=config.include,
        exclude=config.exclude,
        skip_hidden=config.skip_hidden,
        max_file_bytes=config.max_file_bytes,
        claims=registry.handles,
        streams=registry.streams,
    )
