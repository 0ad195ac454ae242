"""Suite `incremental`'s process floor: the least a re-run with a change in every shard
must do, as a fresh process, before it extracts one file.

Start Python, import what `indexer run` imports to run the engine, walk SOURCE, and
read, hash, write and fsync every committed shard of OUT into SCRATCH, each shard's
fsync in a thread of its own while the next one is written (as `ShardWriter` does).
No extraction, no documents, no state, no commit: any real run does more.

Usage: python -m benchmarks.floor SOURCE OUT SCRATCH
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading

import indexer.cli.run
import indexer.pipeline.engines.local
import indexer.pipeline.run.runner  # noqa: F401  (imported for their cost, as a run does)
from indexer.config import Config
from indexer.pipeline.walk.walker import policy_for, walk
from indexer.registry import default_registry


def main(source: str, out: str, scratch: str) -> int:
    sum(1 for _ in walk(source, policy_for(Config(), default_registry())))
    os.makedirs(scratch, exist_ok=True)
    syncs = []
    for name in sorted(n for n in os.listdir(out) if n.startswith("chunks-")):
        digest = hashlib.sha256()
        with (
            open(os.path.join(out, name), "rb") as old,
            open(os.path.join(scratch, name), "wb") as new,
        ):
            while block := old.read(1 << 20):
                digest.update(block)
                new.write(block)
        fd = os.open(os.path.join(scratch, name), os.O_RDONLY)
        sync = threading.Thread(target=_sync, args=(fd,))
        sync.start()
        syncs.append(sync)
    for sync in syncs:
        sync.join()
    return 0


def _sync(fd: int) -> None:
    os.fsync(fd)
    os.close(fd)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
