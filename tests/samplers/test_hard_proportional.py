"""Hard-example sampling the tutorials' way: weights proportional to the loss, set once per epoch.

``weighting="proportional"`` (with a floor), ``set_losses`` (whole-epoch
losses, synced like ``record``), the refused ``set_weights`` and the
``dataset`` argument. The distributed test runs 4 real gloo ranks.
"""

import json
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from scipy import stats

from fairshard import (
    ConfigError,
    ConfigTypeError,
    HardExampleSampler,
    RankMismatchError,
    StateDictError,
    WeightedSampler,
    verify,
)

from .._dist import run_ranks
from ..contract import SamplerContract

N = 200


def _trained(s: HardExampleSampler) -> HardExampleSampler:
    idx = np.arange(0, N, 3)
    s.record(idx, (idx % 7).astype(float))
    s.set_losses([4.0, 0.5], indices=[5, 6])
    s.set_epoch(0)
    return s


class TestProportional(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> HardExampleSampler:
        if kw:
            pytest.skip("HardExampleSampler advances epochs in set_epoch only")
        sampler = HardExampleSampler(
            N, 401, weighting="proportional", num_replicas=world_size, rank=rank, seed=5
        )
        return _trained(sampler)


def test_proportional_formula_with_floor_and_prior() -> None:
    s = HardExampleSampler(5, weighting="proportional", floor=0.2, num_replicas=1, rank=0)
    assert np.allclose(s.sampling_weights(), 0.2)  # nothing seen: uniform
    s.record([0, 1, 2], [1.0, 3.0, 0.0])
    s.set_epoch(1)
    prior = 4.0 / 3  # mean of the seen scores
    scores = np.array([1.0, 3.0, 0.0, prior, prior])
    expected = 0.2 / 5 + 0.8 * scores / scores.sum()
    assert np.allclose(s.sampling_weights(), expected)
    assert np.allclose(s.probabilities(), expected, atol=1e-9)
    assert s.sampling_weights()[2] == pytest.approx(0.04)  # loss 0 keeps the floor
    # Twice the loss, twice the draws (in the proportional part).
    w = s.sampling_weights() - 0.2 / 5
    assert w[1] / w[0] == pytest.approx(3.0)


def test_proportional_all_zero_and_huge_losses() -> None:
    zero = HardExampleSampler(4, weighting="proportional", floor=0.0, num_replicas=1, rank=0)
    zero.set_losses([0.0, 0.0, 0.0, 0.0])
    zero.set_epoch(1)
    assert np.allclose(zero.sampling_weights(), 0.25)
    huge = HardExampleSampler(3, weighting="proportional", floor=0.0, num_replicas=1, rank=0)
    huge.set_losses([1e308, 1e308, 0.0])
    huge.set_epoch(1)
    assert np.allclose(huge.sampling_weights(), [0.5, 0.5, 0.0])


def test_set_losses_replaces_scores_with_the_epoch_mean() -> None:
    s = HardExampleSampler(6, momentum=0.9, num_replicas=1, rank=0)
    s.record([0, 1], [10.0, 10.0])
    s.set_epoch(1)
    s.record([0, 1], [0.0, 0.0])  # EMA: 9.0 each ...
    s.set_losses([2.0, 4.0, 7.0], indices=[1, 1, 2])  # ... but set_losses wins for sample 1
    s.set_epoch(2)
    scores = s.scores()
    assert scores[0] == pytest.approx(9.0) and scores[1] == 3.0 and scores[2] == 7.0
    assert np.isnan(scores[3:]).all()
    s.set_losses(np.arange(6.0))  # the full vector: every sample, in order
    s.set_epoch(3)
    assert s.scores().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_set_losses_state_round_trip() -> None:
    s = HardExampleSampler(N, weighting="proportional", num_replicas=2, rank=0, seed=1)
    s.set_losses(np.linspace(0.0, 2.0, N))
    s.set_epoch(1)
    state = json.loads(json.dumps(s.state_dict()))
    fresh = HardExampleSampler(N, weighting="proportional", num_replicas=2, rank=0, seed=1)
    fresh.load_state_dict(state)
    assert list(fresh) == list(s)
    softmax = HardExampleSampler(N, num_replicas=2, rank=0, seed=1)
    with pytest.raises(StateDictError, match="weighting='proportional'"):
        softmax.load_state_dict(state)


def test_bad_proportional_and_set_losses_inputs() -> None:
    s = HardExampleSampler(5, weighting="proportional", num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match=r"losses\[1\]=-0.5 \(sample 3\) is negative"):
        s.record([2, 3], [1.0, -0.5])
    with pytest.raises(ConfigError, match="set_losses got 3 losses without indices but"):
        s.set_losses([1.0, 2.0, 3.0])
    with pytest.raises(ConfigError, match=r"set_losses got 2 indices but 1 losses"):
        s.set_losses([1.0], indices=[0, 1])
    with pytest.raises(ConfigError, match=r"losses\[0\]=inf \(sample 4\) is not finite"):
        s.set_losses([float("inf")], indices=[4])
    s.set_epoch(1)
    assert np.isnan(s.scores()).all()  # nothing was kept
    with pytest.raises(ConfigError, match="temperature=2.0 sharpens the softmax"):
        HardExampleSampler(5, weighting="proportional", temperature=2.0)
    with pytest.raises(ConfigError, match="prior must be >= 0 with weighting='proportional'"):
        HardExampleSampler(5, weighting="proportional", prior=-1.0)
    with pytest.raises(ConfigError, match="weighting must be one of 'softmax', 'proportional'"):
        HardExampleSampler(5, weighting="linear")  # type: ignore[arg-type]
    signed = HardExampleSampler(5, num_replicas=1, rank=0)  # softmax takes signed scores
    signed.record([0], [-3.0])


def test_set_weights_is_refused_so_a_resume_cannot_diverge() -> None:
    """Issue 12: staged weights overrode the learned ones, and a resume re-derived them."""
    s = _trained(HardExampleSampler(N, num_replicas=2, rank=0, seed=4))
    before = (s.probabilities().tobytes(), s.state_dict())
    with pytest.raises(ConfigTypeError, match="set_weights is not supported.*set_losses"):
        s.set_weights(np.ones(N))
    s.set_epoch(1)
    resumed = HardExampleSampler(N, num_replicas=2, rank=0, seed=4)
    resumed.load_state_dict(s.state_dict())
    assert s.probabilities().tobytes() == before[0] == resumed.probabilities().tobytes()
    assert list(resumed) == list(s)


def test_dataset_argument_and_deprecated_num_samples_total() -> None:
    data = list(range(30))
    by_dataset = HardExampleSampler(data, num_replicas=1, rank=0, seed=2)
    by_length = HardExampleSampler(30, num_replicas=1, rank=0, seed=2)
    with pytest.warns(DeprecationWarning, match=r"num_samples_total=\.\.\.\) is deprecated") as w:
        by_keyword = HardExampleSampler(num_samples_total=30, num_replicas=1, rank=0, seed=2)
    assert w[0].filename == __file__  # points at the caller's line
    assert list(by_dataset) == list(by_length) == list(by_keyword)
    assert by_dataset.state_dict()["config"] == by_keyword.state_dict()["config"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ConfigError, match="got both dataset and num_samples_total=30"):
            HardExampleSampler(data, num_samples_total=30)
    with pytest.raises(ConfigTypeError, match=r"needs the dataset: HardExampleSampler\(dataset\)"):
        HardExampleSampler()
    with pytest.raises(ConfigTypeError, match="dataset must define __len__"):
        HardExampleSampler(iter(data))


# ----------------------------------------------------------- 4 gloo ranks
NUM = 1000
HARD = np.arange(0, NUM, 10)  # 100 hard samples: loss 3 against 1
FLOOR = 0.1


def _proportional_ranks(rank: int, world: int) -> dict[str, Any]:
    s = HardExampleSampler(NUM, 40_000, weighting="proportional", floor=FLOOR, seed=21)
    assert s.num_replicas == world and s.rank == rank
    mine = np.arange(rank, NUM, world)  # each rank evaluates its own quarter
    rng = np.random.default_rng(rank)
    losses = np.where(np.isin(mine, HARD), 3.0, 1.0) + rng.random(mine.size) * 1e-3
    if rank % 2 == 0:  # both synced inputs: whole-epoch losses on even ranks, records on odd
        s.set_losses(torch.from_numpy(losses), indices=torch.from_numpy(mine))
    else:
        s.record(mine, losses)
    s.set_epoch(1)
    plan = s.plan()
    return {
        "weights": s.sampling_weights().tobytes(),
        "plan": plan.take(np.arange(len(plan))).tobytes(),
        "share": list(s),
    }


@pytest.mark.distributed
def test_proportional_draw_ratio_on_four_gloo_ranks() -> None:
    results = run_ranks(_proportional_ranks, 4, timeout=180)
    assert len({r["weights"] for r in results}) == 1  # identical on every rank
    assert len({r["plan"] for r in results}) == 1
    order = np.frombuffer(results[0]["plan"], dtype=np.int64)
    shares = [x for step in zip(*(r["share"] for r in results), strict=True) for x in step]
    assert shares == order.tolist()  # disjoint positions of the one plan
    # P(hard) = f * 100/1000 + (1 - f) * (100 * 3) / (100 * 3 + 900 * 1), noise aside.
    p_hard = FLOOR * 0.1 + (1 - FLOOR) * 300 / 1200
    weights = np.frombuffer(results[0]["weights"], dtype=np.float64)
    assert weights[HARD].sum() == pytest.approx(p_hard, abs=1e-4)
    hits = int(np.isin(order, HARD).sum())
    assert stats.binomtest(hits, order.size, p_hard).pvalue > 1e-3
    # Per sample, a hard one is drawn (f/n + (1-f)*3/1200) / (f/n + (1-f)*1/1200) times as often.
    ratio = (hits / HARD.size) / ((order.size - hits) / (NUM - HARD.size))
    expected = (FLOOR / NUM + (1 - FLOOR) * 3 / 1200) / (FLOOR / NUM + (1 - FLOOR) / 1200)
    assert ratio == pytest.approx(expected, rel=0.05)


def _per_rank_set_weights(rank: int, world: int) -> tuple[bytes, list[int], str]:
    """The pitfall: WeightedSampler.set_weights with this rank's losses only."""
    s = WeightedSampler(np.ones(100), seed=3)
    losses = np.ones(100)
    losses[rank::world] = 5.0  # each rank knows only its own share's losses
    s.set_weights(losses)
    s.set_epoch(1)
    plan = s.plan()
    caught = "no error"
    try:
        verify(s)
    except RankMismatchError:
        caught = "RankMismatchError"
    return plan.take(np.arange(len(plan))).tobytes(), list(s), caught


@pytest.mark.distributed
def test_per_rank_set_weights_is_not_synced_and_verify_says_so() -> None:
    results = run_ranks(_per_rank_set_weights, 2, timeout=120)
    assert results[0][0] != results[1][0]  # two plans: shares are no longer one partition
    assert [r[2] for r in results] == ["RankMismatchError"] * 2
    # Each rank over-draws its own share's "hard" samples, the other rank's are under-drawn.
    for rank, (_, share, _) in enumerate(results):
        own = np.isin(share, np.arange(rank, 100, 2)).mean()
        assert own > 0.7, (rank, own)
