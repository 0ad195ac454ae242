"""Engines that stage a run: `local` (this machine's processes) and `dask` (a cluster)."""
