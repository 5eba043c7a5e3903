import itertools
import json
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from fairshard import ConfigError, ConfigTypeError, StateDictError
from fairshard._samplers.weighted import WeightedSampler

from ..contract import SamplerContract

RNG = np.random.default_rng(11)
WEIGHTS = RNG.random(601) * (RNG.random(601) > 0.2)


class TestWeightedWithReplacement(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> WeightedSampler:
        return WeightedSampler(WEIGHTS, 1003, num_replicas=world_size, rank=rank, seed=4, **kw)


class TestWeightedWithReplacementDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> WeightedSampler:
        return WeightedSampler(
            WEIGHTS, 1003, num_replicas=world_size, rank=rank, seed=4, tail="drop", **kw
        )


class TestWeightedWithoutReplacement(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> WeightedSampler:
        return WeightedSampler(
            WEIGHTS, 400, replacement=False, num_replicas=world_size, rank=rank, seed=9, **kw
        )


class TestWeightedWithoutReplacementUneven(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> WeightedSampler:
        return WeightedSampler(
            WEIGHTS, replacement=False, num_replicas=world_size, rank=rank, tail="uneven", **kw
        )


def _all_ranks(sampler_args: dict[str, Any], world: int, epoch: int = 0) -> list[int]:
    out: list[int] = []
    for r in range(world):
        s = WeightedSampler(**sampler_args, num_replicas=world, rank=r)
        s.set_epoch(epoch)
        out.extend(s)
    return out


def test_with_replacement_frequencies_match_weights() -> None:
    w = np.array([0.0, 1.0, 2.0, 3.0, 0.5, 0.0, 8.0, 0.25])
    draws = _all_ranks({"weights": w, "num_samples": 200_000, "seed": 123}, 4, epoch=2)
    counts = np.bincount(draws, minlength=len(w))
    assert counts[w == 0].sum() == 0
    keep = w > 0
    expected = w[keep] / w.sum() * len(draws)
    assert stats.chisquare(counts[keep], expected).pvalue > 1e-3


def _inclusion_probabilities(w: np.ndarray, k: int) -> np.ndarray:
    """Exact P(item in a size-k successive weighted draw without replacement)."""
    n = len(w)
    incl = np.zeros(n)
    for order in itertools.permutations(range(n), k):
        p, left = 1.0, w.sum()
        for i in order:
            p *= w[i] / left
            left -= w[i]
        incl[list(order)] += p
    return incl


def test_without_replacement_inclusion_and_first_draw_frequencies() -> None:
    w = np.array([1.0, 2.0, 0.0, 4.0, 0.5, 3.0])
    trials, k = 6000, 3
    included = np.zeros(len(w))
    first = np.zeros(len(w))
    for epoch in range(trials):
        s = WeightedSampler(w, k, replacement=False, num_replicas=1, rank=0, seed=77)
        plan = s.plan(epoch)
        order = plan.take(np.arange(len(plan)))
        assert len(set(order.tolist())) == k and w[order].min() > 0
        included[order] += 1
        first[order[0]] += 1
    keep = w > 0
    exp_incl = _inclusion_probabilities(w, k) * trials
    # Each trial includes k items; test the inclusion counts as k categories' totals.
    assert stats.chisquare(included[keep], exp_incl[keep]).pvalue > 1e-3
    assert stats.chisquare(first[keep], w[keep] / w.sum() * trials).pvalue > 1e-3


@pytest.mark.parametrize("replacement", [True, False])
def test_zero_weight_never_drawn_across_seeds(replacement: bool) -> None:
    w = np.ones(50)
    w[::3] = 0.0
    num = 200 if replacement else int((w > 0).sum())
    for seed in range(40):
        drawn = _all_ranks(
            {"weights": w, "num_samples": num, "replacement": replacement, "seed": seed},
            3,
            epoch=seed % 5,
        )
        assert np.all(w[drawn] > 0), seed


def test_ranks_take_disjoint_positions_of_one_world_independent_plan() -> None:
    args = {"weights": WEIGHTS, "num_samples": 999, "seed": 3}
    one = _all_ranks(args, 1)
    plan = WeightedSampler(**args, num_replicas=1, rank=0).plan()
    assert one == plan.take(np.arange(999)).tolist()
    shares = [list(WeightedSampler(**args, num_replicas=3, rank=r)) for r in range(3)]
    assert [x for step in zip(*shares, strict=True) for x in step] == one


@given(st.integers(1, 9), st.integers(1, 300), st.booleans())
def test_len_is_exact(world: int, num: int, replacement: bool) -> None:
    w = np.arange(1.0, 302.0)
    for r in range(world):
        s = WeightedSampler(w, num, replacement, num_replicas=world, rank=r)
        assert len(s) == len(list(s)) == -(-num // world)


def test_accepts_list_array_and_tensor_alike() -> None:
    values = [0.5, 1.0, 0.0, 2.0]
    orders = [
        list(WeightedSampler(v, 50, num_replicas=2, rank=1, seed=1))
        for v in (
            values,
            np.array(values, dtype=np.float32),
            torch.tensor(values),
            np.array([1, 2, 0, 4]),
        )
    ]
    assert orders[0] == orders[1] == orders[2] == orders[3]


def test_more_than_two_to_the_24_weights() -> None:
    n = 2**24 + 1
    w = np.ones(n, dtype=np.float64)
    w[-1] = 2.0**20  # the last item has a sixteenth of the mass
    s = WeightedSampler(w, 4096, num_replicas=2, rank=0, seed=1)
    drawn = np.array(list(s))
    assert len(drawn) == 2048 and drawn.max() < n
    hits = int((drawn == n - 1).sum())
    assert stats.binomtest(hits, len(drawn), 2.0**20 / (2**24 + 2**20)).pvalue > 1e-3


BAD = [
    ([1.0, -2.0, 3.0], ConfigError, r"weights\[1\] is negative \(-2\.0\)"),
    ([1.0, 2.0, float("nan")], ConfigError, r"weights\[2\] is NaN"),
    ([float("inf"), 1.0], ConfigError, r"weights\[0\] is infinite \(inf\)"),
    ([0.0, 0.0], ConfigError, r"all 2 weights are zero"),
    ([], ConfigError, "weights is empty"),
    ([[1.0, 2.0]], ConfigError, r"must be 1-D .* shape \(1, 2\)"),
    (["a", "b"], ConfigTypeError, "must hold real numbers"),
    ("abc", ConfigTypeError, "1-D sequence of numbers"),
]


@pytest.mark.parametrize(("weights", "error", "match"), BAD)
def test_bad_weights_raise(weights: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        WeightedSampler(weights, num_replicas=1, rank=0)
    with pytest.raises(error, match=match):
        WeightedSampler([1.0] * max(1, len(weights)), num_replicas=1, rank=0).set_weights(weights)


def test_bad_tensor_weights_name_the_index() -> None:
    with pytest.raises(ConfigError, match=r"weights\[3\] is negative"):
        WeightedSampler(torch.tensor([1.0, 1.0, 1.0, -0.5]), num_replicas=1, rank=0)


def test_too_many_samples_without_replacement_says_both_numbers() -> None:
    with pytest.raises(ConfigError, match=r"num_samples=4 exceeds the 3 samples with a positive"):
        WeightedSampler([1.0, 0.0, 1.0, 1.0], 4, replacement=False, num_replicas=1, rank=0)
    s = WeightedSampler([1.0, 1.0, 1.0], 3, replacement=False, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match=r"num_samples=3 exceeds the 2 samples"):
        s.set_weights([1.0, 0.0, 1.0])
    with pytest.raises(ConfigError, match="num_samples must be >= 1"):
        WeightedSampler([1.0], 0, num_replicas=1, rank=0)
    with pytest.raises(ConfigTypeError, match="replacement must be a bool"):
        WeightedSampler([1.0], replacement=1, num_replicas=1, rank=0)  # type: ignore[arg-type]


def test_set_weights_applies_at_next_epoch_and_is_in_the_state() -> None:
    s = WeightedSampler([1.0, 1.0, 0.0, 0.0], 40, num_replicas=2, rank=0, seed=2)
    before = s.state_dict()
    s.set_weights([0.0, 0.0, 1.0, 1.0])
    assert set(s) <= {0, 1}  # staged only: this epoch keeps the old weights
    assert s.state_dict()["config"] == before["config"]
    s.set_epoch(1)
    it = iter(s)
    head = [next(it) for _ in range(5)]
    assert set(head) <= {2, 3}
    state = json.loads(json.dumps(s.state_dict()))
    assert state["config"]["weights"] != before["config"]["weights"]

    old = WeightedSampler([1.0, 1.0, 0.0, 0.0], 40, num_replicas=2, rank=0, seed=2)
    with pytest.raises(StateDictError, match="saved with weights digest"):
        old.load_state_dict(state)
    old.set_weights([0.0, 0.0, 1.0, 1.0])
    old.load_state_dict(state)  # staged weights apply before the check
    assert old.epoch == 1 and list(old) == list(it)
    with pytest.raises(ConfigError, match="set_weights got 3 weights but the sampler has 4"):
        s.set_weights([1.0, 1.0, 1.0])


def test_weights_copied_without_replacement() -> None:
    w = np.ones(10)
    s = WeightedSampler(w, replacement=False, num_replicas=1, rank=0)
    first = list(s)
    w[:] = 0.0
    s.set_epoch(0)
    assert list(s) == first


def test_auto_epoch_applies_staged_weights() -> None:
    s = WeightedSampler([1.0, 0.0], 8, num_replicas=1, rank=0, auto_epoch=True)
    assert set(s) == {0}
    s.set_weights([0.0, 1.0])
    assert set(s) == {1} and s.epoch == 1


def test_probabilities() -> None:
    w = np.array([1.0, 3.0, 0.0])
    for replacement in (True, False):
        s = WeightedSampler(w, 2, replacement, num_replicas=1, rank=0)
        assert np.allclose(s.probabilities(), [0.25, 0.75, 0.0])


def test_tiny_positive_weight_never_ties_with_a_zero_weight() -> None:
    # E / 1e-310 overflows to inf; keys compared in log space stay finite.
    for seed in range(200):
        s = WeightedSampler(
            [0.0, 1.0, 1e-310], num_samples=2, replacement=False, num_replicas=1, rank=0, seed=seed
        )
        assert sorted(s) == [1, 2], seed


@pytest.mark.parametrize("replacement", [True, False])
def test_probabilities_of_huge_and_subnormal_weights(replacement: bool) -> None:
    for w, expected in (
        ([1e308, 1e308, 0.0], [0.5, 0.5, 0.0]),
        ([1e-310, 0.0, 3e-310], [0.25, 0.0, 0.75]),
    ):
        s = WeightedSampler(w, 2, replacement, num_replicas=1, rank=0)
        assert np.allclose(s.probabilities(), expected, rtol=0, atol=1e-9)


def test_rejected_state_leaves_staged_weights_staged() -> None:
    s = WeightedSampler([1.0, 1.0, 0.0, 0.0], 40, num_replicas=2, rank=0, seed=2)
    other_seed = WeightedSampler([0.0, 0.0, 1.0, 1.0], 40, num_replicas=2, rank=0, seed=9)
    wrong_weights = WeightedSampler([0.0, 1.0, 1.0, 0.0], 40, num_replicas=2, rank=0, seed=2)
    s.set_weights([0.0, 0.0, 1.0, 1.0])
    digest = s.weights_digest
    with pytest.raises(StateDictError, match="saved with weights digest"):
        s.load_state_dict(wrong_weights.state_dict())
    with pytest.raises(StateDictError, match="seed=9"):  # passes the digest check, fails later
        s.load_state_dict(other_seed.state_dict())
    with pytest.raises(StateDictError):
        s.load_state_dict({"not": "a state"})
    assert s.weights_digest == digest and set(s) <= {0, 1}  # still the old weights mid-epoch
    s.set_epoch(1)
    assert set(s) <= {2, 3}  # the staged weights were kept for the next epoch


def test_accepts_half_precision_tensors() -> None:
    values = [0.5, 1.0, 0.0, 2.0]  # exact in bfloat16 and float16
    expected = list(WeightedSampler(values, 50, num_replicas=2, rank=1, seed=1))
    for dtype in (torch.bfloat16, torch.float16):
        tensor = torch.tensor(values, dtype=dtype)
        assert list(WeightedSampler(tensor, 50, num_replicas=2, rank=1, seed=1)) == expected
        s = WeightedSampler(tensor, 50, num_replicas=1, rank=0)
        s.set_weights(tensor.flip(0))
    with pytest.raises(ConfigTypeError, match="weights must hold real numbers, got dtype bool"):
        WeightedSampler(torch.tensor([True, False]))
