"""``DistributedSampler(order="locality")``: the contract, locality per rank, random access."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pytest

import fairshard
from fairshard import ConfigError, StateDictError
from fairshard._core.locality import LocalityPlan

from ..contract import SamplerContract


def locality(n: int, rank: int, world: int, **kwargs: Any) -> fairshard.DistributedSampler:
    kwargs.setdefault("block_size", 4)
    kwargs.setdefault("window", 3)
    return fairshard.DistributedSampler(n, world, rank, seed=11, order="locality", **kwargs)


class TestLocalityPad(SamplerContract):
    def make(self, rank: int, world_size: int, **kwargs: Any) -> Any:
        return locality(203, rank, world_size, **kwargs)


class TestLocalityDropOneBlockWindows(SamplerContract):
    def make(self, rank: int, world_size: int, **kwargs: Any) -> Any:
        return locality(150, rank, world_size, drop_last=True, block_size=5, window=1, **kwargs)


class TestLocalityBlocked(SamplerContract):
    def make(self, rank: int, world_size: int, **kwargs: Any) -> Any:
        return locality(97, rank, world_size, layout="blocked", tail="uneven", **kwargs)


@pytest.mark.parametrize("n,block,window,lanes", [(1, 1, 1, 1), (97, 4, 3, 2), (1000, 16, 8, 3)])
def test_the_plan_is_a_bijection_with_random_access(n: int, block: int, window: int, lanes: int):
    plan = LocalityPlan(n, 3, 2, block_size=block, window=window, lanes=lanes)
    order = plan.take(np.arange(n, dtype=np.int64))
    assert sorted(order.tolist()) == list(range(n))
    probe = np.random.default_rng(0).integers(0, n, 50)
    assert plan.take(probe).tolist() == order[probe].tolist()


def test_each_rank_reads_whole_windows_of_neighbouring_blocks() -> None:
    """Rank r's items, cut into windows, each touch `window` blocks, and no rank shares a block."""
    n, block, window, world = 4096, 16, 4, 4
    ranks = [list(locality(n, r, world, block_size=block, window=window)) for r in range(world)]
    span = block * window
    owner: dict[int, int] = {}
    for r, items in enumerate(ranks):
        for start in range(0, len(items) - span + 1, span):
            blocks = {i // block for i in items[start : start + span]}
            assert len(blocks) == window  # a whole window: `window` blocks, each read whole
            for b in blocks:
                assert owner.setdefault(b, r) == r, "a block read by two ranks"
    random = [list(fairshard.DistributedSampler(n, world, r, seed=11)) for r in range(world)]
    spread = len({i // block for i in random[0][:span]})
    assert spread > 3 * window  # the plain shuffle touches a new block almost every item


def test_a_batch_mixes_the_window() -> None:
    """Class-sorted labels: a batch of 64 under the default window holds many classes."""
    n = 100_000
    labels = np.arange(n) * 10 // n  # 10 classes, sorted
    items = np.asarray(list(fairshard.DistributedSampler(n, 1, 0, order="locality")))
    batch_classes = [len(set(labels[items[i : i + 64]].tolist())) for i in range(0, 6400, 64)]
    assert np.mean(batch_classes) > 8


def test_elastic_resume_keeps_the_saved_plan_and_the_next_epoch_is_the_new_worlds() -> None:
    old = [locality(300, r, 4) for r in range(4)]
    its = [iter(s) for s in old]
    taken = Counter(i for it in its for i in [next(it) for _ in range(20)])
    state = json.loads(json.dumps(old[0].state_dict()))
    assert state["extra"] == {"lanes": 4}
    new = [locality(300, r, 3) for r in range(3)]
    for s in new:
        s.load_state_dict(state)
    padded = new[0].partition().num_padded()  # 220 left on 3 ranks: 2 declared repeats
    for s in new:
        taken.update(s)
    assert sorted(taken) == list(range(300)) and sum(taken.values()) == 300 + padded == 302
    new[1].set_epoch(1)
    fresh = locality(300, 1, 3)
    fresh.set_epoch(1)
    assert list(new[1]) == list(fresh)


def test_bad_arguments_name_the_fix() -> None:
    with pytest.raises(ConfigError, match="order='locality'"):
        fairshard.DistributedSampler(10, 1, 0, block_size=4)
    with pytest.raises(ConfigError, match="window"):
        fairshard.DistributedSampler(10, 1, 0, order="locality", window=0)
    s = locality(50, 0, 2)
    state = s.state_dict()
    other = fairshard.DistributedSampler(50, 2, 0, seed=11)  # another order: another config
    with pytest.raises(StateDictError, match="block_size"):
        other.load_state_dict(state)
