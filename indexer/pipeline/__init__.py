"""The batch pipeline: walk a directory, extract in worker processes, write NDJSON shards.

`pool.WorkerPool` runs work that can hang or crash on hostile input in child processes
that can be killed; the other modules build the run on top of it.
"""
