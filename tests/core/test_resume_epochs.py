"""len() under auto_epoch, and configurations refused at construction.

``len()`` is the number of items (batches) the next ``iter()`` yields,
always: also with ``auto_epoch=True`` after a complete pass (the next pass
is the next epoch, whose batch count may differ) and after loading the state
of a complete epoch (the next pass moves on).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairshard
from fairshard import ConfigError
from tests.catalog import sampler_families

#: every sampler family of the catalog, plus P x K 'stop', whose batch count changes from
#: epoch to epoch
BUILD: dict[str, Any] = {
    **{f.name: f.make for f in sampler_families() if f.auto_epoch},
    "class-batch-pk-stop": lambda n, r, w, **k: fairshard.ClassBatchSampler(
        np.arange(n) % 7 * (np.arange(n) % 3 != 0),
        2,
        classes_per_batch=3,
        num_replicas=w,
        rank=r,
        seed=0,
        **k,
    ),
}
NAMES = sorted(BUILD)


def _build(name: str, n: int, rank: int, world: int, **kw: Any) -> Any:
    try:
        return BUILD[name](n, rank, world, **kw)
    except ConfigError:
        return None  # a configuration this family refuses (tested elsewhere)


@given(
    name=st.sampled_from(NAMES),
    n=st.integers(30, 90),
    world=st.integers(1, 4),
    passes=st.integers(1, 3),
    cut=st.floats(0, 1),
)
def test_len_and_remaining_are_what_the_next_iter_yields_under_auto_epoch(
    name: str, n: int, world: int, passes: int, cut: float
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairshard.DegenerateConfigWarning)
        sampler = _build(name, n, world - 1, world, auto_epoch=True)
        if sampler is None:
            return
        for _ in range(passes):
            assert len(sampler) == len(list(sampler))
        # a state taken part-way (or at the end) of a pass, loaded into a fresh sampler
        it = iter(sampler)
        total = len(sampler)
        k = int(cut * total)
        for _ in range(k):
            next(it)
        state = json.loads(json.dumps(sampler.state_dict()))
        fresh = _build(name, n, world - 1, world, auto_epoch=True)
        fresh.load_state_dict(state)
        for _ in range(2):
            assert fresh.remaining == len(list(fresh))


def test_class_batch_pk_stop_len_after_a_pass() -> None:
    """The report: P x K 'stop' has 11 batches in one epoch and 10 in the next."""
    labels = np.arange(200) % 9 * (np.arange(200) % 4 != 0)
    counts = []
    sampler = fairshard.ClassBatchSampler(
        labels, 3, classes_per_batch=4, num_replicas=1, rank=0, seed=1, auto_epoch=True
    )
    for _ in range(6):
        predicted = len(sampler)
        counts.append(len(list(sampler)))
        assert predicted == counts[-1]


def test_len_after_loading_a_complete_epoch_under_auto_epoch() -> None:
    """The report: after loading an end-of-epoch state len() was 0 and the pass yielded 5."""
    done = fairshard.DistributedSampler(10, 2, 0, auto_epoch=True)
    list(done)
    fresh = fairshard.DistributedSampler(10, 2, 0, auto_epoch=True)
    fresh.load_state_dict(done.state_dict())
    assert len(fresh) == len(list(fresh)) == 5
    assert fresh.epoch == 1


@pytest.mark.parametrize(
    "build",
    [
        lambda: fairshard.WeightedSampler(
            [1.0, 1.0, 1.0], num_samples=3, num_replicas=4, rank=0, tail="drop"
        ),
        lambda: fairshard.WeightedSampler(
            [1.0, 2.0, 1.0], 2, replacement=False, num_replicas=4, rank=0, tail="drop"
        ),
        lambda: fairshard.ClassBalancedSampler([0, 1, 0], num_replicas=4, rank=3, tail="drop"),
        lambda: fairshard.HardExampleSampler(3, num_replicas=4, rank=0, tail="drop"),
        lambda: fairshard.DistributedSampler(3, 4, 0, drop_last=True),
    ],
    ids=["weighted", "weighted-no-replacement", "class-balanced", "hard-example", "distributed"],
)
def test_drop_with_fewer_draws_than_ranks_fails_at_construction(build: Any) -> None:
    with pytest.raises(ConfigError, match="every rank 0"):
        build()


@pytest.mark.parametrize(
    "build",
    [
        lambda: fairshard.LengthBucketBatchSampler(
            list(range(10)), 4, num_replicas=4, rank=0, tail="drop"
        ),
        lambda: fairshard.TokenBudgetBatchSampler([5] * 3, 5, num_replicas=4, rank=0, tail="drop"),
        lambda: fairshard.ClassBatchSampler([0, 0, 1, 1], 1, num_replicas=4, rank=0, tail="drop"),
    ],
    ids=["length-bucket", "token-budget", "class-batch"],
)
def test_drop_tail_with_fewer_batches_than_ranks_is_refused(build: Any) -> None:
    with pytest.raises(ConfigError, match=r"tail='drop' with \d+ plan items .* 0 steps"):
        len(build())
