"""MixtureSampler weights: rounding floats to quotas, curricula in states, pickling, num_samples.

The rounding bound (``interleave``'s NOTE): every positive weight keeps a slot;
each realized proportion is within ``1 / M`` of its target, or ``(1 + m) / M``
when ``m`` positive weights are below ``1 / M`` of the total; more positive
weights than ``M = max_period`` are refused.
"""

from __future__ import annotations

import pickle
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import ConfigError, MixtureSampler, StateDictError
from fairshard._samplers.interleave import quotas_from_weights

# Zero, tiny (subnormal), ordinary and huge weights.
WEIGHT = st.one_of(
    st.just(0.0),
    st.floats(5e-324, 1e-300),
    st.floats(1e-12, 1e-6),
    st.floats(0.0, 1e3),
    st.floats(1e300, 1.7e308),
)


def check_rounding(weights: list[float], max_period: int) -> None:
    array = np.asarray(weights, dtype=np.float64)
    positive = array > 0
    if int(positive.sum()) > max_period:
        with pytest.raises(ConfigError, match=r"max_period=\d+ or more"):
            quotas_from_weights(array, max_period)
        return
    quotas = quotas_from_weights(array, max_period)
    period = int(quotas.sum())
    assert 0 < period <= max_period
    assert ((quotas > 0) == positive).all(), "every positive weight drawn, no zero weight"
    exact = [Fraction(w) for w in weights]  # the targets, without floating-point error
    total = sum(exact)
    tiny = sum(1 for w in exact if 0 < w / total < Fraction(1, max_period))
    bound = Fraction(1 + tiny, max_period) if tiny else Fraction(1, max_period)
    for q, w in zip(quotas.tolist(), exact, strict=True):
        assert abs(Fraction(q, period) - w / total) < bound + Fraction(1, 10**9)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(WEIGHT, min_size=1, max_size=40).filter(lambda w: any(v > 0 for v in w)),
    st.sampled_from([2, 3, 7, 64, 1000, 1 << 16]),
)
def test_float_weights_round_within_the_stated_bound(weights: list[float], period: int) -> None:
    check_rounding(weights, period)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3000), st.floats(1e-15, 1e-3), st.sampled_from([16, 1024, 1 << 16]))
def test_many_tiny_weights_beside_a_large_one(count: int, tiny: float, period: int) -> None:
    check_rounding([1.0] + [tiny] * count, period)


def test_tiny_weights_take_their_slots_within_the_documented_error() -> None:
    s = MixtureSampler([10] * 1000, [1] + [1e-9] * 999, num_replicas=1, rank=0)
    assert (s.quotas() >= 1).all()
    assert abs(s.proportions()[0] - 1.0) < 1000 / 65536  # the (1 + m) / M of the docs


def test_a_weight_raised_to_one_slot_gets_no_second() -> None:
    # shares of max_period=10: 3.5, 3.5, 2.1, 0.9 -> the 0.9 keeps one slot, not two
    quotas = quotas_from_weights(np.array([0.35, 0.35, 0.21, 0.09]) * np.pi, 10)
    assert quotas.tolist() == [4, 3, 2, 1]


def test_more_positive_weights_than_slots_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"30 sources .* max_period=20 .* max_period=32"):
        MixtureSampler([1] * 30, stopping="all_exhausted", max_period=20, num_replicas=1, rank=0)
    s = MixtureSampler([1] * 30, stopping="all_exhausted", max_period=32, num_replicas=1, rank=0)
    assert sorted(s) == list(range(30))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 5), min_size=1, max_size=8),
    st.lists(st.floats(1e-12, 1e12), min_size=8, max_size=8),
)
def test_all_exhausted_sees_every_positive_source(sizes: list[int], raw: list[float]) -> None:
    s = MixtureSampler(
        sizes, raw[: len(sizes)], stopping="all_exhausted", max_period=64, num_replicas=1, rank=0
    )
    assert set(s) == set(range(sum(sizes)))


# ------------------------------------------------------------- curricula
def _one_to_one(epoch: int) -> list[int]:
    return [1, 1]


def _nine_to_one(epoch: int) -> list[int]:
    return [9, 1]


def test_a_curriculum_is_fingerprinted_by_its_values() -> None:
    def curriculum(epoch: int) -> list[int]:  # the same name for both mixtures
        return [1, 1]

    saved = MixtureSampler([50, 50], curriculum, num_replicas=1, rank=0)
    it = iter(saved)
    next(it)
    state = saved.state_dict()

    def curriculum(epoch: int) -> list[int]:  # type: ignore[no-redef]  # 9:1 now
        return [9, 1]

    with pytest.raises(StateDictError, match="weights"):
        MixtureSampler([50, 50], curriculum, num_replicas=1, rank=0).load_state_dict(state)
    same = MixtureSampler([50, 50], lambda e: [2, 2], num_replicas=1, rank=0)
    same.load_state_dict(state)  # the same proportions, under another name
    assert same.remaining == 99 and len(same) == 100


def test_a_curriculum_that_changes_later_is_told_apart() -> None:
    state = MixtureSampler(
        [50, 50], lambda e: [1, 1] if e < 40 else [9, 1], num_replicas=1, rank=0
    ).state_dict()
    with pytest.raises(StateDictError, match="weights"):
        MixtureSampler(
            [50, 50], lambda e: [1, 1] if e < 30 else [9, 1], num_replicas=1, rank=0
        ).load_state_dict(state)


def test_a_curriculum_defined_on_a_few_epochs_only() -> None:
    table = [[1, 1], [1, 2], [1, 3]]
    s = MixtureSampler([50, 50], lambda e: table[e], num_samples=60, num_replicas=1, rank=0)
    assert s.draws(2).tolist() == [15, 45]
    state = s.state_dict()
    MixtureSampler([50, 50], lambda e: table[e], num_replicas=1, rank=0, num_samples=60)
    other = MixtureSampler(
        [50, 50], lambda e: table[::-1][e], num_samples=60, num_replicas=1, rank=0
    )
    with pytest.raises(StateDictError, match="weights"):
        other.load_state_dict(state)


def test_a_callable_alpha_is_fingerprinted_by_its_values() -> None:
    def alpha(epoch: int) -> float:
        return 1.0

    state = MixtureSampler([90, 10], alpha=alpha, num_replicas=1, rank=0).state_dict()

    def alpha(epoch: int) -> float:  # type: ignore[no-redef]
        return 0.0

    with pytest.raises(StateDictError, match="alpha"):
        MixtureSampler([90, 10], alpha=alpha, num_replicas=1, rank=0).load_state_dict(state)


# -------------------------------------------------------------- pickling
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"weights": [3, 1]},
        {"alpha": 0.5},
        {"weights": _one_to_one},
        {"weights": _nine_to_one, "stopping": "first_exhausted"},
    ],
)
def test_every_kind_of_weights_pickles_mid_pass(kwargs: dict[str, Any]) -> None:
    def make() -> MixtureSampler:
        return MixtureSampler([40, 20], num_replicas=2, rank=1, seed=4, **kwargs)

    full = list(make())
    s = make()
    it = iter(s)
    head = [next(it) for _ in range(5)]
    twin = pickle.loads(pickle.dumps(s))
    assert twin.state_dict() == s.state_dict()
    twin.load_state_dict(s.state_dict())
    assert head + list(twin) == full


# ---------------------------------------------------- num_samples and drop
def test_drop_with_fewer_draws_than_ranks_fails_at_construction() -> None:
    with pytest.raises(ConfigError, match="tail='drop' with 3 plan items .* tail='pad'"):
        MixtureSampler([10, 10], num_samples=3, tail="drop", num_replicas=4, rank=0)
    with pytest.raises(ConfigError, match="tail='drop' with 2 plan items"):
        MixtureSampler(
            [1, 9], stopping="first_exhausted", tail="drop", num_replicas=4, rank=0
        )  # 1:1 ends after 2 draws
    with pytest.raises(ConfigError, match=r"tail='drop' with 2 plan items \(epoch 0\)"):
        MixtureSampler(
            [1, 9],
            lambda e: [1, 1],
            stopping="first_exhausted",
            tail="drop",
            num_replicas=4,
            rank=0,
        )


@pytest.mark.parametrize("stopping", ["upsample", "first_exhausted", "all_exhausted"])
def test_num_samples_is_the_epochs_draws_over_all_ranks(stopping: str) -> None:
    ranks = [
        MixtureSampler([100, 10], [1, 1], stopping=stopping, num_replicas=3, rank=r)  # type: ignore[arg-type]  # a str from parametrize
        for r in range(3)
    ]
    s = ranks[0]
    assert s.num_samples == int(s.draws().sum()) == len(s.plan())
    assert s.num_samples == {"upsample": 110, "first_exhausted": 21, "all_exhausted": 199}[stopping]
    assert sum(len(list(r)) for r in ranks) == s.total_size >= s.num_samples
