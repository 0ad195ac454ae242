"""What a walk saw, in a few bytes: one digest per 512 entries of their paths, versions, verdicts.

A run that commits notes the digests of its walk in the same state transaction as the
commit (`State.mark_committed`), tied to the sha256 of the manifest it wrote (`Tree`);
the next run compares its own batch by batch (`unchanged.py`). Equal digests mean the
same path, version token (`Entry.version`), verdict and Maildir mark for every entry.
An entry that cannot be digested (a source's token orjson cannot render) makes the
digests None: no re-run may then trust them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import orjson

from indexer.pipeline.walk.walker import Entry

BATCH = 512
"""Entries per digest."""
DIGEST_BYTES = 16


class Tree(NamedTuple):
    """The walk behind a committed output, as the state keeps it."""

    manifest: str
    """The sha256 (hex) of the manifest that run committed."""
    keys: str
    """The digest of the cache keys' settings (`keys_digest`) that run extracted under."""
    pages: int
    """The committed documents' page total (run.json reports it)."""
    reused: int
    """The documents a re-run reuses: all those extracted or reused by that run."""
    digests: bytes
    """`batch_digest` of each `BATCH` walk entries, in walk order."""

    def to_json(self) -> str:
        """The text the state stores."""
        record = self._asdict() | {"digests": self.digests.hex()}
        return orjson.dumps(record).decode()

    @classmethod
    def from_json(cls, text: str) -> Tree | None:
        """The tree `to_json` wrote; None for anything else (an older state's run number)."""
        try:
            record = orjson.loads(text)
            tree = cls(**record | {"digests": bytes.fromhex(record["digests"])})
        except (orjson.JSONDecodeError, TypeError, KeyError, ValueError):
            return None
        return tree


def batch_digest(batch: Sequence[Entry]) -> bytes:
    """The digest of up to `BATCH` consecutive walk entries; raises TypeError for an entry
    orjson cannot render (a token that is not text, such as an integer beyond 64 bits)."""
    facts = [(e.rel, e.skip, e.detail, e.version, e.mail) for e in batch]
    return hashlib.blake2b(orjson.dumps(facts), digest_size=DIGEST_BYTES).digest()


def digest_batches(digests: bytes) -> list[bytes]:
    """`Tree.digests` cut into its batches' digests."""
    return [digests[i : i + DIGEST_BYTES] for i in range(0, len(digests), DIGEST_BYTES)]


class Digests:
    """Digests a walk as it is read: iterate `follow(walked)`; when it has ended, `value`
    holds the digests (None before, or when an entry could not be digested)."""

    def __init__(self) -> None:
        self.value: bytes | None = None

    def follow(self, walked: Iterator[Entry]) -> Iterator[Entry]:
        """Yield `walked`'s entries as they come; set `value` at its end."""
        parts: list[bytes] = []
        batch: list[Entry] = []
        digestible = True
        for entry in walked:
            batch.append(entry)
            if len(batch) == BATCH:
                digestible = digestible and _add(parts, batch)
                batch = []
            yield entry
        if batch:
            digestible = digestible and _add(parts, batch)
        self.value = b"".join(parts) if digestible else None


def _add(parts: list[bytes], batch: list[Entry]) -> bool:
    try:
        parts.append(batch_digest(batch))
    except TypeError:
        return False
    return True
