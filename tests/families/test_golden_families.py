"""Golden sequences for every sampler family (the compatibility policy, docs/randomness.md).

For a given major version, the order a (config, seed, epoch) produces never
changes. ``tests/golden/families.json`` holds the first items that rank 1 of 3
yields in epoch 2 for one configuration of each family; regenerate it only
with a deliberate, documented order change (``python -m tests.test_golden_families``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from torch.utils.data import BatchSampler, SequentialSampler

import fairshard

GOLDEN = Path(__file__).parents[1] / "golden" / "families.json"
N = 60
LABELS = np.arange(N) % 4 // 2 + np.arange(N) % 3  # four unequal classes
LENGTHS = 1 + (np.arange(N) * 37) % 29
WEIGHTS = np.where(np.arange(N) % 5 == 0, 0.0, 1.0 + np.arange(N) % 3)

FAMILIES: dict[str, Callable[[int, int], Any]] = {
    "distributed": lambda w, r: fairshard.DistributedSampler(N, w, r, seed=7),
    "distributed-torch": lambda w, r: fairshard.DistributedSampler(N, w, r, seed=7, order="torch"),
    "distributed-locality": lambda w, r: fairshard.DistributedSampler(
        N, w, r, seed=7, order="locality", block_size=4, window=2
    ),
    "weighted": lambda w, r: fairshard.WeightedSampler(WEIGHTS, num_replicas=w, rank=r, seed=7),
    "weighted-no-replacement": lambda w, r: fairshard.WeightedSampler(
        WEIGHTS, 30, replacement=False, num_replicas=w, rank=r, seed=7
    ),
    "class-balanced": lambda w, r: fairshard.ClassBalancedSampler(
        LABELS, alpha=fairshard.LinearAnneal(1.0, 0.0, 4), num_replicas=w, rank=r, seed=7
    ),
    "hard-example": lambda w, r: fairshard.HardExampleSampler(N, num_replicas=w, rank=r, seed=7),
    "wrapped": lambda w, r: fairshard.ShardedSampler(
        SequentialSampler(range(N)), num_replicas=w, rank=r, seed=7
    ),
    "class-batch": lambda w, r: fairshard.ClassBatchSampler(
        LABELS, 2, num_replicas=w, rank=r, seed=7
    ),
    "length-bucket": lambda w, r: fairshard.LengthBucketBatchSampler(
        LENGTHS, 4, num_replicas=w, rank=r, seed=7
    ),
    "token-budget": lambda w, r: fairshard.TokenBudgetBatchSampler(
        LENGTHS, 40, num_replicas=w, rank=r, seed=7
    ),
    "batch-shard": lambda w, r: fairshard.BatchShardSampler(
        BatchSampler(SequentialSampler(range(N)), 5, False), num_replicas=w, rank=r, seed=7
    ),
    "mixture": lambda w, r: fairshard.MixtureSampler(
        [30, 20, 10], [0.5, 0.3, 0.2], num_samples=90, num_replicas=w, rank=r, seed=7
    ),
    "packing": lambda w, r: fairshard.PackingBatchSampler(
        LENGTHS, 40, 2, window=16, num_replicas=w, rank=r, seed=7
    ),
}


def first_items(name: str) -> list[Any]:
    sampler = FAMILIES[name](3, 1)
    sampler.set_epoch(2)
    return list(sampler)[:12]


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_order_is_pinned(name: str) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert first_items(name) == golden[name]


def test_every_family_is_pinned() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(FAMILIES)


if __name__ == "__main__":  # regenerate (a deliberate order change only)
    rows = [f" {json.dumps(n)}: {json.dumps(first_items(n))}" for n in sorted(FAMILIES)]
    GOLDEN.write_text("{\n" + ",\n".join(rows) + "\n}\n")
    sys.exit(0)
