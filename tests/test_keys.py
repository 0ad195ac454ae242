"""Cache keys: the unchanged-tree check's fast key equals the general one."""

from __future__ import annotations

from pathlib import Path

from indexer.config import Config
from indexer.pipeline.keys import CacheKeys, spec_for
from indexer.pipeline.walk import walk
from indexer.registry import default_registry


def test_entry_key_equals_key_for_every_entry_of_the_corpus(corpus: Path) -> None:
    config, registry = Config(rows_per_chunk=7), default_registry()
    keys = CacheKeys(config, registry)
    entries = [e for e in walk(corpus, config.walk_policy(registry.handles)) if e.skip is None]
    assert len({e.rel.rsplit(".", 1)[-1] for e in entries}) > 10  # many extensions
    for entry in entries:
        expected = keys.key("ab" * 32, spec_for(registry, entry), entry)
        assert keys.entry_key("ab" * 32, entry) == expected, entry.rel
