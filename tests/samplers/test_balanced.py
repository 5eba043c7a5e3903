import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest
import torch
from scipy import stats

from fairshard import ConfigError, ConfigTypeError, StateDictError
from fairshard._samplers.class_balanced import ClassBalancedSampler
from fairshard._samplers.schedules import Constant, LinearAnneal

from ..contract import SamplerContract

# A long tail: class k has 2**(6-k) samples.
LABELS = np.repeat(np.arange(7), [64, 32, 16, 8, 4, 2, 1])
RNG = np.random.default_rng(3)
RNG.shuffle(LABELS)


class TestBalancedWithReplacement(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBalancedSampler:
        return ClassBalancedSampler(LABELS, num_replicas=world_size, rank=rank, seed=2, **kw)


class TestBalancedAnnealedWithoutReplacement(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBalancedSampler:
        return ClassBalancedSampler(
            LABELS,
            LinearAnneal(epochs=3),
            replacement=False,
            num_samples=60,
            num_replicas=world_size,
            rank=rank,
            **kw,
        )


class TestBalancedStringTargets(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBalancedSampler:
        labels = ["cat", "dog", "dog", "eel", "dog", "cat"] * 20
        return ClassBalancedSampler(
            labels,
            0.5,
            targets={"cat": 0.2, "dog": 0.2, "eel": 0.6},
            num_samples=301,
            num_replicas=world_size,
            rank=rank,
            tail="drop",
            **kw,
        )


def _class_counts(sampler_kw: dict[str, Any], epoch: int, world: int = 4) -> np.ndarray:
    drawn: list[int] = []
    for r in range(world):
        s = ClassBalancedSampler(LABELS, **sampler_kw, num_replicas=world, rank=r)
        s.set_epoch(epoch)
        drawn.extend(s)
    return np.bincount(LABELS[drawn], minlength=7)


@pytest.mark.parametrize("epoch", [0, 5, 10, 14])
def test_annealed_proportions_match_the_formula(epoch: int) -> None:
    kw = {"alpha": LinearAnneal(1.0, 0.0, epochs=10), "num_samples": 40_000, "seed": 8}
    counts = _class_counts(kw, epoch)
    ref = ClassBalancedSampler(LABELS, **kw, num_replicas=1, rank=0)
    expected = np.array(list(ref.class_proportions(epoch).values()))
    natural = np.bincount(LABELS) / len(LABELS)
    # alpha(epoch) = 1 - min(epoch, 10) / 10 and P_c is proportional to count_c ** (1 - alpha).
    alpha = 1 - min(epoch, 10) / 10
    formula = np.bincount(LABELS) ** (1 - alpha)
    assert np.allclose(expected, formula / formula.sum())
    assert stats.chisquare(counts, expected * counts.sum()).pvalue > 1e-3
    if epoch == 0:
        assert np.allclose(expected, 1 / 7)
    if epoch >= 10:
        assert np.allclose(expected, natural)


def test_square_root_and_targets() -> None:
    s = ClassBalancedSampler(LABELS, 0.5, num_replicas=1, rank=0)
    root = np.sqrt(np.bincount(LABELS))
    assert np.allclose(list(s.class_proportions(0).values()), root / root.sum())
    targets = {c: (0.5 if c == 6 else 0.5 / 6) for c in range(7)}
    kw = {"alpha": 1.0, "targets": targets, "num_samples": 30_000, "seed": 1}
    counts = _class_counts(kw, 0)
    assert stats.chisquare(counts, np.array(list(targets.values())) * counts.sum()).pvalue > 1e-3


def test_zero_target_class_never_drawn() -> None:
    targets = {c: (0.0 if c == 0 else 1 / 6) for c in range(7)}
    for replacement in (True, False):
        for seed in range(10):
            kw = {"alpha": 1.0, "targets": targets, "replacement": replacement, "seed": seed}
            assert _class_counts(kw, seed)[0] == 0
    s = ClassBalancedSampler(LABELS, 0.0, targets=targets, num_replicas=1, rank=0)
    assert s.class_proportions(0)[0] == pytest.approx(64 / 127)  # alpha 0 is natural


def test_without_replacement_draws_each_sample_once() -> None:
    s = ClassBalancedSampler(LABELS, num_samples=100, replacement=False, num_replicas=1, rank=0)
    drawn = list(s)
    assert len(drawn) == len(set(drawn)) == 100
    # The rare classes are all in: they have the highest per-sample weight.
    assert set(np.flatnonzero(LABELS >= 3)) <= set(drawn)


def test_labels_as_list_array_tensor_and_callable_alpha() -> None:
    lists = LABELS.tolist()
    orders = [
        list(ClassBalancedSampler(x, lambda e: 0.5, num_samples=50, num_replicas=2, rank=1))
        for x in (lists, LABELS, torch.tensor(LABELS))
    ]
    assert orders[0] == orders[1] == orders[2]
    s = ClassBalancedSampler(LABELS, Constant(0.25), num_replicas=1, rank=0)
    assert s.state_dict()["config"]["alpha"] == {"schedule": "Constant", "alpha": 0.25}
    uniq = Counter(LABELS[list(s)].tolist())
    assert set(uniq) == set(range(7))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"labels": [[0, 1]]}, ConfigError, r"labels must be 1-D .* shape \(1, 2\)"),
        ({"labels": []}, ConfigError, "labels is empty"),
        (
            {"labels": [0.5, 1.0]},
            ConfigTypeError,
            r"labels must be all ints or all strings, got labels\[0\]=0.5",
        ),
        (
            {"labels": [b"a", b"b"]},
            ConfigTypeError,
            r"labels must be ints or str, got bytes.*decode",
        ),
        ({"labels": np.array([b"a", b"b"])}, ConfigTypeError, r"labels .*got bytes \(dtype \|S1\)"),
        ({"targets": {0: 0.5, 1: 0.5, 9: 0.0}}, ConfigError, "targets names class 9, which has"),
        ({"targets": {0: 1.0}}, ConfigError, "targets has no proportion for class 1"),
        ({"targets": {0: 0.7, 1: 0.7, 2: 0.0}}, ConfigError, "targets must sum to 1, got sum=1.4"),
        ({"targets": {0: -0.5, 1: 1.5, 2: 0.0}}, ConfigError, r"targets\[0\] must be a finite"),
        (
            {"targets": {0: "abc", 1: 0.5, 2: 0.5}},
            ConfigTypeError,
            r"targets\[0\] must be a number, got targets\[0\]='abc' of type str",
        ),
        (
            {"targets": {0: 0.5, 1: None, 2: 0.5}},
            ConfigTypeError,
            r"targets\[1\] must be a number, got targets\[1\]=None of type NoneType",
        ),
        (
            {"targets": {0: True, 1: False, 2: False}},
            ConfigTypeError,
            r"targets\[0\] must be a number, got targets\[0\]=True of type bool",
        ),
        (
            {"targets": {0: np.True_, 1: 0.0, 2: 0.0}},
            ConfigTypeError,
            r"targets\[0\] must be a number, got targets\[0\]=True of type bool",
        ),
        (
            {"targets": {0: float("nan"), 1: 0.5, 2: 0.5}},
            ConfigError,
            r"targets\[0\] must be a finite number >= 0, got nan",
        ),
        ({"alpha": -1.0}, ConfigError, "alpha must be >= 0.0, got alpha=-1.0"),
        ({"alpha": "balanced"}, ConfigTypeError, "alpha must be a number, a schedule"),
        (
            {"alpha": np.True_},
            ConfigTypeError,
            r"alpha must be a number or a schedule, got "
            rf"alpha={re.escape(repr(np.True_))}",  # np.True_ under numpy 2, True under 1
        ),
        ({"alpha": LinearAnneal}, ConfigTypeError, r"alpha\(epoch=0\) must be a number"),
        (
            {"replacement": False, "num_samples": 7, "targets": {0: 0.0, 1: 0.0, 2: 1.0}},
            ConfigError,
            "num_samples=7 exceeds the 1 samples of classes with a positive target",
        ),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type, match: str) -> None:
    args = {"labels": [0, 0, 1, 1, 2], "num_replicas": 1, "rank": 0, **kwargs}
    with pytest.raises(error, match=match):
        s = ClassBalancedSampler(**args)
        list(s)


def test_bad_schedule_values() -> None:
    with pytest.raises(ConfigError, match=r"alpha\(epoch=3\) must be >= 0.0"):
        ClassBalancedSampler([0, 1], lambda e: 1.0 - e / 2, num_replicas=1, rank=0).plan(3)
    with pytest.raises(ConfigError, match="epochs must be >= 1"):
        LinearAnneal(epochs=0)


def test_numpy_scalar_targets_and_alpha_are_accepted() -> None:
    targets = {0: np.float32(0.5), 1: np.float64(0.5), 2: np.int64(0)}
    for alpha in (np.float32(0.5), np.int64(1), 1, 0.5):
        s = ClassBalancedSampler([0, 0, 1, 2], alpha, targets=targets, num_replicas=1, rank=0)
        json.dumps(s.state_dict())
        assert s.class_proportions(0)[2] == 0.0


def test_a_callable_alpha_is_fingerprinted_by_its_values_not_its_name() -> None:
    labels = np.arange(60) % 3 // 2

    def alpha(epoch: int) -> float:
        return 1.0

    state = ClassBalancedSampler(labels, alpha, num_replicas=1, rank=0).state_dict()

    def alpha(epoch: int) -> float:  # type: ignore[no-redef]  # the same name, natural now
        return 0.0

    with pytest.raises(StateDictError, match="alpha"):
        ClassBalancedSampler(labels, alpha, num_replicas=1, rank=0).load_state_dict(state)
    same = ClassBalancedSampler(labels, lambda e: 1.0, num_replicas=1, rank=0)
    same.load_state_dict(state)  # the same values under another name
