from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import ConfigError, ConfigTypeError
from fairshard._batching.cost_balance import balanced_order, step_imbalance
from fairshard._batching.length_bucket import LengthBucketBatchSampler

from ..contract import SamplerContract, flat

LENGTHS = np.random.default_rng(5).integers(1, 400, 1003)


class TestLengthBucketPad(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> LengthBucketBatchSampler:
        return LengthBucketBatchSampler(
            LENGTHS, 16, mega_batch_factor=4, num_replicas=world_size, rank=rank, seed=2, **kw
        )


class TestLengthBucketDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> LengthBucketBatchSampler:
        return LengthBucketBatchSampler(
            LENGTHS.astype(float) / 10,
            16,
            drop_last=True,
            num_replicas=world_size,
            rank=rank,
            tail="drop",
            balance_run=None,
            **kw,
        )


@given(
    lengths=st.lists(st.integers(0, 500), min_size=1, max_size=300),
    batch_size=st.integers(1, 20),
    factor=st.integers(1, 5),
    world=st.integers(1, 6),
    tail=st.sampled_from(["pad", "drop"]),
    seed=st.integers(0, 2**32),
)
def test_every_item_once_and_equal_steps(
    lengths: list[int], batch_size: int, factor: int, world: int, tail: Any, seed: int
) -> None:
    ranks = [
        LengthBucketBatchSampler(
            lengths,
            batch_size,
            mega_batch_factor=factor,
            num_replicas=world,
            rank=r,
            seed=seed,
            tail=tail,
        )
        for r in range(world)
    ]
    plan = ranks[0].plan()
    batches = plan.items(np.arange(len(plan)))
    assert sorted(flat(batches)) == list(range(len(lengths)))  # the plan: every item once
    assert all(0 < len(b) <= batch_size for b in batches)
    if tail == "drop" and 0 < len(plan) < world:  # every rank would get 0 steps
        with pytest.raises(ConfigError, match="gives every rank 0 steps"):
            len(ranks[0])
        return
    shares = [list(s) for s in ranks]
    assert len({len(s) for s in shares}) == 1
    assert [len(s) for s in ranks] == [len(x) for x in shares]


def test_batches_are_sorted_within_mega_batches_and_cut_padding() -> None:
    lengths = np.random.default_rng(1).lognormal(5, 0.8, 20000).astype(int) + 1
    s = LengthBucketBatchSampler(lengths, 32, num_replicas=1, rank=0)
    ours = s.batch_costs().sum() / lengths.sum() - 1
    random_order = np.random.default_rng(0).permutation(lengths.size)
    rand = lengths[random_order].reshape(-1, 32).max(axis=1).sum() * 32 / lengths.sum() - 1
    assert ours < rand / 3


def test_steps_are_compute_balanced() -> None:
    lengths = np.random.default_rng(2).lognormal(5, 0.8, 50000).astype(int) + 1
    s = LengthBucketBatchSampler(lengths, 32, num_replicas=8, rank=0)
    costs = s.batch_costs()
    naive = step_imbalance(costs[np.random.default_rng(0).permutation(costs.size)], 8)
    assert step_imbalance(costs, 8) <= 1.10 < naive
    assert step_imbalance(costs, 6) <= 1.10  # 6 divides the default run of 384


def test_balanced_order_is_a_permutation_and_none_is_uniform() -> None:
    costs = np.random.default_rng(0).random(1000)
    for run in (None, 1, 7, 384, 5000):
        order = balanced_order(costs, np.random.default_rng(1), run)
        assert sorted(order.tolist()) == list(range(1000))
    assert step_imbalance(np.array([1.0, 1.0, 3.0, 1.0]), 2) == 1.25


def test_plan_does_not_depend_on_world_size() -> None:
    a = LengthBucketBatchSampler(LENGTHS, 8, num_replicas=2, rank=0, seed=4).plan()
    b = LengthBucketBatchSampler(LENGTHS, 8, num_replicas=7, rank=3, seed=4).plan()
    assert Counter(map(tuple, a.items(np.arange(len(a))))) == Counter(
        map(tuple, b.items(np.arange(len(b))))
    )
    assert np.array_equal(a.flat, b.flat)


@pytest.mark.parametrize(
    ("lengths", "kwargs", "error", "match"),
    [
        ([[1, 2], [3, 4]], {}, ConfigError, r"lengths must be 1-D.*shape \(2, 2\)"),
        (["a", "b"], {}, ConfigTypeError, "lengths must hold ints or floats"),
        ("abc", {}, ConfigTypeError, "lengths must be a 1-D sequence"),
        ([], {}, ConfigError, "lengths is empty"),
        ([3, -1], {}, ConfigError, r"lengths\[1\] is -1; every length must be >= 0"),
        ([3.0, float("nan")], {}, ConfigError, r"lengths\[1\] is nan"),
        ([True, False], {}, ConfigTypeError, "lengths must hold ints or floats"),
        ([1, 2], {"batch_size": 0}, ConfigError, "batch_size must be >= 1, got batch_size=0"),
        ([1, 2], {"mega_batch_factor": 0}, ConfigError, "mega_batch_factor must be >= 1"),
        ([1, 2], {"drop_last": 1}, ConfigTypeError, "drop_last must be a bool"),
        ([1, 2], {"balance_run": 0}, ConfigError, "balance_run must be >= 1"),
        ([1, 2], {"batch_size": 3, "drop_last": True}, ConfigError, "leaves no batch"),
        ([1, 2], {"tail": "even"}, ConfigError, "tail must be one of"),
    ],
)
def test_bad_inputs(lengths: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    args = {"batch_size": 2, **kwargs}
    with pytest.raises(error, match=match):
        LengthBucketBatchSampler(lengths, num_replicas=1, rank=0, **args)


def test_tensor_lengths() -> None:
    import torch

    s = LengthBucketBatchSampler(torch.tensor([3, 1, 2, 9]), 2, num_replicas=1, rank=0)
    assert sorted(flat(s)) == [0, 1, 2, 3]
