"""A ``StepSampler`` state resumed after the data changed: ``load_state_dict(state, migrate=)``.

The steps go on from the saved one, on any world size and micro-batch size;
the rest of the saved epoch holds exactly what was not consumed of it (kept
items mapped to their new indices, removed ones never, every appended one),
then the new data's epochs follow; a state taken later resumes exactly
without ``migrate``; and real gloo ranks yield what one process simulates.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    DataChange,
    DistributedSampler,
    FairshardWarning,
    LengthBucketBatchSampler,
    StateDictError,
    StepSampler,
    WeightedSampler,
)

from .._dist import run_ranks


def _steps(n: int, world: int, rank: int, micro: int, size: int = 12) -> StepSampler:
    inner = DistributedSampler(n, num_replicas=world, rank=rank, seed=3)
    return StepSampler(inner, micro_batch_size=micro, global_batch_size=size, with_epoch=True)


def _take(sampler: StepSampler, steps: int) -> list[tuple[int, int]]:
    per = steps * sampler.schedule.size(0) // sampler.num_replicas
    it = iter(sampler)
    return [next(it) for _ in range(per)]


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(10, 60),
    removed=st.sets(st.integers(0, 9), max_size=5),
    appended=st.integers(0, 25),
    steps=st.integers(0, 12),
    shape=st.sampled_from([(2, 3), (3, 2), (1, 6)]),
    new_shape=st.sampled_from([(2, 2), (4, 1), (6, 2), (1, 12)]),
)
def test_the_stream_goes_on_with_the_rest_of_the_epoch_then_the_new_data(
    n: int,
    removed: set[int],
    appended: int,
    steps: int,
    shape: tuple[int, int],
    new_shape: tuple[int, int],
) -> None:
    world, micro = shape
    old = [_steps(n, world, r, micro) for r in range(world)]
    taken = [item for s in old for item in _take(s, steps)]
    state = old[0].state_dict()
    assert state["extra"]["step"] == steps
    change = DataChange(n, removed=sorted(removed), appended=appended)
    new_world, new_micro = new_shape
    resumed = [_steps(change.new_size, new_world, r, new_micro) for r in range(new_world)]
    for s in resumed:
        s.load_state_dict(state, migrate=change)
    epoch = state["epoch"]
    consumed = {int(i) for e, i in taken if e == epoch}
    consumed_new = {int(i) for i in change.new_index(sorted(consumed)).tolist() if i >= 0}
    left = set(range(change.new_size)) - consumed_new
    horizon = -(-(len(left) + 2 * change.new_size) // 12) + 1  # steps past the next epoch
    shares = [_take(s, horizon) for s in resumed]
    rest = [i for share in shares for e, i in share if e == epoch]
    assert sorted(rest) == sorted(left)  # each item left once, the consumed never again
    assert all(e >= epoch for sh in shares for e, _ in sh)
    assert len({len(x) for x in shares}) == 1  # equal steps
    after = resumed[0].state_dict()
    assert after["extra"]["step"] == steps + horizon
    again = [_steps(change.new_size, new_world, r, new_micro) for r in range(new_world)]
    for s in again:
        s.load_state_dict(after)  # no migrate: the state carries its origin
    nxt = [_take(s, 2) for s in again]
    cont = [_take(s, 2) for s in resumed]
    assert nxt == cont  # exactly the same steps
    one = [i for e, i in (x for share in shares for x in share) if e == epoch + 1]
    assert len(one) == len(set(one))  # the next epoch: the new data's plan, each item once


def test_a_state_inside_the_migrated_epoch_carries_it_and_refuses_a_second_change() -> None:
    old = [_steps(100, 2, r, 2) for r in range(2)]
    [_take(s, 3) for s in old]
    state = old[0].state_dict()
    change = DataChange(100, removed=[1, 2], appended=6)
    s = _steps(104, 3, 0, 2)
    s.load_state_dict(state, migrate=change)
    _take(s, 1)
    inside = s.state_dict()
    assert inside["extra"]["migrated"]["consumed"] == 36  # 3 steps of 12 of epoch 0
    assert inside["extra"]["origin"] == [0, 36]  # the rest begins at stream position 36
    t = _steps(110, 3, 0, 2)
    with pytest.raises(ConfigError, match=r"inside a migrated epoch"):
        t.load_state_dict(inside, migrate=DataChange(104, appended=6))
    with pytest.raises(StateDictError, match=r"changed size.*migrate=DataChange\(100"):
        _steps(104, 3, 0, 2).load_state_dict(state)


def test_refusals_name_the_fix() -> None:
    lengths = [1 + i % 7 for i in range(40)]
    inner = LengthBucketBatchSampler(lengths, 2, num_replicas=1, rank=0, seed=0)
    batches = StepSampler(inner, micro_batch_size=1, global_batch_size=2)
    state = batches.state_dict()
    with pytest.raises(ConfigError, match=r"^migrate: LengthBucketBatchSampler builds its epoch"):
        batches.load_state_dict(state, migrate=DataChange(40))
    weights = StepSampler(
        WeightedSampler([1.0] * 30, num_replicas=1, rank=0), micro_batch_size=1, global_batch_size=3
    )
    _take_plain = iter(weights)
    [next(_take_plain) for _ in range(9)]
    saved = weights.state_dict()
    more = StepSampler(
        WeightedSampler([1.0] * 35, num_replicas=1, rank=0), micro_batch_size=1, global_batch_size=3
    )
    with pytest.raises(ConfigError, match=r"migrate leads to 36 items .* has n=35"):
        more.load_state_dict(saved, migrate=DataChange(30, appended=6))
    more = StepSampler(
        WeightedSampler([1.0] * 35, num_replicas=1, rank=0),
        micro_batch_size=1,
        global_batch_size=3,
        with_epoch=True,
    )
    more.load_state_dict(saved, migrate=DataChange(30, appended=5))
    it = iter(more)
    epochs = [next(it)[0] for _ in range(27)]
    assert epochs == [0] * 26 + [1]  # the epoch's 35 - 9 draws not taken, then the next


# ------------------------------------------------------------ real gloo ranks
N, CHANGE = 97, DataChange(97, removed=range(0, 97, 10), appended=31)


def first_job(rank: int, world: int) -> dict[str, Any]:
    job = StepSampler(
        DistributedSampler(N, seed=5), micro_batch_size=2, global_batch_size=8, with_epoch=True
    )
    it = iter(job)
    taken = [next(it) for _ in range(7 * 8 // world)]  # 7 steps
    return {"state": job.state_dict(), "taken": taken}


def migrated_job(rank: int, world: int, state: dict[str, Any]) -> list[Any]:
    job = StepSampler(
        DistributedSampler(CHANGE.new_size, seed=5),  # rank and world from the process group
        micro_batch_size=1,
        global_batch_size=8,
        with_epoch=True,
    )
    job.load_state_dict(state, migrate=CHANGE)
    it = iter(job)
    return [next(it) for _ in range(20 * 8 // world)]  # 20 steps


@pytest.mark.distributed
@pytest.mark.timeout(240)
def test_elastic_resume_on_changed_data_on_real_ranks() -> None:
    """Saved on 2 gloo ranks, resumed on 4 after the data changed: what one process simulates."""
    first = run_ranks(first_job, 2)
    state = first[0]["state"]
    rest = run_ranks(migrated_job, 4, state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairshardWarning)
        simulated = []
        for r in range(4):
            s = StepSampler(
                DistributedSampler(CHANGE.new_size, num_replicas=4, rank=r, seed=5),
                micro_batch_size=1,
                global_batch_size=8,
                with_epoch=True,
            )
            s.load_state_dict(state, migrate=CHANGE)
            simulated.append(_take(s, 20))
    assert [[tuple(x) for x in share] for share in rest] == [
        [tuple(x) for x in share] for share in simulated
    ]
    consumed = {int(i) for r in first for e, i in r["taken"] if e == 0}
    kept = {int(i) for i in CHANGE.new_index(sorted(consumed)).tolist() if i >= 0}
    epoch0 = sorted(int(i) for share in rest for e, i in share if e == 0)
    assert epoch0 == sorted(set(range(CHANGE.new_size)) - kept)
