"""SOURCE as `indexer run` takes it: a folder, or an IMAP URL checked before any work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.cli.exits import Exit
from indexer.config import Config
from indexer.errors import ConfigError, SourceLost

if TYPE_CHECKING:
    from indexer.pipeline.walk.imap import ImapSource

__all__ = ["SOURCE_HELP", "source_of"]

SOURCE_HELP = (
    "folder to index, or an IMAP folder: imap[s]://USER@HOST[:PORT]/FOLDER (FOLDER * for "
    "all; the password from INDEXER_IMAP_PASSWORD or ~/.netrc)"
)


def source_of(text: str, config: Config) -> Path | ImapSource | Exit:
    """The source SOURCE names: a folder, or an IMAP source that logged in and listed
    its folders (the run's own errors then say what is wrong with a folder). For an
    IMAP source that cannot be used, prints one line and returns its exit code:
    `USAGE` for a bad URL, a refused login or certificate, no such folder (nothing
    was done); `FATAL` when the server cannot be reached."""
    if not text.lower().startswith(("imap://", "imaps://")):
        return Path(text)
    from indexer.pipeline.walk.imap import ImapSource, Retry, parse_address

    try:
        retry = Retry(
            retries=config.imap_retries, backoff=config.imap_backoff,
            ca_file=config.imap_ca_file, starttls=config.imap_starttls,
        )  # fmt: skip
        source = ImapSource(parse_address(text), retry)
        source.check()
    except ConfigError as exc:
        print(f"indexer: SOURCE: {exc}", file=sys.stderr)
        return Exit.USAGE
    except SourceLost as exc:
        print(f"indexer: SOURCE: {exc}; nothing was done", file=sys.stderr)
        return Exit.FATAL
    return source
