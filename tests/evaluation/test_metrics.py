"""ExactMetrics over virtual ranks: padding excluded, counts equal a single process exactly."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
import torch.utils.data as tud
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, balanced_accuracy_score, confusion_matrix

from fairshard import (
    ClassificationMetrics,
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    DistributedEvalSampler,
    DistributedSampler,
    ExactMetrics,
)

K = 4


def make(n: int, w: int, **kw: Any) -> list[DistributedSampler]:
    """One sampler per virtual rank (an empty dataset's warning is expected here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        return [DistributedSampler(n, w, r, **kw) for r in range(w)]


def labels(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    targets = rng.integers(0, K, n)
    preds = np.where(rng.random(n) < 0.6, targets, rng.integers(0, K, n))
    return preds, targets


def run_virtual(
    samplers: list[Any], preds: np.ndarray, targets: np.ndarray, use_sampler: bool = True
) -> ClassificationMetrics:
    """Every virtual rank counts its share in batches of 3; confusions are summed."""
    total = np.zeros((K, K), dtype=np.int64)
    for s in samplers:
        metrics = ExactMetrics(K, sampler=s if use_sampler else None)
        order = np.asarray(list(s), dtype=np.int64)
        for b in range(0, len(order), 3):
            idx = order[b : b + 3]
            metrics.update(
                torch.from_numpy(preds[idx]),
                torch.from_numpy(targets[idx]),
                indices=idx if use_sampler else None,
            )
        total += metrics.compute(sync=False).confusion
    return ClassificationMetrics(total)


def test_from_labels_agrees_with_sklearn() -> None:
    preds, targets = labels(500)
    m = ClassificationMetrics.from_labels(preds, targets, K)
    assert np.array_equal(m.confusion, confusion_matrix(targets, preds, labels=range(K)))
    assert m.accuracy == accuracy_score(targets, preds)
    assert m.balanced_accuracy == pytest.approx(balanced_accuracy_score(targets, preds), abs=1e-15)
    assert m.num_samples == 500 and m.correct == int((preds == targets).sum())


@given(
    st.integers(0, 80), st.integers(1, 9), st.sampled_from(["strided", "blocked"]), st.booleans()
)
def test_padded_shares_count_every_sample_once(n: int, w: int, layout: Any, shuffle: bool) -> None:
    preds, targets = labels(n, seed=n)
    reference = ClassificationMetrics.from_labels(preds, targets, K)
    for tail in ("pad", "uneven"):
        samplers = make(n, w, shuffle=shuffle, layout=layout, tail=tail)
        assert run_virtual(samplers, preds, targets) == reference


def test_torch_padding_changes_the_naive_metric_but_not_the_exact_one() -> None:
    preds, targets = labels(10, seed=1)
    samplers = [
        tud.DistributedSampler(range(10), num_replicas=4, rank=r, shuffle=False) for r in range(4)
    ]
    reference = ClassificationMetrics.from_labels(preds, targets, K)
    assert run_virtual(samplers, preds, targets) == reference
    naive = run_virtual(samplers, preds, targets, use_sampler=False)
    assert naive.num_samples == 12 and naive != reference


def test_scores_are_argmaxed() -> None:
    scores = torch.tensor([[0.1, 0.9, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0]])
    m = ExactMetrics(K)
    m.update(scores, torch.tensor([1, 1]))
    assert m.compute().confusion[1].tolist() == [1, 1, 0, 0]


def test_empty_metrics_are_nan() -> None:
    m = ExactMetrics(K).compute()
    assert m.num_samples == 0 and np.isnan(m.accuracy) and np.isnan(m.balanced_accuracy)


def test_bad_inputs() -> None:
    m = ExactMetrics(K)
    with pytest.raises(ConfigError, match=r"labels must be in \[0, 4\).*target=4"):
        m.update(torch.tensor([0, 1]), torch.tensor([0, 4]))
    with pytest.raises(ConfigError, match=r"preds has 2 samples but targets has 3"):
        m.update(torch.tensor([0, 1]), torch.tensor([0, 1, 2]))
    with pytest.raises(ConfigError, match=r"preds must be \(B,\) integer labels or \(B, 4\)"):
        m.update(torch.zeros(2, 3), torch.tensor([0, 1]))
    with pytest.raises(ConfigError, match="indices can only be checked"):
        m.update(torch.tensor([0]), torch.tensor([0]), indices=[0])
    with pytest.raises(ConfigError, match="num_classes must be >= 1"):
        ExactMetrics(0)


def test_sampler_checks() -> None:
    with pytest.raises(ConfigError, match=r"ExactMetrics needs every sample .* drops 2"):
        ExactMetrics(K, sampler=DistributedSampler(10, 4, 0, drop_last=True))
    sampler = DistributedEvalSampler(10, num_replicas=2, rank=1)  # share: 5..9
    m = ExactMetrics(K, sampler=sampler)
    with pytest.raises(ConfigError, match=r"indices differ .* sample 0 of rank 1: got \[0, 1\]"):
        m.update(torch.tensor([0, 0]), torch.tensor([0, 0]), indices=torch.tensor([0, 1]))
    m.update(torch.tensor([0, 0]), torch.tensor([0, 0]), indices=np.array([5, 6]))
    with pytest.raises(ConfigError, match=r"rank 1 counted 2 of 5"):
        m.compute(sync=False)
    with pytest.raises(ConfigError, match=r"received 6 samples in total but rank 1's share has 5"):
        m.update(torch.zeros(4, dtype=torch.long), torch.zeros(4, dtype=torch.long))
    m.update(torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long))
    assert m.compute(sync=False).num_samples == 5
    with pytest.raises(ConfigError, match=r"needs a process group.*num_replicas=2"):
        m.compute()


def test_float_targets_are_refused() -> None:
    metrics = ExactMetrics(2)
    with pytest.raises(ConfigTypeError, match="targets must hold integer class labels"):
        metrics.update(torch.tensor([1, 1]), torch.tensor([1.7, 0.2]))
