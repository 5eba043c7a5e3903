"""Shards in an S3-compatible store (moto's server on 127.0.0.1, through s3fs), with latency.

The same datasets as on local disk, read through a ``ChunkCache``: every
format, a DataLoader with workers that resumes exactly, the cache's limit,
its sharing across processes (a chunk is fetched once per node), read-ahead
from the locality plan, and a shard rewritten in the store failing loudly.
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ShardError, formats
from tests.formats.conftest import S3Server
from tests.formats.writers import FORMATS, _table, open_set, record, write

N = 103
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def remote(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("remote")
    return {fmt: s3.upload(write(fmt, root / fmt, N), "shards", fmt) for fmt in FORMATS}


def _cache(tmp_path: Path, **kwargs: Any) -> formats.ChunkCache:
    kwargs.setdefault("chunk_bytes", 4096)
    kwargs.setdefault("max_bytes", 1 << 24)
    return formats.ChunkCache(tmp_path / "chunks", **kwargs)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reads_from_the_store(
    fmt: str, s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = open_set(
        fmt, remote[fmt], tmp_path / "index", cache=_cache(tmp_path), storage_options=s3.options
    )
    assert ds.shards[0].startswith("s3://shards/")
    assert [ds[i] for i in range(N)] == list(range(N))
    before = s3.gets()
    assert ds.__getitems__(list(range(N))) == list(range(N))
    assert s3.gets() == before  # a second pass is served by the node's cache


def test_a_loader_with_workers_resumes_exactly_from_the_store(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = open_set(
        "webdataset",
        remote["webdataset"],
        tmp_path / "index",
        cache=_cache(tmp_path),
        storage_options=s3.options,
    )

    def loader(sampler: Any) -> DataLoader[Any]:
        return DataLoader(
            ds, sampler=sampler, batch_size=8, num_workers=2, multiprocessing_context="fork"
        )

    def sampler() -> Any:
        return fairshard.WeightedSampler(1.0 + ds.column("cls"), num_replicas=1, rank=0, seed=4)

    full = [b.tolist() for b in loader(sampler())]
    dl = loader(sampler())
    first = []
    for batch in dl:
        first.append(batch.tolist())
        if len(first) == 5:
            break
    state = fairshard.loader_state_dict(dl, batches=5)
    del dl
    resumed = sampler()
    resumed.load_state_dict(state)
    assert first + [b.tolist() for b in loader(resumed)] == full


def test_latency_is_paid_per_batch_not_per_sample(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = open_set("mds", remote["mds"], tmp_path / "index", storage_options=s3.options)  # no cache
    s3.latency = 0.2  # long enough that requests sent together are served together
    with s3.lock:
        s3.most_in_flight = 0
    try:
        got = ds.__getitems__(list(range(0, N, 3)))  # 35 samples across 7 shards
    finally:
        s3.latency = 0.0
    assert got == list(range(0, N, 3))
    # one request after another would keep at most 1 in flight; a batch's reads go together
    assert s3.most_in_flight >= 4, f"at most {s3.most_in_flight} requests at once: not parallel"


def test_the_cache_stays_within_its_limit(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    cache = _cache(tmp_path, chunk_bytes=2048, max_bytes=16384)
    ds = open_set(
        "webdataset",
        remote["webdataset"],
        tmp_path / "index",
        cache=cache,
        storage_options=s3.options,
    )
    for i in range(N):
        assert ds[i] == i
        assert cache.size() <= 16384 + 16384 // 16 + 2048
    assert cache.evict(wait=True) <= 16384


def _reader(args: tuple[str, dict[str, Any], str, str, int]) -> list[int]:
    url, options, index, folder, rank = args
    cache = formats.ChunkCache(folder, max_bytes=1 << 24, chunk_bytes=4096)
    ds = open_set("webdataset", url, Path(index), cache=cache, storage_options=options)
    order = list(range(N))[rank % 2 :: 2] + list(range(N))[1 - rank % 2 :: 2]
    return [ds[i] for i in order]


def test_processes_of_a_node_fetch_each_chunk_once(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = open_set(
        "webdataset", remote["webdataset"], tmp_path / "index", storage_options=s3.options
    )
    chunks = sum(-(-size // 4096) for size in ds.index.sizes)
    before = s3.gets()
    args = [
        (remote["webdataset"], s3.options, str(tmp_path / "index"), str(tmp_path / "c"), r)
        for r in range(4)
    ]
    with multiprocessing.get_context("fork").Pool(4) as pool:
        results = pool.map(_reader, args)
    for rank, got in enumerate(results):
        order = list(range(N))[rank % 2 :: 2] + list(range(N))[1 - rank % 2 :: 2]
        assert got == order
    fetched = s3.gets() - before
    assert fetched <= chunks + 4 * 8, (
        f"{fetched} GETs for {chunks} chunks"
    )  # + listings per process


def test_read_ahead_fetches_the_next_window(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    cache = _cache(tmp_path, chunk_bytes=4096)
    ds = open_set(
        "webdataset",
        remote["webdataset"],
        tmp_path / "index",
        cache=cache,
        storage_options=s3.options,
    )
    sampler = fairshard.DistributedSampler(
        N, 1, 0, seed=1, order="locality", block_size=4, window=2
    )
    ds.read_ahead(sampler, ahead=1)
    first = next(iter(sampler))
    assert ds[first] == first
    plan = sampler.plan()
    due = {int(b) for w in (0, 1) for b in plan.window_blocks(w)}
    deadline = time.monotonic() + 20
    while cache._pending and time.monotonic() < deadline:
        time.sleep(0.05)
    plain = open_set(
        "webdataset",
        remote["webdataset"],
        tmp_path / "index",
        cache=cache,
        storage_options=s3.options,
    )
    before = s3.gets()
    for block in due:  # both windows are in the cache: reading them asks the store nothing
        for i in range(block * 4, min(N, block * 4 + 4)):
            assert plain[i] == i
    assert s3.gets() == before


def test_an_object_rewritten_in_the_store_fails_loudly(s3: S3Server, tmp_path: Path) -> None:
    url = s3.upload(write("parquet", tmp_path / "pq", 80), "shards", "rewritten")
    ds = open_set("parquet", url, tmp_path / "index", storage_options=s3.options)
    assert ds[45] == 45
    import pyarrow.parquet as pq

    local = tmp_path / "new.parquet"
    pq.write_table(_table(range(40, 75), 24), local, row_group_size=8)
    s3.filesystem().put_file(str(local), "shards/rewritten/part-00001.parquet")
    fresh = open_set("parquet", url, tmp_path / "other-index", storage_options=s3.options)
    assert len(fresh) == 75  # a new index for the new set
    stale = open_set("parquet", url, tmp_path / "index", storage_options=s3.options, rebuild=False)
    assert len(stale) == 75  # its digest changed: built again, never the old one
    with pytest.raises(ShardError, match=r"s3://shards/rewritten/part-00001\.parquet"):
        for i in range(40, 80):
            ds[i]


def test_samples_from_the_store_are_the_local_ones(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = formats.open_parquet(remote["parquet"], index_dir=tmp_path, storage_options=s3.options)
    assert ds[17] == record(17)


def test_forked_workers_make_their_own_connection_to_the_store(
    s3: S3Server, remote: dict[str, str], tmp_path: Path
) -> None:
    ds = open_set(
        "webdataset",
        remote["webdataset"],
        tmp_path / "index",
        cache=_cache(tmp_path),
        storage_options=s3.options,
    )
    assert ds[0] == 0  # the parent's s3fs has started its event loop
    loader = DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="fork")
    assert [int(i) for b in loader for i in b] == list(range(N))  # the workers fetch themselves
