"""OnlineMixtureSampler: weights changed at a step, the bound per segment, exact resume."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from torch.utils.data import DataLoader

from fairshard import ConfigError, OnlineMixtureSampler, RankMismatchError, StepSampler

from .._dist import run_ranks
from ..contract import SamplerContract

SIZES = [400, 300, 50]
N = 600


def make(rank: int = 0, world: int = 1, **kw: Any) -> OnlineMixtureSampler:
    return OnlineMixtureSampler(
        SIZES, [0.5, 0.3, 0.2], num_samples=N, num_replicas=world, rank=rank, seed=3, **kw
    )


def with_switches(sampler: OnlineMixtureSampler) -> OnlineMixtureSampler:
    sampler.update_weights([0.1, 0.1, 0.8], epoch=0, position=101)
    sampler.update_weights([1, 2, 3], epoch=0, position=350)
    sampler.update_weights([0.7, 0.3, 0.0], epoch=1, position=40)
    return sampler


def _counts(sources: np.ndarray) -> np.ndarray:
    return np.cumsum(np.eye(len(SIZES), dtype=np.int64)[sources], axis=0)


def test_prefix_bound_within_each_segment_and_across_switches() -> None:
    sampler = with_switches(make())
    for epoch in (0, 1):
        plan = sampler.plan(epoch)
        starts = [*plan.starts.tolist(), N]
        target_before = np.zeros(len(SIZES))
        for k in range(len(starts) - 1):
            lo, hi = starts[k], starts[k + 1]
            props = sampler.proportions_at(epoch, lo)
            counts = _counts(plan.sources(np.arange(lo, hi)))
            steps = np.arange(1, hi - lo + 1)[:, None]
            assert np.abs(counts - steps * props).max() < 1  # the interleave's bound
            # across switches: within k + 1 of the piecewise target
            before = _counts(plan.sources(np.arange(0, lo)))[-1] if lo else 0
            piecewise = target_before + steps * props
            assert np.abs(before + counts - piecewise).max() < k + 1
            target_before = piecewise[-1]


def test_draws_continue_their_pass_across_a_switch() -> None:
    sampler = with_switches(make())
    items = sampler.plan(0).take(np.arange(N))
    big = items[items < 400]  # source 0 has 400 items and fewer draws: all distinct
    assert len(big) == len(set(big.tolist()))


def test_state_round_trip_keeps_the_switches() -> None:
    first = with_switches(make())
    first.set_epoch(1)
    it = iter(first)
    head = [next(it) for _ in range(77)]
    state = json.loads(json.dumps(first.state_dict()))
    again = make()
    again.load_state_dict(state)
    assert again.switches() == first.switches()
    assert head + list(again) == list(first.plan(1).take(np.arange(N)))


def test_updates_move_forward_only_and_check_weights() -> None:
    sampler = with_switches(make())
    with pytest.raises(ConfigError, match="forward only"):
        sampler.update_weights([1, 1, 1], epoch=0, position=500)
    with pytest.raises(ConfigError, match="3 sources"):
        sampler.update_weights([1, 1], epoch=2, position=0)
    with pytest.raises(ConfigError, match="next epoch"):
        sampler.update_weights([1, 1, 1], epoch=2, position=N)
    with pytest.raises(ConfigError, match="upsample"):
        OnlineMixtureSampler(SIZES, stopping="first_exhausted", num_replicas=1, rank=0)


def test_step_sampler_follows_an_update_and_resumes_it() -> None:
    inner = make()
    steps = StepSampler(inner, micro_batch_size=8, global_batch_size=16)
    stream = iter(steps)
    got = [[next(stream) for _ in range(16)] for _ in range(50)]  # read ahead, then update
    epoch, position = steps.epoch_position(50)
    inner.update_weights([0, 0, 1], epoch=epoch, position=position)
    after = [[next(stream) for _ in range(16)] for _ in range(3)]
    assert all(i >= 700 for step in after for i in step)  # only source 2 from step 50 on
    assert after[0] == steps.indices_at(50).ranks[0]
    state = steps.state_dict()
    fresh = StepSampler(make(), micro_batch_size=16, global_batch_size=16)
    fresh.load_state_dict(state)
    assert [next(iter(fresh)) for _ in range(1)] == [steps.indices_at(53).ranks[0][0]]
    assert got[0] == steps.indices_at(0).ranks[0]


def test_an_update_behind_what_a_prefetching_loader_read_is_refused() -> None:
    inner = make()
    steps = StepSampler(inner, micro_batch_size=8, global_batch_size=8)
    loader = iter(DataLoader(range(750), batch_size=8, sampler=steps, num_workers=2))
    next(loader)
    inner.update_weights([0, 0, 1], epoch=0, position=8)  # step 1: already prefetched
    with pytest.raises(ConfigError, match="already handed out"):
        for _ in range(10):
            next(loader)


def _online_rank(rank: int, world: int) -> Any:
    sampler = make(rank, world)
    noise = 1e-9 * rank  # ranks' loss statistics differ in the last bits
    applied = sampler.update_weights([0.2 + noise, 0.3, 0.5], epoch=0, position=64)
    plan = sampler.plan(0).take(np.arange(N)).tolist()
    try:
        sampler.update_weights([1, 1, 1], epoch=0, position=100 + rank)
    except RankMismatchError as exc:
        mismatch = str(exc)
    else:
        mismatch = ""
    return applied.tolist(), plan, mismatch


@pytest.mark.distributed
def test_weights_are_identical_on_every_rank_under_gloo() -> None:
    results = run_ranks(_online_rank, 2)
    assert results[0][0] == results[1][0] == [0.2, 0.3, 0.5]  # rank 0's weights
    assert results[0][1] == results[1][1]
    assert all("position" in r[2] for r in results)  # every rank raised, naming the field


class TestOnlineMixtureContract(SamplerContract):
    def make(self, rank: int, world_size: int, **kwargs: Any) -> Any:
        sampler = OnlineMixtureSampler(
            [30, 20, 7],
            [0.5, 0.3, 0.2],
            num_samples=57,
            num_replicas=world_size,
            rank=rank,
            seed=5,
            **kwargs,
        )
        sampler.update_weights([0.1, 0.1, 0.8], epoch=0, position=20)
        return sampler
