"""Every batch sampler on 4 real gloo ranks, in one spawned run."""

from collections import Counter
from typing import Any

import numpy as np
import pytest

from fairshard._batching.batch_shard import BatchShardSampler
from fairshard._batching.class_batch import ClassBatchSampler
from fairshard._batching.length_bucket import LengthBucketBatchSampler
from fairshard._batching.token_budget import TokenBudgetBatchSampler

from .._dist import run_ranks
from ..contract import declared_items, flat, plan_multiset

pytestmark = pytest.mark.distributed

WORLD = 4


def _build(name: str, num_replicas: int | None = None, rank: int | None = None) -> Any:
    rng = np.random.default_rng(0)
    kw = {"num_replicas": num_replicas, "rank": rank, "seed": 17}
    if name == "class":
        return ClassBatchSampler(rng.integers(0, 7, 500), 3, classes_per_batch=4, **kw)
    if name == "length":
        return LengthBucketBatchSampler(rng.integers(1, 300, 1001), 8, **kw)
    if name == "token":
        return TokenBudgetBatchSampler(rng.integers(1, 300, 1001), 1200, tail="drop", **kw)
    from torch.utils.data import BatchSampler, RandomSampler

    inner = BatchSampler(RandomSampler(range(400)), 5, drop_last=False)  # 80 batches, global RNG
    return BatchShardSampler(inner, **kw)


NAMES = ("class", "length", "token", "shard")


def _on_rank(rank: int, world_size: int) -> dict[str, Any]:
    import torch

    torch.manual_seed(1000 + rank)  # global RNG differs on every rank
    out: dict[str, Any] = {}
    for name in NAMES:
        sampler = _build(name)  # world and rank from the process group
        assert (sampler.num_replicas, sampler.rank) == (world_size, rank)
        epochs = []
        for epoch in (0, 1):
            sampler.set_epoch(epoch)
            epochs.append((len(sampler), list(sampler)))
        out[name] = epochs
    return out


def test_batch_samplers_on_four_gloo_ranks() -> None:
    results = run_ranks(_on_rank, WORLD, timeout=180)
    for name in NAMES:
        for epoch in (0, 1):
            lens = [r[name][epoch][0] for r in results]
            shares = [r[name][epoch][1] for r in results]
            assert len(set(lens)) == 1 and lens == [len(s) for s in shares], name
            ref = _build(name, 1, 0)
            ref.set_epoch(epoch)
            virtual = [_build(name, WORLD, r) for r in range(WORLD)]
            for r, v in enumerate(virtual):
                v.set_epoch(epoch)
                assert list(v) == shares[r], f"{name}: rank {r} differs from its simulation"
            seen = Counter(i for s in shares for i in flat(s))
            expected = plan_multiset(ref)
            assert not expected - seen or name == "token"
            if name == "token":  # drop tail: what is missing is exactly the dropped batches
                assert sum((expected - seen).values()) == declared_items(virtual[0], "drop")
            assert sum((seen - expected).values()) == declared_items(virtual[0], "pad")
