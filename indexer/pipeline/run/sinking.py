"""After the commit: the sinks the config names, applied to the committed generation.

The sinks run once the run is committed and its bookkeeping done, with OUT still
locked (no other run moves `.current` meanwhile). Their outcomes go into the summary;
a failure is a warning there and never touches the output (`indexer.sinks`).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from pathlib import Path

from indexer.config import Config
from indexer.errors import ConfigError
from indexer.pipeline.output.staging import CURRENT, MANIFEST
from indexer.pipeline.run.summary import RunSummary
from indexer.sinks import Night, Sink, SinkOptions, apply_all, resolve

log = logging.getLogger("indexer")


def configured(config: Config) -> list[Sink]:
    """The sinks `config.sinks` names, made; raises `ConfigError` for an unknown one
    (before the run does any work)."""
    if not config.sinks:
        return []
    try:
        return resolve(config.sinks, sink_options(config))
    except LookupError as exc:
        raise ConfigError("sinks", str(exc.args[0])) from None


def sink_options(config: Config) -> SinkOptions:
    """The built-in sinks' settings in `config`."""
    return SinkOptions(
        postgres_dsn_env=config.postgres_dsn_env,
        postgres_schema=config.postgres_schema,
        postgres_language=config.postgres_language,
    )


def manifest_sha256(generation: Path | None) -> str | None:
    """The sha256 of a generation folder's manifest; None without one."""
    if generation is None:
        return None
    try:
        return hashlib.sha256((generation / MANIFEST).read_bytes()).hexdigest()
    except OSError:
        return None


def apply_sinks(
    out: Path, sinks: list[Sink], previous: str | None, summary: RunSummary
) -> RunSummary:
    """`summary` with the outcome of each sink applied to OUT's committed generation.
    `previous`: the sha256 of the manifest committed before this run. Never raises."""
    if not sinks:
        return summary
    generation = (out / CURRENT).resolve()
    committed = manifest_sha256(generation)
    if committed is None:  # cannot be: the run committed; a sink must not guess then
        log.warning("%s is committed, but its manifest cannot be read: no sink applied", out)
        return replace(summary, sinks={s.name: "failed: no manifest" for s in sinks})
    night = Night(
        out=out, generation=generation, manifest_sha256=committed, previous_sha256=previous
    )
    return replace(summary, sinks=apply_all(sinks, night))
