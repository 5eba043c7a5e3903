"""``KeyBatchSampler(one_key_per_step=True)``: one key per global step.

Every rank's batch of a step holds the same key (mosaicml streaming's
``batching_method="per_stream"``); ranks are disjoint beyond the declared
padding, cover the epoch but for what is declared left out, take equal
steps, and ``len()`` is exact. The plan is laid out for the world size, so a
state is refused on another one and a ``StepSampler`` refuses the mode.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    ConfigTypeError,
    KeyBatchSampler,
    StateDictError,
    StepSampler,
    simulate,
)
from fairshard._batching.buckets import key_runs
from tests.strategies import seeds


def _ranks(keys: Any, batch_size: int, world: int, **kw: Any) -> list[KeyBatchSampler]:
    return [
        KeyBatchSampler(keys, batch_size, num_replicas=world, rank=r, one_key_per_step=True, **kw)
        for r in range(world)
    ]


def _shares(samplers: list[KeyBatchSampler]) -> list[list[list[int]]]:
    return [[list(map(int, b)) for b in s] for s in samplers]


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.integers(0, 5), min_size=1, max_size=200),
    batch_size=st.integers(1, 6),
    world=st.integers(1, 6),
    tail=st.sampled_from(["pad", "drop"]),
    drop_last=st.booleans(),
    seed=seeds,
)
def test_every_step_holds_one_key_ranks_disjoint_and_covering(
    keys: list[int], batch_size: int, world: int, tail: str, drop_last: bool, seed: int
) -> None:
    try:
        samplers = _ranks(keys, batch_size, world, tail=tail, drop_last=drop_last, seed=seed)
    except ConfigError as exc:  # no key fills one step (drop), or none fills a batch
        assert "no key" in str(exc) or "no bucket" in str(exc)
        return
    shares = _shares(samplers)
    first = samplers[0]
    assert {len(s) for s in shares} == {len(first)}  # equal steps, len() exact
    assert all(len(s) == len(share) for s, share in zip(samplers, shares, strict=True))
    for step in zip(*shares, strict=True):
        assert len({first.key_of(b) for b in step}) == 1  # one key per global step
    for b in (b for share in shares for b in share):
        assert len({keys[i] for i in b}) == 1  # one key per batch, as ever
    batches = [tuple(b) for share in shares for b in share]
    assert len(batches) == len(first.plan()) == len(first) * world
    repeats = sum(c - 1 for c in Counter(batches).values())
    assert repeats == first.num_padded_batches  # disjoint beyond the declared padding
    items = {i for b in batches for i in b}
    assert len(items) == len(keys) - first.num_left_out  # covering beyond what is left out
    assert sum(n for n in first.shapes.values()) == len(batches) - first.num_padded_batches
    if tail == "drop":
        assert first.num_padded_batches == 0
    else:
        assert first.num_dropped_batches == 0


@pytest.mark.parametrize("tail", ["pad", "drop"])
def test_one_rank_gets_the_plain_family_plan(tail: str) -> None:
    keys = np.arange(97) % 4
    plain = KeyBatchSampler(keys, 5, num_replicas=1, rank=0, tail=tail)
    per_step = KeyBatchSampler(keys, 5, num_replicas=1, rank=0, tail=tail, one_key_per_step=True)
    assert [list(b) for b in plain] == [list(b) for b in per_step]


def test_short_runs_pad_from_the_keys_head_or_are_left_out() -> None:
    assert key_runs([5, 1, 0], 2, pad=True).tolist() == [[0, 1], [2, 3], [4, 0], [5, 5]]
    assert key_runs([5, 1, 0], 2, pad=False).tolist() == [[0, 1], [2, 3]]
    keys = [0] * 12 + [1] * 4  # batches of 4: key 0 has 3, key 1 has 1; 2 ranks
    pad = _ranks(keys, 4, 2)
    assert (pad[0].num_padded_batches, pad[0].num_left_out, len(pad[0])) == (2, 0, 3)
    drop = _ranks(keys, 4, 2, tail="drop")
    assert (drop[0].num_dropped_batches, drop[0].num_left_out, len(drop[0])) == (2, 8, 1)
    assert drop[0].shapes == {(4, 0): 2}


def test_same_seed_same_plan_and_set_epoch_reshuffles_the_runs() -> None:
    keys = np.arange(400) % 5
    a, b = _ranks(keys, 4, 4, seed=3)[1], _ranks(keys, 4, 4, seed=3)[1]
    first = [list(x) for x in a]
    assert first == [list(x) for x in b]
    a.set_epoch(1)
    assert [list(x) for x in a] != first


@pytest.mark.parametrize("taken", [0, 1, 4, 9])
def test_state_round_trips_mid_epoch(taken: int) -> None:
    keys = np.arange(301) % 6
    whole = _shares(_ranks(keys, 4, 3, seed=7))
    for rank, sampler in enumerate(_ranks(keys, 4, 3, seed=7)):
        it = iter(sampler)
        head = [list(map(int, next(it))) for _ in range(taken)]
        state = sampler.state_dict()
        resumed = KeyBatchSampler(keys, 4, num_replicas=3, rank=rank, seed=7, one_key_per_step=True)
        resumed.load_state_dict(state)
        assert len(resumed) == len(whole[rank])
        assert head + [list(map(int, b)) for b in resumed] == whole[rank]


def test_a_state_is_refused_on_another_world_size_or_mode() -> None:
    keys = np.arange(301) % 6
    sampler = _ranks(keys, 4, 4)[0]
    it = iter(sampler)
    next(it)
    state = sampler.state_dict()
    with pytest.raises(StateDictError) as info:
        _ranks(keys, 4, 2)[0].load_state_dict(state)
    message = str(info.value)
    assert "num_replicas=4" in message and "num_replicas=2" in message
    assert "Resume on num_replicas=4" in message
    with pytest.raises(StateDictError, match="one_key_per_step=True but this sampler has"):
        KeyBatchSampler(keys, 4, num_replicas=4, rank=0).load_state_dict(state)
    plain = KeyBatchSampler(keys, 4, num_replicas=4, rank=0)
    with pytest.raises(StateDictError, match="one_key_per_step=False"):
        _ranks(keys, 4, 4)[0].load_state_dict(plain.state_dict())


def test_the_config_records_the_mode_and_its_run() -> None:
    keys = np.arange(50) % 3
    assert _ranks(keys, 2, 3)[0].full_config()["step_run"] == 3
    assert "step_run" not in KeyBatchSampler(keys, 2, num_replicas=3, rank=0).full_config()


def test_bad_values_are_named() -> None:
    keys = np.arange(50) % 3
    with pytest.raises(ConfigTypeError, match="one_key_per_step must be a bool.*=1"):
        KeyBatchSampler(keys, 2, num_replicas=2, rank=0, one_key_per_step=1)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="tail='uneven'"):
        _ranks(keys, 2, 2, tail="uneven")
    with pytest.raises(ConfigError, match="no key has that many.*tail='pad'"):
        _ranks(keys, 20, 4, tail="drop")
    with pytest.raises(ConfigError, match="StepSampler's plans must not depend on the world"):
        StepSampler(_ranks(keys, 2, 2)[0], micro_batch_size=1, global_batch_size=2)


@pytest.mark.parametrize("tail", ["pad", "drop"])
def test_the_simulator_finds_no_problem(tail: str) -> None:
    keys = np.arange(203) % 5

    def make(rank: int, world_size: int) -> KeyBatchSampler:
        return KeyBatchSampler(
            keys, 4, num_replicas=world_size, rank=rank, tail=tail, one_key_per_step=True
        )

    report = simulate(make, 3, epochs=2, dataset_size=keys.size)
    assert report.problems == []
