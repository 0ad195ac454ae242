"""What earlier runs extracted (SQLite state, cache keys, walk digests), reused by the next."""
