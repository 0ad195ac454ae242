"""The dask engine: partitions of the walk run through the local engine on cluster workers."""
