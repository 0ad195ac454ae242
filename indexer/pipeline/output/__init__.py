"""What a run writes: records, chunk shards, documents, changes, the manifest and the commit."""
