"""Sharded formats read as map-style datasets: WebDataset tar, MDS, Parquet, Arrow IPC.

One layer above the sampler families: a shard set's index (``index``) maps
sample ``i`` to a byte range of a shard (``store``, through ``cache`` for
remote shards), a format's reader (``webdataset``, ``mds``, ``columnar``,
``readers``) decodes it, and ``dataset.ShardDataset`` serves the indices
every family yields; ``open`` holds the public constructors.
"""
