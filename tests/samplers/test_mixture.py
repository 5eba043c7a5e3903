"""MixtureSampler: exact proportions over prefixes, per-source epochs, the contract."""

from __future__ import annotations

import json
import resource
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import ConcatDataset, DataLoader

import fairshard
from fairshard import ConfigError, ConfigTypeError, LinearAnneal, MixtureSampler, StateDictError

from ..contract import SamplerContract

SIZES = [300, 120, 45, 0, 7]
WEIGHTS = [0.5, 0.25, 0.15, 0.0, 0.1]


class TestMixtureUpsample(SamplerContract):
    max_padding_per_rank = 1

    def make(self, rank: int, world_size: int, **kw: Any) -> MixtureSampler:
        return MixtureSampler(
            SIZES, WEIGHTS, num_samples=1001, num_replicas=world_size, rank=rank, seed=3, **kw
        )


class TestMixtureFirstExhaustedDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> MixtureSampler:
        return MixtureSampler(
            SIZES,
            WEIGHTS,
            stopping="first_exhausted",
            num_replicas=world_size,
            rank=rank,
            seed=5,
            tail="drop",
            **kw,
        )


class TestMixtureAllExhaustedAnnealed(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> MixtureSampler:
        return MixtureSampler(
            SIZES,
            alpha=LinearAnneal(1.0, 0.3, epochs=3),
            stopping="all_exhausted",
            num_replicas=world_size,
            rank=rank,
            seed=8,
            **kw,
        )


def deviation(sources: np.ndarray, proportions: np.ndarray) -> float:
    """Worst |count - target| over every prefix and source."""
    counts = np.zeros((sources.size + 1, proportions.size))
    counts[np.arange(1, sources.size + 1), sources] = 1
    counts = counts.cumsum(axis=0)
    targets = np.arange(sources.size + 1)[:, None] * proportions[None, :]
    return float(np.abs(counts - targets).max())


@given(
    st.lists(st.floats(0.0, 1e3, allow_nan=False), min_size=1, max_size=10).filter(
        lambda w: sum(w) > 1e-3
    ),
    st.integers(1, 4000),
)
def test_every_prefix_within_one_sample(weights: list[float], length: int) -> None:
    s = MixtureSampler([10**6] * len(weights), weights, num_samples=length, num_replicas=1, rank=0)
    plan = s.plan()
    sources = plan.sources(np.arange(length, dtype=np.int64))
    active = int(np.count_nonzero(s.quotas()))
    bound = 1 - 1 / (2 * active - 2) if active > 1 else 0.0
    assert deviation(sources, s.proportions()) <= bound + 1e-9


@given(st.lists(st.integers(1, 60), min_size=1, max_size=6), st.integers(0, 2**32))
def test_first_exhausted_draws_every_item_at_most_once(sizes: list[int], seed: int) -> None:
    s = MixtureSampler(sizes, stopping="first_exhausted", num_replicas=1, rank=0, seed=seed)
    items = list(s)
    assert len(items) == len(set(items))
    assert s.passes().max() == 1
    draws = s.draws()
    assert any(draws[i] == sizes[i] for i in range(len(sizes)))  # one source ran out


@given(st.lists(st.integers(1, 60), min_size=1, max_size=6), st.integers(0, 2**32))
def test_all_exhausted_sees_every_item(sizes: list[int], seed: int) -> None:
    s = MixtureSampler(sizes, stopping="all_exhausted", num_replicas=1, rank=0, seed=seed)
    assert set(s) == set(range(sum(sizes)))


def test_sources_reshuffle_per_pass_and_report_passes() -> None:
    s = MixtureSampler([10, 1000], [1, 1], num_samples=200, num_replicas=1, rank=0, seed=1)
    items = list(s)
    small = [i for i in items if i < 10]
    assert len(small) == 100
    passes = [small[k : k + 10] for k in range(0, 100, 10)]
    assert all(sorted(p) == list(range(10)) for p in passes)  # each pass a permutation
    assert len({tuple(p) for p in passes}) > 1  # and re-shuffled
    assert s.passes().tolist() == [10, 1]
    assert s.draws().tolist() == [100, 100]


def test_global_indices_follow_concat_dataset() -> None:
    parts = [list(range(100, 105)), list(range(200, 203))]
    sampler = MixtureSampler(parts, num_replicas=1, rank=0)
    loader = DataLoader(ConcatDataset(parts), sampler=sampler, batch_size=None)
    got = Counter(int(v) for v in loader)
    assert sum(got.values()) == 8
    assert set(got) <= set(parts[0]) | set(parts[1])
    assert sampler.source_of(5) == 1 and sampler.source_of(4) == 0


def test_integer_and_decimal_weights_are_exact() -> None:
    assert MixtureSampler([5, 5, 5], [0.7, 0.2, 0.1]).quotas().tolist() == [7, 2, 1]
    assert MixtureSampler([5, 5], [3, 1]).quotas().tolist() == [3, 1]
    s = MixtureSampler([5, 5], [np.pi, 1.0])
    assert s.quotas().sum() == 1 << 16  # rounded to 1/65536
    assert abs(s.proportions()[0] - np.pi / (np.pi + 1)) < 2**-16


def test_weights_schedule_changes_proportions_per_epoch() -> None:
    s = MixtureSampler([50, 50], lambda e: [1, 1 + e], num_samples=60, num_replicas=1, rank=0)
    assert s.draws(0).tolist() == [30, 30]
    assert s.draws(2).tolist() == [15, 45]


def test_one_billion_draws_in_constant_memory() -> None:
    s = MixtureSampler(
        [10**8] * 10, np.arange(1, 11), num_samples=10**9, num_replicas=8, rank=5, seed=2
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    plan = s.plan()
    tail = plan.take(np.arange(10**9 - 50_000, 10**9, dtype=np.int64))
    assert tail.min() >= 0 and tail.max() < 10**9
    state = s.state_dict()
    state = {**state}
    it = iter(s)
    head = [next(it) for _ in range(20_000)]
    assert len(head) == 20_000
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024  # far below the 8 GB an index array of the plan needs
    assert json.loads(json.dumps(state))["kind"] == "MixtureSampler"


def test_resume_on_another_world_size_far_into_a_long_epoch() -> None:
    old = MixtureSampler([10**7, 10**6], [2, 1], num_samples=10**8, num_replicas=4, rank=0)
    old.load_state_dict({**old.state_dict()})  # a fresh state loads
    it = iter(old)
    for _ in range(5):
        next(it)
    state = old.state_dict()
    new = [
        MixtureSampler([10**7, 10**6], [2, 1], num_samples=10**8, num_replicas=3, rank=r)
        for r in range(3)
    ]
    for s in new:
        s.load_state_dict(state)
    assert {s.remaining for s in new} == {(10**8 - 20 + 2) // 3}
    assert {len(s) for s in new} == {5 + (10**8 - 20 + 2) // 3}  # the 5 steps taken, and the rest


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"sources": []}, ConfigError, "sources is empty"),
        ({"sources": "abc"}, ConfigTypeError, "sequence of datasets"),
        ({"sources": [3, 1.5]}, ConfigTypeError, r"sources\[1\]"),
        ({"sources": [0, 0]}, ConfigError, "every source is empty"),
        ({"sources": [3, 0], "weights": [1, 1]}, ConfigError, "source 1 is empty"),
        ({"sources": [3, 4], "weights": [1]}, ConfigError, "2 sources"),
        ({"sources": [3, 4], "weights": [-1, 1]}, ConfigError, "negative"),
        ({"sources": [3, 4], "weights": [1, 1], "alpha": 1.0}, ConfigError, "not both"),
        ({"sources": [3, 4], "stopping": "longest"}, ConfigError, "stopping"),
        (
            {"sources": [3, 4], "stopping": "first_exhausted", "num_samples": 5},
            ConfigError,
            "drop num_samples",
        ),
        ({"sources": [3, 4], "num_samples": 0}, ConfigError, "num_samples"),
    ],
)
def test_bad_configs_name_the_fix(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        MixtureSampler(**kwargs, num_replicas=1, rank=0)


def test_state_from_other_weights_is_rejected() -> None:
    state = MixtureSampler([10, 10], [1, 1], num_replicas=1, rank=0).state_dict()
    with pytest.raises(StateDictError, match="weights"):
        MixtureSampler([10, 10], [1, 2], num_replicas=1, rank=0).load_state_dict(state)


def test_exported() -> None:
    assert fairshard.MixtureSampler is MixtureSampler


def test_simulator_checks_the_mixture() -> None:
    report = fairshard.simulate(
        lambda rank, world: MixtureSampler(
            SIZES, WEIGHTS, stopping="first_exhausted", num_replicas=world, rank=rank
        ),
        world_size=3,
        dataset_size=sum(SIZES),
        epochs=2,
    )
    assert report.ok, report


def test_a_source_that_changes_length_is_named() -> None:
    parts = [list(range(10)), list(range(5))]
    s = MixtureSampler(parts, num_replicas=1, rank=0)
    list(s)
    parts[1].append(99)
    s.set_epoch(1)
    with pytest.raises(ConfigError, match="source 1 had 5 samples .* has 6 now"):
        list(s)
