"""The batch pipeline: walk a directory, extract in worker processes, write NDJSON shards.

    run -> engines -> extract -> {incremental, output} -> walk

`run` orchestrates one `indexer run`; `engines` stage it locally or on Dask; `extract`
turns walk entries into outcomes in `indexer.procpool` workers; `incremental` and
`output` keep what runs reuse and write; `walk` lists SOURCE. See docs/architecture.md.
"""
