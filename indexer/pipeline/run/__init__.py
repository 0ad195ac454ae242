"""One run of `indexer run`: lock, unchanged fast path, engine, commit, summary and run.json."""
