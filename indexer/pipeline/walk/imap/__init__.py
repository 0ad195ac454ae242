"""An IMAP account's folders as a run's source: `indexer run imaps://USER@HOST/FOLDER`.

`ImapSource(parse_address(url), Retry(...))` is a `Source` (`pipeline.walk.source`);
the modules: `address` (the URL, the password), `names` (folder names and paths),
`session` (a connection and its retries), `listing` (folders and their messages),
`fetch` (messages in batches), `source` (the `Source` itself).
"""

from __future__ import annotations

from indexer.pipeline.walk.imap.address import ImapAddress, parse_address
from indexer.pipeline.walk.imap.session import Retry
from indexer.pipeline.walk.imap.source import ImapSource

__all__ = ["ImapAddress", "ImapSource", "Retry", "parse_address"]
