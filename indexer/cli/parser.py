"""The argument parser: every usage error one line on stderr and exit 2."""

from __future__ import annotations

import argparse
from typing import NoReturn

from indexer.cli.exits import Exit


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose errors are one line naming the command, then exit 2
    (argparse's own print the whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        """Print `message` in one line and exit `Exit.USAGE`; never returns."""
        self.exit(Exit.USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def add_verbose(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """`-v`: accepted before the command and after it alike."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="log debug details to stderr",
    )


def word_or(kind: type[int] | type[float]) -> object:
    """A flag type that passes what is not a number on as typed, so the config's own
    check refuses it with what is allowed (or takes it: `--workers auto`)."""

    def convert(text: str) -> int | float | str:
        try:
            return kind(text)
        except ValueError:
            return text

    convert.__name__ = kind.__name__
    return convert
