"""The two annealing curves (exponent vs raw weights) and loss weights that complete sampling.

Tutorials anneal raw per-sample weights linearly from ``1 / count(class)`` to
1 (``LinearWeightAnneal``); ``LinearAnneal`` anneals the exponent ``alpha``
from 1 to 0. Both are checked against the formula, against a hand-written
tutorial recipe, and statistically on real draws over 4 ranks, epoch by epoch.
"""

from typing import Any

import numpy as np
import pytest
import torch
from scipy import stats

from fairshard import (
    ClassBalancedSampler,
    ConfigError,
    ConfigTypeError,
    LinearAnneal,
    LinearWeightAnneal,
    StateDictError,
)

from ..contract import SamplerContract

COUNTS = np.array([1000, 100, 10])
LABELS = np.repeat(np.arange(3), COUNTS)
np.random.default_rng(11).shuffle(LABELS)
EPOCHS = 10


class TestWeightAnnealContract(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBalancedSampler:
        return ClassBalancedSampler(
            LABELS, LinearWeightAnneal(epochs=3), num_replicas=world_size, rank=rank, **kw
        )


def tutorial_weights(labels: np.ndarray, epoch: int, epochs: int) -> np.ndarray:
    """The recipe as tutorials write it: raw per-sample weights, 1/count -> 1 linearly."""
    counts = np.bincount(labels)
    t = min(epoch, epochs) / epochs
    return (1 - t) * (1.0 / counts[labels]) + t * 1.0


def shares_drawn(alpha: Any, epoch: int, world: int = 4, draws: int = 40_000) -> np.ndarray:
    drawn: list[int] = []
    for rank in range(world):
        s = ClassBalancedSampler(
            LABELS, alpha, num_samples=draws, seed=3, num_replicas=world, rank=rank
        )
        s.set_epoch(epoch)
        drawn.extend(s)
    assert len(drawn) == draws  # 40_000 splits evenly: no padding
    return np.bincount(LABELS[drawn], minlength=3)


@pytest.mark.parametrize("epoch", range(EPOCHS + 2))
def test_weight_anneal_equals_the_tutorial_recipe(epoch: int) -> None:
    s = ClassBalancedSampler(LABELS, LinearWeightAnneal(EPOCHS), num_replicas=1, rank=0)
    w = tutorial_weights(LABELS, epoch, EPOCHS)
    expected = np.bincount(LABELS, weights=w) / w.sum()  # WeightedRandomSampler's shares
    assert np.allclose(list(s.class_proportions(epoch).values()), expected, rtol=1e-12)


@pytest.mark.parametrize("epoch", [0, 1, 2, 5, 10, 12])
@pytest.mark.parametrize("curve", ["alpha", "weights"])
def test_class_shares_per_epoch_match_the_curve(curve: str, epoch: int) -> None:
    f = min(epoch, EPOCHS) / EPOCHS
    if curve == "alpha":
        schedule: Any = LinearAnneal(1.0, 0.0, epochs=EPOCHS)
        mass = COUNTS**f  # alpha = 1 - f: P_c ~ count_c ** (1 - alpha)
    else:
        schedule = LinearWeightAnneal(epochs=EPOCHS)
        mass = (1 - f) + f * COUNTS  # count_c * ((1 - f) / count_c + f)
    expected = mass / mass.sum()
    ref = ClassBalancedSampler(LABELS, schedule, num_replicas=1, rank=0)
    assert np.allclose(list(ref.class_proportions(epoch).values()), expected)
    counts = shares_drawn(schedule, epoch)
    assert stats.chisquare(counts, expected * counts.sum()).pvalue > 1e-3


def test_the_two_curves_differ_as_documented() -> None:
    """docs/recipes.md: minority share at the second epoch (epoch 1), 10 epochs, 1000/100/10."""
    alpha = ClassBalancedSampler(LABELS, LinearAnneal(epochs=EPOCHS), num_replicas=1, rank=0)
    weights = ClassBalancedSampler(LABELS, LinearWeightAnneal(EPOCHS), num_replicas=1, rank=0)
    assert alpha.class_proportions(1)[2] == pytest.approx(0.2602, abs=5e-5)
    assert weights.class_proportions(1)[2] == pytest.approx(0.0167, abs=5e-5)
    natural = COUNTS[2] / COUNTS.sum()
    assert natural == pytest.approx(0.0090, abs=5e-5)
    for epoch in (0, EPOCHS, EPOCHS + 3):  # same ends: balanced, then natural
        assert alpha.class_proportions(epoch) == pytest.approx(weights.class_proportions(epoch))


def test_weight_anneal_with_targets_starts_at_the_targets() -> None:
    targets = {0: 0.5, 1: 0.3, 2: 0.2}
    s = ClassBalancedSampler(LABELS, LinearWeightAnneal(4), targets=targets, num_replicas=1, rank=0)
    assert s.class_proportions(0) == pytest.approx(targets)
    assert list(s.class_proportions(4).values()) == pytest.approx(COUNTS / COUNTS.sum())


def test_schedule_is_in_the_state_and_checked_on_resume() -> None:
    s = ClassBalancedSampler(LABELS, LinearWeightAnneal(5), num_replicas=2, rank=0)
    state = s.state_dict()
    assert state["config"]["alpha"] == {"schedule": "LinearWeightAnneal", "epochs": 5}
    for other in (LinearWeightAnneal(6), LinearAnneal(epochs=5)):
        with pytest.raises(StateDictError, match="alpha"):
            ClassBalancedSampler(LABELS, other, num_replicas=2, rank=0).load_state_dict(state)


def test_weight_anneal_rejects_bad_epochs() -> None:
    with pytest.raises(ConfigError, match="epochs must be >= 1, got epochs=0"):
        LinearWeightAnneal(0)
    with pytest.raises(ConfigTypeError, match="epochs must be an int"):
        LinearWeightAnneal(2.5)  # type: ignore[arg-type]


# ------------------------------------------------------------- loss weights
@pytest.mark.parametrize("sampler_alpha", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("total_alpha", [0.5, 1.0])
def test_sampling_times_loss_weight_is_the_total_reweighting(
    sampler_alpha: float, total_alpha: float
) -> None:
    s = ClassBalancedSampler(LABELS, sampler_alpha, num_replicas=1, rank=0)
    v = s.loss_weights(total_alpha).double().numpy()
    p = np.array(list(s.class_proportions().values()))
    q = COUNTS ** (1 - total_alpha) / (COUNTS ** (1 - total_alpha)).sum()
    assert np.allclose(p * v, q, rtol=1e-6)  # each class's share of the expected loss
    assert (p * v).sum() == pytest.approx(1.0, rel=1e-6)  # the loss keeps its scale
    alone = ClassBalancedSampler(LABELS, total_alpha, num_replicas=1, rank=0)
    assert np.allclose(q, list(alone.class_proportions().values()))


@pytest.mark.parametrize("schedule", [LinearAnneal(epochs=4), LinearWeightAnneal(4)])
def test_loss_weights_follow_an_annealed_sampler_on_real_draws(schedule: Any) -> None:
    """Draw 4 ranks' epochs, weight each drawn sample's loss: the classes come out balanced."""
    for epoch in (0, 1, 3):
        counts = shares_drawn(schedule, epoch)
        s = ClassBalancedSampler(LABELS, schedule, num_replicas=1, rank=0)
        s.set_epoch(epoch)
        weighted = counts * s.loss_weights(1.0).double().numpy()  # per-class loss mass
        share = weighted / weighted.sum()
        assert np.allclose(share, 1 / 3, atol=0.02), (epoch, share)


def test_loss_weights_in_cross_entropy() -> None:
    s = ClassBalancedSampler(LABELS, 0.5, num_replicas=1, rank=0)
    weight = s.loss_weights(1.0, num_classes=5)
    assert weight.dtype == torch.float32 and weight.shape == (5,)
    assert weight[3:].tolist() == [0.0, 0.0]  # classes without samples are never drawn
    loss = torch.nn.CrossEntropyLoss(weight=weight)(torch.zeros(4, 5), torch.tensor([0, 1, 2, 2]))
    assert torch.isfinite(loss)


def test_loss_weights_bad_inputs() -> None:
    names = ClassBalancedSampler(["a", "b", "b"], 0.5, num_replicas=1, rank=0)
    with pytest.raises(ConfigTypeError, match="loss_weights needs integer class ids.*'a'"):
        names.loss_weights()
    negative = ClassBalancedSampler([-1, 0, 0], 0.5, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="class ids >= 0, got label -1"):
        negative.loss_weights()
    s = ClassBalancedSampler(LABELS, 0.5, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="num_classes must be >= 3, got num_classes=2"):
        s.loss_weights(num_classes=2)
    with pytest.raises(ConfigError, match="total_alpha must be >= 0.0"):
        s.loss_weights(-1.0)
    zero = ClassBalancedSampler(
        LABELS, 1.0, targets={0: 0.5, 1: 0.5, 2: 0.0}, num_replicas=1, rank=0
    )
    with pytest.raises(ConfigError, match="class 2 is never drawn .* total_alpha=0.0 keeps it"):
        zero.loss_weights(0.0)
    assert zero.loss_weights(1.0)[2] == 0.0  # never drawn, never wanted


def test_the_docs_figure_script_runs(tmp_path: Any) -> None:
    """docs/img/anneal-curves.png is drawn by docs/anneal_curves.py from the public API."""
    import runpy
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    assert (docs / "img" / "anneal-curves.png").stat().st_size > 10_000
    script = runpy.run_path(str(docs / "anneal_curves.py"))
    out = tmp_path / "curves.png"
    script["main"](out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
