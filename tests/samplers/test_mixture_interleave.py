"""The interleave behind MixtureSampler: Tijdeman's bound, periodicity, O(1) look-ups."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard._samplers.interleave import Interleave, quotas_from_weights


def prefix_deviation(sources: np.ndarray, proportions: np.ndarray) -> float:
    counts = np.zeros((sources.size + 1, proportions.size))
    counts[np.arange(1, sources.size + 1), sources] = 1
    counts = counts.cumsum(axis=0)
    targets = np.arange(sources.size + 1)[:, None] * proportions[None, :]
    return float(np.abs(counts - targets).max())


def greedy_blend(proportions: np.ndarray, size: int) -> np.ndarray:
    """The rule of Megatron-LM's blended index: the source with the largest error next.

    error_s = proportion_s * max(i, 1) - count_s at sample i; ties to the lower source.
    """
    counts = np.zeros(proportions.size)
    out = np.empty(size, dtype=np.int64)
    for i in range(size):
        s = int(np.argmax(proportions * max(i, 1) - counts))
        out[i] = s
        counts[s] += 1
    return out


@given(st.lists(st.integers(0, 40), min_size=1, max_size=9).filter(lambda q: sum(q) > 0))
def test_deviation_below_tijdemans_bound_over_several_periods(quotas: list[int]) -> None:
    il = Interleave(np.array(quotas))
    sources, _ = il.take(np.arange(3 * il.period, dtype=np.int64))
    active = sum(q > 0 for q in quotas)
    bound = 1 - 1 / (2 * active - 2) if active > 1 else 0.0
    assert prefix_deviation(sources, il.quotas / il.period) <= bound + 1e-12


@given(st.lists(st.integers(0, 40), min_size=1, max_size=9).filter(lambda q: sum(q) > 0))
def test_lookups_agree_with_counting(quotas: list[int]) -> None:
    il = Interleave(np.array(quotas))
    positions = np.arange(2 * il.period + 5, dtype=np.int64)
    sources, draws = il.take(positions)
    for s, q in enumerate(quotas):
        mine = np.flatnonzero(sources == s)
        assert draws[mine].tolist() == list(range(mine.size))  # draw numbers count up
        for k in range(mine.size):
            assert il.position_of(s, k) == mine[k]
        if q == 0:
            assert mine.size == 0
    for p in (0, 1, il.period, positions.size):
        assert (
            il.draws_before(p).tolist() == np.bincount(sources[:p], minlength=len(quotas)).tolist()
        )


@pytest.mark.parametrize("quotas", [[1, 1, 7], [1, 2, 2, 19, 2], [106, 1, 1, 46, 1]])
def test_greedy_blend_drifts_past_one_sample_where_the_interleave_does_not(
    quotas: list[int],
) -> None:
    proportions = np.array(quotas) / sum(quotas)
    greedy = prefix_deviation(greedy_blend(proportions, 4 * sum(quotas)), proportions)
    ours = prefix_deviation(
        Interleave(np.array(quotas)).take(np.arange(4 * sum(quotas)))[0], proportions
    )
    assert greedy > 1.0
    assert ours < 1.0


def test_quotas_exact_for_integers_and_decimals_rounded_otherwise() -> None:
    assert quotas_from_weights(np.array([10.0, 20.0, 30.0]), 1 << 16).tolist() == [1, 2, 3]
    assert quotas_from_weights(np.array([0.25, 0.5, 0.25]), 1 << 16).tolist() == [1, 2, 1]
    big = quotas_from_weights(np.array([1e-9, 1.0]), 1 << 10)
    assert big.tolist() == [1, 1023]  # a positive weight keeps a slot
    sizes = quotas_from_weights(np.array([1_234_567.0, 7_654_321.0]), 1 << 16)
    assert sizes.sum() == 1 << 16 and abs(sizes[0] / (1 << 16) - 1_234_567 / 8_888_888) < 2**-16
