"""`indexer run`: arguments, signals, exit codes and the summary line."""

from __future__ import annotations

import argparse
import gc
import logging
import re
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from indexer.cli.exits import Exit, signal_exit
from indexer.cli.parser import add_verbose, word_or
from indexer.cli.sources import SOURCE_HELP, source_of
from indexer.config import FLAGS, Config, load_config
from indexer.errors import ConfigError, LockHeld

if TYPE_CHECKING:
    from indexer.pipeline.walk.source import Source

_FLAG_OF = {flag.key: flag.flag for flag in FLAGS}


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `indexer run`'s arguments to `parser`."""
    parser.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    parser.add_argument("--out", type=Path, required=True, metavar="OUT", help="output folder")
    parser.add_argument("--config", type=Path, metavar="FILE", help="TOML config (see configs/)")
    add_verbose(parser)
    for flag in FLAGS:  # each overrides one config key; None means "not given"
        kind: dict[str, Any] = {"type": flag.type}
        if flag.type is None:
            kind = {"action": "store_true"}
        elif flag.type is list:
            kind = {"action": "append", "metavar": "GLOB"}
        elif flag.type in (int, float):  # the config's check says what is allowed
            kind = {"type": word_or(flag.type), "metavar": flag.key.upper()}
        parser.add_argument(flag.flag, dest=flag.key, default=None, help=flag.help, **kind)


def run_command(args: argparse.Namespace) -> int:
    """Execute `indexer run`; return its exit code."""
    given = {flag.key: v for flag in FLAGS if (v := getattr(args, flag.key)) is not None}
    try:
        config = load_config(str(args.config) if args.config else None, given)
    except ConfigError as exc:
        print(f"indexer: {_in_flag_words(exc, given)}", file=sys.stderr)
        return Exit.USAGE
    # The run allocates millions of short-lived, acyclic objects (records, byte
    # strings) that reference counting frees: the cyclic collector runs rarely.
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)
    source = source_of(args.source, config)
    if isinstance(source, Exit):
        return source
    try:
        return _run(source, args.out, config)
    finally:
        if not isinstance(source, Path):
            source.close()


def _run(source: Path | Source, out: Path, config: Config) -> int:
    """Run it under this process's SIGINT and SIGTERM handling; return the exit code.

    A signal stops the run until its commit begins; one that comes later is only
    reported: the output is committed, and the exit code says so.
    """
    from indexer.pipeline.run.interrupts import Interrupted, Interrupts
    from indexer.pipeline.run.runner import execute

    progress = sys.stderr.isatty() and not config.quiet
    with Interrupts().installed() as interrupts:
        try:
            summary = execute(
                source, out, config, registry=None, progress=progress, interrupts=interrupts
            )
        except Interrupted as stop:
            return _interrupted(out, stop.signum)
        except Exception as exc:
            if interrupts.caught is not None:  # an error of a run the signal cut short
                return _interrupted(out, interrupts.caught)
            return _failed(exc, out)
        if interrupts.caught is not None:
            name = signal.Signals(interrupts.caught).name
            print(f"indexer: {name} came after the commit; the run completed", file=sys.stderr)
        return _report(summary, config)


def _in_flag_words(error: ConfigError, given: dict[str, Any]) -> str:
    """`error`'s message, naming the flag the user typed when the key came from one."""
    key = error.key
    if key not in given or key not in _FLAG_OF:
        return f"config error: {error.message}"
    flag, message = _FLAG_OF[key], error.message
    message = message.replace(f"{key} = {given[key]!r}", f"{flag} {given[key]}")
    return re.sub(rf"(?<![-\w]){re.escape(key)}\b", flag, message)


def _interrupted(out: Path, signum: int) -> int:
    """The exit code and message of a run stopped by a signal before its commit."""
    print(f"indexer: interrupted; {_kept(out)}", file=sys.stderr)
    return signal_exit(signum)


def _kept(out: Path) -> str:
    """What OUT holds after a run that committed nothing, in words."""
    if (out / "manifest.json").exists():
        return f"the previous output in {out} is intact"
    return f"{out} holds no committed output"


def _failed(error: BaseException, out: Path) -> int:
    """The exit code and message for what stopped a run before its commit."""
    cause = _leaf(error)
    logging.getLogger("indexer").debug("fatal error", exc_info=error)
    if isinstance(cause, ConfigError):
        print(f"indexer: config error: {cause}", file=sys.stderr)
        return Exit.USAGE
    if isinstance(cause, LockHeld):
        print(f"indexer: {cause}; try again when it has finished", file=sys.stderr)
        return Exit.LOCKED
    print(
        f"indexer: fatal: {type(cause).__name__}: {cause}\n"
        f"indexer: nothing was committed; {_kept(out)}",
        file=sys.stderr,
    )
    return Exit.FATAL


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _report(summary: Any, config: Config) -> int:
    if config.json:
        sys.stdout.buffer.write(
            orjson.dumps(summary.to_dict(), option=orjson.OPT_SORT_KEYS) + b"\n"
        )
        sys.stdout.flush()
    else:
        print(summary.line())
    if summary.too_many_failures(config.max_failures):
        print(
            f"indexer: {summary.failed_new} documents failed that did not fail before "
            f"(allowed: {config.max_failures}; {summary.failed_known} known failures); "
            f'see status "failed" in {summary.out}/documents-*.ndjson',
            file=sys.stderr,
        )
        return Exit.FAILURES
    if failed := [name for name, outcome in summary.sinks.items() if outcome.startswith("failed")]:
        print(f"indexer: committed, but sinks failed: {', '.join(failed)}", file=sys.stderr)
        return Exit.FAILURES
    return Exit.OK
