"""Sinks: exporters that run after a commit, from the committed output and its changes.

The NDJSON shards are the committed form of a run; a sink copies them somewhere else
(a search index, a database) after the commit, reading only the committed generation
(`Night.generation`: `manifest.json`, `documents-*.ndjson`, `chunks-*.ndjson`,
`changes.ndjson`). The commit never waits for a sink, and a sink's failure never undoes
it: `apply_all` turns any exception into a warning and an outcome the run reports
(`indexer run` then exits 1: committed, but look). A sink writes only its own files,
under `OUT/.sinks/`, never a file the manifest lists.

A run applies the sinks its config names (`[output] sinks`): the built-in ones
(`BUILTIN`) and any an installed package declares in the `indexer.sinks` entry point
group (a name and a callable that returns a `Sink`). See docs/architecture.md,
"Adding a sink".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from indexer.sinks.base import SINKS_DIR, Applied, Night, Sink, SinkOptions

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "SINKS_DIR",
    "Applied",
    "Night",
    "Sink",
    "SinkOptions",
    "apply_all",
    "resolve",
]

ENTRY_POINT_GROUP = "indexer.sinks"

log = logging.getLogger("indexer")


def _fts(options: SinkOptions) -> Sink:
    from indexer.sinks.fts import FtsSink  # here: a run without sinks never imports sqlite3

    return FtsSink()


def _postgres(options: SinkOptions) -> Sink:
    try:
        from indexer.sinks.postgres import PostgresSink  # here: psycopg is an extra
    except ImportError as exc:
        raise LookupError(
            f"sink 'postgres' needs psycopg ({exc}): pip install 'corpus-indexer[postgres]'"
        ) from exc
    return PostgresSink(options)


BUILTIN: dict[str, Callable[[SinkOptions], Sink]] = {"fts": _fts, "postgres": _postgres}
"""The sinks shipped with indexer, by name: each made from the config's settings."""
_DEFAULTS = SinkOptions()


def resolve(names: Sequence[str], options: SinkOptions = _DEFAULTS) -> list[Sink]:
    """The sinks called `names`, in order: built-in (made with `options`), else from the
    entry point group (made with no argument).

    Raises LookupError naming a sink nobody provides, or one that cannot be loaded.
    """
    sinks: list[Sink] = []
    plugins: dict[str, Callable[[], Sink]] | None = None
    for name in names:
        if (builtin := BUILTIN.get(name)) is not None:
            sinks.append(builtin(options))
            continue
        plugins = _plugins() if plugins is None else plugins
        if (make := plugins.get(name)) is None:
            known = ", ".join(sorted({*BUILTIN, *plugins}))
            raise LookupError(f"no sink named {name!r} (known: {known})")
        sinks.append(make())
    return sinks


def _plugins() -> dict[str, Callable[[], Sink]]:
    from importlib.metadata import entry_points  # costly: only for a sink not built in

    return {ep.name: ep.load() for ep in entry_points(group=ENTRY_POINT_GROUP)}


def apply_all(sinks: Sequence[Sink], night: Night) -> dict[str, str]:
    """Apply each sink in turn; return each one's outcome by name: "ok: ..." or
    "failed: ...". Never raises for a sink: a failure is a warning and its outcome."""
    outcomes: dict[str, str] = {}
    for sink in sinks:
        try:
            done = sink.apply(night)
        except Exception as exc:
            log.warning(
                "%s is committed, but sink %s failed: %s: %s",
                night.out, sink.name, type(exc).__name__, exc,
            )  # fmt: skip
            outcomes[sink.name] = f"failed: {type(exc).__name__}: {exc}"
            continue
        outcomes[sink.name] = f"ok: {done.how}, {done.written} written, {done.deleted} deleted"
    return outcomes
