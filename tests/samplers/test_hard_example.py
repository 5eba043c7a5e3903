import json
import re
from typing import Any

import numpy as np
import pytest
import torch
from scipy import stats

from fairshard import ConfigError, ConfigTypeError, StateDictError
from fairshard._samplers.hard_example import HardExampleSampler, IndexedDataset

from .._dist import run_ranks
from ..contract import SamplerContract

N = 200


def _trained(sampler: HardExampleSampler) -> HardExampleSampler:
    idx = np.arange(0, N, 3)
    sampler.record(idx, (idx % 7).astype(float))
    sampler.record(torch.tensor([5, 5]), torch.tensor([9.0, 1.0]))
    sampler.set_epoch(0)
    return sampler


class TestHardExample(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> HardExampleSampler:
        if kw:
            pytest.skip("HardExampleSampler advances epochs in set_epoch only")
        return _trained(HardExampleSampler(N, 401, num_replicas=world_size, rank=rank, seed=5))


class TestHardExampleWithoutReplacement(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> HardExampleSampler:
        if kw:
            pytest.skip("HardExampleSampler advances epochs in set_epoch only")
        return _trained(
            HardExampleSampler(
                N,
                150,
                replacement=False,
                temperature=3.0,
                num_replicas=world_size,
                rank=rank,
                tail="drop",
            )
        )


def test_ema_prior_and_formula() -> None:
    s = HardExampleSampler(5, momentum=0.5, temperature=2.0, floor=0.2, num_replicas=1, rank=0)
    assert np.allclose(s.sampling_weights(), 0.2)  # nothing seen: uniform
    s.record([1, 3, 1], [4.0, 2.0, 8.0])  # index 1: 4, then 0.5 * 4 + 0.5 * 8
    s.set_epoch(1)
    scores = s.scores()
    assert scores[1] == 6.0 and scores[3] == 2.0 and np.isnan(scores[[0, 2, 4]]).all()
    prior = 4.0  # mean of the seen scores
    z = np.array([prior, 6.0, prior, 2.0, prior]) / 2.0
    soft = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert np.allclose(s.sampling_weights(), 0.2 / 5 + 0.8 * soft)
    assert np.allclose(s.probabilities(), s.sampling_weights(), atol=1e-9)
    fixed = HardExampleSampler(5, prior=0.0, num_replicas=1, rank=0)
    fixed.record([0], [1.0])
    fixed.set_epoch(1)
    assert fixed.sampling_weights()[0] > fixed.sampling_weights()[1]


def test_records_apply_only_at_the_epoch_boundary() -> None:
    s = HardExampleSampler(50, prior=0.0, num_replicas=2, rank=0)
    before = list(s)
    s.record([7], [100.0])
    s.set_epoch(0)
    after = list(s)
    assert after != before and after.count(7) > len(after) // 2


def test_state_round_trip_restores_scores() -> None:
    s = _trained(HardExampleSampler(N, num_replicas=2, rank=1, seed=3))
    it = iter(s)
    head = [next(it) for _ in range(10)]
    state = json.loads(json.dumps(s.state_dict()))
    fresh = HardExampleSampler(N, num_replicas=2, rank=1, seed=3)
    fresh.load_state_dict(state)
    assert np.array_equal(fresh.scores(), s.scores(), equal_nan=True)
    assert head + list(fresh) == head + list(it)
    other = HardExampleSampler(N + 1, num_replicas=2, rank=1, seed=3)
    with pytest.raises(StateDictError, match="n=200"):
        other.load_state_dict(state)


def test_bad_arguments() -> None:
    s = HardExampleSampler(10, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="record got 2 indices but 1 losses"):
        s.record([1, 2], [0.5])
    with pytest.raises(ConfigError, match=r"indices\[1\]=10 is outside \[0, 10\)"):
        s.record([1, 10], [0.5, 0.5])
    with pytest.raises(ConfigError, match=r"losses\[0\]=nan \(sample 4\) is not finite"):
        s.record([4], [float("nan")])
    with pytest.raises(ConfigError, match="momentum must be < 1"):
        HardExampleSampler(10, momentum=1.0)
    with pytest.raises(ConfigError, match=r"temperature must be > 0\.0"):
        HardExampleSampler(10, temperature=0.0)
    with pytest.raises(ConfigError, match=r"floor must be <= 1\.0, got floor=1\.5"):
        HardExampleSampler(10, floor=1.5)
    with pytest.raises(ConfigError, match=r"len\(dataset\) must be >= 1, got 0"):
        HardExampleSampler(0)


@pytest.mark.parametrize(
    ("indices", "match"),
    [
        (
            [1.7, 0.2],
            r"indices must be integers, got dtype float64 "
            rf"\(first: {re.escape(repr(np.float64(1.7)))}\)",
        ),
        (["1", "2"], r"indices must be integers, got dtype <U1"),
        ([True, False], r"indices must be integers, got dtype bool"),
        (torch.tensor([1.0, 2.0]), r"indices must be integers, got dtype float32"),
        (torch.tensor([True, False]), r"indices must be integers, got dtype bool"),
        ([2**70, 1], r"indices must be integers, got dtype object"),
    ],
)
def test_record_requires_integer_indices(indices: Any, match: str) -> None:
    s = HardExampleSampler(10, num_replicas=1, rank=0)
    with pytest.raises(ConfigTypeError, match=match):
        s.record(indices, [0.5, 0.5])
    s.set_epoch(1)
    assert np.isnan(s.scores()).all()  # nothing was recorded


def test_record_checks_losses_are_real_and_finite() -> None:
    s = HardExampleSampler(10, num_replicas=1, rank=0)
    with pytest.raises(ConfigTypeError, match=r"losses must be real numbers, got dtype <U1"):
        s.record([1, 2], ["a", "b"])
    with pytest.raises(ConfigTypeError, match=r"losses must be real numbers, got dtype bool"):
        s.record([1, 2], [True, False])
    with pytest.raises(ConfigTypeError, match=r"losses must be real numbers, got dtype complex"):
        s.record([1, 2], [1j, 2.0])
    with pytest.raises(ConfigError, match=r"losses\[1\]=inf \(sample 2\) is not finite"):
        s.record([1, 2], [0.5, float("inf")])
    with pytest.raises(ConfigError, match=r"losses\[2\]=nan \(sample 5\) is not finite"):
        s.record(np.array([1, 2, 5], dtype=np.uint8), torch.tensor([0.5, 1.0, float("nan")]))
    # Any integer dtype, and float tensors numpy cannot hold, are accepted.
    s.record(np.array([3], dtype=np.uint8), torch.tensor([2.0], dtype=torch.bfloat16))
    s.record(torch.tensor([4], dtype=torch.int32), [1])
    s.record([], [])
    s.set_epoch(1)
    assert s.scores()[3] == 2.0 and s.scores()[4] == 1.0
    assert np.isnan(s.scores()[[0, 1, 2, 5]]).all()


def test_indexed_dataset() -> None:
    data = IndexedDataset([10, 20, 30])
    assert len(data) == 3 and data[2] == (2, 30)
    loader = torch.utils.data.DataLoader(data, batch_size=2)
    idx, values = next(iter(loader))
    assert idx.tolist() == [0, 1] and values.tolist() == [10, 20]


HARD = np.arange(0, 400, 40)  # ten hard samples


def _four_ranks(rank: int, world: int) -> dict[str, Any]:
    s = HardExampleSampler(400, 40_000, momentum=0.5, floor=0.2, temperature=1.0, seed=9)
    assert s.num_replicas == world and s.rank == rank
    # Each rank sees its own quarter of the data, with rank-specific loss noise.
    mine = np.arange(rank, 400, world)
    rng = np.random.default_rng(rank)
    losses = np.where(np.isin(mine, HARD), 3.0, 0.0) + rng.random(mine.size) * 1e-3
    s.record(torch.from_numpy(mine), torch.from_numpy(losses))
    s.record(mine[:5], losses[:5] + 0.25)  # a second record of some samples
    s.set_epoch(1)
    plan = s.plan()
    order = plan.take(np.arange(len(plan)))
    share = list(s)
    return {
        "scores": s.scores().tobytes(),
        "plan": order.tobytes(),
        "share": share,
        "state": s.state_dict(),
    }


@pytest.mark.distributed
def test_four_gloo_ranks_agree_bit_for_bit() -> None:
    results = run_ranks(_four_ranks, 4, timeout=180)
    assert len({r["scores"] for r in results}) == 1
    assert len({r["plan"] for r in results}) == 1
    assert len({json.dumps(r["state"]["extra"]) for r in results}) == 1
    order = np.frombuffer(results[0]["plan"], dtype=np.int64)
    # Ranks take disjoint positions of the one plan.
    assert [
        x for step in zip(*(r["share"] for r in results), strict=True) for x in step
    ] == order.tolist()
    # High-loss samples are drawn more by the ratio the formula predicts.
    scores = np.frombuffer(results[0]["scores"], dtype=np.float64)
    assert not np.isnan(scores).any()
    z = np.exp(scores - scores.max())
    weights = 0.2 / 400 + 0.8 * z / z.sum()
    hard = np.isin(np.arange(400), HARD)
    p_hard = weights[hard].sum()
    hits = int(np.isin(order, HARD).sum())
    assert stats.binomtest(hits, order.size, p_hard).pvalue > 1e-3
    ratio = (hits / hard.sum()) / ((order.size - hits) / (~hard).sum())
    expected_ratio = weights[hard].mean() / weights[~hard].mean()
    assert expected_ratio > 10 and ratio == pytest.approx(expected_ratio, rel=0.1)


def _snapshot(s: HardExampleSampler) -> tuple[Any, ...]:
    records = [(i.tolist(), v.tolist()) for i, v in s._records]
    plan = s.plan()
    order = plan.take(np.arange(len(plan))).tolist()
    return (s.scores().tobytes(), records, s.epoch, s.probabilities().tobytes(), order)


def test_failed_set_epoch_leaves_the_sampler_unchanged() -> None:
    s = HardExampleSampler(
        4, num_samples=4, replacement=False, floor=0.0, temperature=0.01, num_replicas=1, rank=0
    )
    s.record([0, 1], [0.5, 0.25])
    s.set_epoch(1)
    s.record([0, 1, 2, 3], [100.0, 0.0, 0.0, 0.0])  # softmax puts all weight on sample 0
    before = _snapshot(s)
    with pytest.raises(ConfigError, match="num_samples=4 exceeds the 1 samples with a positive"):
        s.set_epoch(2)
    assert _snapshot(s) == before
    assert s.epoch == 1 and len(s._records) == 1


@pytest.mark.parametrize("prior", [None, 0.0])
def test_huge_losses_give_finite_weights(prior: float | None) -> None:
    s = HardExampleSampler(
        5, num_samples=2000, temperature=0.1, floor=0.0, prior=prior, num_replicas=1, rank=0
    )
    s.record([0, 1, 2, 3], [1e308, 1e308, 0.0, -1e308])
    s.set_epoch(1)
    w = s.sampling_weights()
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0)
    assert w[0] == w[1] == pytest.approx(0.5) and w[3] == 0.0
    assert set(s) == {0, 1}
    tiny = HardExampleSampler(3, temperature=1e-300, floor=0.5, num_replicas=1, rank=0)
    tiny.record([0, 1, 2], [1e10, 1e10, 1.0])
    tiny.set_epoch(1)
    assert np.allclose(tiny.sampling_weights(), [0.5 / 3 + 0.25, 0.5 / 3 + 0.25, 0.5 / 3])


def _reference_ema(scores: np.ndarray, idx: np.ndarray, loss: np.ndarray, m: float) -> np.ndarray:
    """The documented update, one record at a time in canonical order."""
    scores = scores.copy()
    for k in np.argsort(idx, kind="stable").tolist():
        i, value = int(idx[k]), float(loss[k])
        current = float(scores[i])
        scores[i] = value if np.isnan(current) else m * current + (1 - m) * value
    return scores


@pytest.mark.parametrize(
    ("n", "num_records", "hot"), [(10, 5000, 0), (300, 4000, 3), (2000, 3000, 40), (50, 60, 0)]
)
def test_vectorized_ema_matches_the_record_by_record_update_exactly(
    n: int, num_records: int, hot: int
) -> None:
    rng = np.random.default_rng(n + num_records)
    s = HardExampleSampler(n, momentum=0.7, num_replicas=1, rank=0)
    expected = s.scores()
    for _ in range(2):  # the second epoch starts from partly seen scores
        idx = rng.integers(0, n, num_records)
        if hot:  # a few samples recorded far more often than the rest
            idx[: num_records // 2] = rng.integers(0, hot, num_records // 2)
        loss = rng.standard_normal(num_records) * 10.0 ** rng.integers(-3, 4, num_records)
        half = num_records // 3
        s.record(torch.from_numpy(idx[:half]), loss[:half])
        s.record(idx[half:], loss[half:])
        s.set_epoch(s.epoch + 1)
        expected = _reference_ema(expected, idx, loss, 0.7)
        assert np.array_equal(s.scores(), expected, equal_nan=True)
