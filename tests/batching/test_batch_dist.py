"""Every batch family of the catalog (``tests/catalog.py``) on 4 real gloo ranks, in one run."""

from collections import Counter
from typing import Any

import pytest

from tests.catalog import CATALOG, batch_families

from .._dist import run_ranks
from ..contract import declared_items, flat, plan_multiset, plan_padding_items

pytestmark = pytest.mark.distributed

WORLD = 4
N = 211  # batch-shard: 24 batches of <= 9, an even split over 4 ranks
NAMES = sorted(f.name for f in batch_families())


def _build(name: str, num_replicas: int | None = None, rank: int | None = None) -> Any:
    return CATALOG[name].make(N, rank, num_replicas, seed=17)


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
            if CATALOG[name].tail == "drop":  # what is missing is exactly the dropped batches
                assert sum((expected - seen).values()) == declared_items(virtual[0], "drop")
            else:
                assert not expected - seen, name
            padded = declared_items(virtual[0], "pad") + plan_padding_items(virtual[0])
            assert sum((seen - expected).values()) == padded  # against the one-rank plan
