"""Step-addressed endless plans: ``StepSampler``, ``BatchSchedule``, ``SkipRanges``.

For every family of the catalog: the stream crosses epoch boundaries without
``set_epoch``, resumes from a step count alone or from a state on another
world size, ``indices_at`` equals what the ranks yield, and the samples of a
global step do not depend on ``(world size, per-rank batch, accumulation)``.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairshard
from fairshard import BatchSchedule, ConfigError, StateDictError, StepSampler
from fairshard._core.steps import SkipRanges, deal

from ..catalog import CATALOG, sampler_families
from ..contract import flat

#: Every family with a plan (the catalog's samplers), but those StepSampler refuses.
FAMILIES: dict[str, Any] = {
    f.name: f.make
    for f in sampler_families()
    if f.name not in ("hard-example", "key-batch-per-step")  # refused: see below
}

N = 37  # a prime: steps straddle epoch ends at every offset
G = 8
LAYOUTS = [(1, 8), (2, 4), (4, 2), (8, 1), (2, 2), (4, 1), (1, 2)]  # (W, b); A = G / (W*b)


def _stream(family: str, world: int, rank: int, b: int, **kw: Any) -> StepSampler:
    inner = FAMILIES[family](N, rank, world)
    return StepSampler(inner, micro_batch_size=b, **({"global_batch_size": G} | kw))


def _take_steps(sampler: StepSampler, first_step: int, steps: int) -> list[list[Any]]:
    """Per step, what the rank yields (the accumulation count may change by step)."""
    it = iter(sampler)
    out = []
    for s in range(first_step, first_step + steps):
        count = sampler.accumulation_steps(s) * sampler.micro_batch_size
        out.append([next(it) for _ in range(count)])
    return out


def _union(per_rank: list[list[Any]]) -> Counter[int]:
    return Counter(flat([item for items in per_rank for item in items]))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_stream_crosses_epochs_and_resumes_from_a_step_count(family: str) -> None:
    steps = 3 * N // G + 2  # about three epochs, no set_epoch
    full = [_take_steps(_stream(family, 2, r, 2), 0, steps) for r in range(2)]
    view = _stream(family, 2, 0, 2)
    epochs_seen = {e for s in range(steps) for per in view.indices_at(s).epochs for e in per}
    assert len(epochs_seen) >= 3
    for s in (0, 5, steps - 2):
        for r in range(2):
            # from the step count alone: no state, no replay
            resumed = _take_steps(_stream(family, 2, r, 2, start_step=s), s, 2)
            assert resumed == full[r][s : s + 2]
        assert [view.indices_at(s).ranks[r] for r in range(2)] == [full[r][s] for r in range(2)]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_state_resumes_on_another_world_size(family: str) -> None:
    first = [_stream(family, 4, r, 1) for r in range(4)]
    for sampler in first:
        _take_steps(sampler, 0, 4)
    state = json.loads(json.dumps(first[0].state_dict()))
    assert state["steps"] == 4 * G and state["extra"]["step"] == 4
    after = []
    for r in range(2):
        second = _stream(family, 2, r, 2)
        second.load_state_dict(state)
        after.append(_take_steps(second, 4, 3))
    for k in range(3):
        assert _union([a[k] for a in after]) == _union(first[0].indices_at(4 + k).ranks)


@settings(max_examples=25, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    step=st.integers(min_value=0, max_value=40),
    layouts=st.lists(st.sampled_from(LAYOUTS), min_size=2, max_size=3, unique=True),
)
def test_global_batch_invariance_over_world_batch_and_accumulation(
    family: str, step: int, layouts: list[tuple[int, int]]
) -> None:
    """Step ``step`` holds the same samples for any ``(W, b, A)`` with ``W*b*A = G``."""
    unions = []
    for world, b in layouts:
        ranks = [
            _take_steps(_stream(family, world, r, b, start_step=step), step, 1)[0]
            for r in range(world)
        ]
        assert len({len(items) for items in ranks}) == 1  # equal steps on every rank
        unions.append(_union(ranks))
    assert all(u == unions[0] for u in unions)


def test_deal_is_a_partition_of_the_step() -> None:
    for world, b in LAYOUTS:
        got = np.concatenate([deal(100, G, 0, world, r, b) for r in range(world)])
        assert sorted(got.tolist()) == list(range(100, 100 + G))


# ------------------------------------------------------------------ schedules
def _megatron_sizes(start: int, incr: int, ramp: int, final: int, steps: int) -> list[int]:
    """Megatron's rampup calculator, replayed step by step (exact integer form)."""
    k_max = (final - start) // incr
    consumed, sizes = 0, []
    for _ in range(steps):
        size = final if consumed > ramp else min(final, start + (consumed * k_max // ramp) * incr)
        sizes.append(size)
        consumed += size
    return sizes


@pytest.mark.parametrize(
    ("start", "incr", "ramp", "final"), [(4, 4, 16, 12), (8, 8, 1000, 64), (2, 2, 7, 10)]
)
def test_ramp_matches_the_replayed_calculator(start: int, incr: int, ramp: int, final: int) -> None:
    sched = BatchSchedule.ramp(start=start, increment=incr, ramp_samples=ramp, final=final)
    sizes = _megatron_sizes(start, incr, ramp, final, 200)
    assert [sched.size(s) for s in range(200)] == sizes
    assert [sched.first(s) for s in range(200)] == list(itertools.accumulate([0, *sizes[:-1]]))
    for s in (0, 3, 17, 199):
        assert sched.locate(sched.first(s) + 1) == (s, 1)


def test_step_schedule_and_errors() -> None:
    sched = BatchSchedule.steps({0: 4, 10: 8})
    assert [sched.size(s) for s in range(5)] == [4, 4, 4, 8, 8]  # step 3 starts at sample 12
    with pytest.raises(ConfigError, match="from sample 0"):
        BatchSchedule([(5, 4)])
    with pytest.raises(ConfigError, match="multiple of increment"):
        BatchSchedule.ramp(start=4, increment=3, ramp_samples=10, final=12)
    inner = fairshard.DistributedSampler(10, num_replicas=4, rank=0)
    with pytest.raises(ConfigError, match="not a multiple of num_replicas"):
        StepSampler(inner, micro_batch_size=2, schedule=BatchSchedule.steps({0: 8, 8: 12}))
    with pytest.raises(ConfigError, match="exactly one"):
        StepSampler(inner, micro_batch_size=2)


# ------------------------------------------------------------------ skipping
@pytest.mark.parametrize("family", ["distributed", "weighted", "length-bucket"])
def test_skipped_ranges_are_absent_on_every_rank_and_after_resume(family: str) -> None:
    skip = [(10, 19), (30, 31), (50, 60)]
    banned = {p for a, b in skip for p in range(a, b)}
    ranks = [_stream(family, 2, r, 2, skip=skip) for r in range(2)]
    plain = _stream(family, 2, 0, 2)
    seen = []
    for s in range(10):
        view = ranks[0].indices_at(s)
        seen.extend(p for pos in view.positions for p in pos)
        got = [
            _take_steps(_stream(family, 2, r, 2, skip=skip, start_step=s), s, 1)[0]
            for r in range(2)
        ]
        assert got == view.ranks
    assert not banned & set(seen)
    assert sorted(seen) == [p for p in range(max(seen) + 1) if p not in banned]
    # the items are the unskipped stream's items at those positions
    stream_items = {}
    for s in range(13):
        v = plain.indices_at(s)
        for pos, items in zip(v.positions, v.ranks, strict=True):
            stream_items.update(zip(pos, items, strict=True))
    v = ranks[1].indices_at(3)
    assert v.ranks[1] == [stream_items[p] for p in v.positions[1]]
    # the state records the ranges passed; a resume must keep them
    _take_steps(ranks[0], 0, 4)  # 32 samples: up to position 42
    state = ranks[0].state_dict()
    assert state["extra"]["skip"] == [[10, 19], [30, 31]]
    again = _stream(family, 2, 1, 2, skip=[*skip, (200, 210)])  # a new range ahead is fine
    again.load_state_dict(state)
    assert _take_steps(again, 4, 1)[0] == ranks[0].indices_at(4).ranks[1]
    with pytest.raises(StateDictError, match="skipped the stream ranges"):
        _stream(family, 2, 0, 2).load_state_dict(state)


def test_skip_ranges_merge_and_map() -> None:
    s = SkipRanges([(8, 10), (2, 4), (3, 5)])
    assert s.ranges == ((2, 5), (8, 10))
    assert s.position(np.arange(8)).tolist() == [0, 1, 5, 6, 7, 10, 11, 12]
    with pytest.raises(ConfigError, match="a < b"):
        SkipRanges([(3, 3)])


def test_positions_of_steps_is_the_range_to_skip() -> None:
    sampler = _stream("distributed", 2, 0, 2, skip=[(4, 6)])
    a, b = sampler.positions_of_steps(2, 4)
    assert (a, b) == (2 * G + 2, 4 * G + 2)
    skipped = _stream("distributed", 2, 0, 2, skip=[(4, 6), (a, b)])
    assert skipped.indices_at(2).positions[0][0] == b


def test_with_epoch_reports_epoch_boundaries() -> None:
    sampler = _stream("distributed", 1, 0, 8, with_epoch=True)
    items = _take_steps(sampler, 0, 5)
    epochs = [e for step in items for e, _ in step]
    assert epochs == sorted(epochs) and epochs[N - 1] == 0 and epochs[N] == 1


def test_state_under_prefetching_loader_needs_the_step() -> None:
    from torch.utils.data import DataLoader

    sampler = _stream("distributed", 1, 0, 4)
    loader = DataLoader(range(N), batch_size=4, sampler=sampler, num_workers=2)
    it = iter(loader)
    next(it)
    with pytest.raises(ConfigError, match="prefetches"):
        sampler.state_dict()
    assert sampler.state_dict(step=3)["steps"] == 3 * G
    del it


def test_a_family_that_learns_at_set_epoch_is_refused() -> None:
    inner = CATALOG["hard-example"].make(N, 0, 1)
    with pytest.raises(ConfigError, match="set_epoch"):
        StepSampler(inner, micro_batch_size=1, global_batch_size=G)


def test_a_plan_laid_out_for_the_world_size_is_refused() -> None:
    inner = CATALOG["key-batch-per-step"].make(N, 0, 2)
    with pytest.raises(ConfigError, match="one_key_per_step=True.*num_replicas=2"):
        StepSampler(inner, micro_batch_size=1, global_batch_size=G)
