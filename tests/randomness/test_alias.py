import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from fairshard._random.alias import AliasTable
from fairshard._random.counter import counter_hash, scale, uniform_open

KEYS = np.array([0x1234, 0xABCD], dtype=np.uint64)

weight_lists = st.lists(
    st.one_of(st.just(0.0), st.floats(1e-6, 1e6), st.integers(1, 5).map(float)),
    min_size=1,
    max_size=200,
).filter(lambda w: sum(w) > 0)


@given(weight_lists)
def test_table_reproduces_the_weights(weights: list[float]) -> None:
    w = np.array(weights)
    table = AliasTable(w)
    p = table.probabilities()
    # Exact up to the 2**-32 resolution of each cell.
    assert np.allclose(p, w / w.sum(), rtol=0, atol=4 * len(w) * 2.0**-32 / len(w) + 1e-12)
    assert np.all(p[w == 0] == 0)
    assert p.sum() == pytest.approx(1.0)


@given(weight_lists, st.integers(0, 2**63))
def test_zero_weights_never_drawn(weights: list[float], start: int) -> None:
    w = np.array(weights)
    drawn = AliasTable(w).draw(counter_hash(KEYS, np.arange(start % 2**40, start % 2**40 + 500)))
    assert np.all(w[drawn] > 0)
    assert drawn.min() >= 0 and drawn.max() < len(w)


def test_special_shapes() -> None:
    assert AliasTable(np.ones(7)).probabilities().tolist() == [1 / 7] * 7
    single = AliasTable(np.array([3.5]))
    assert single.draw(counter_hash(KEYS, np.arange(10))).tolist() == [0] * 10
    one_positive = AliasTable(np.r_[np.zeros(1000), 2.0, np.zeros(5)])
    assert set(one_positive.draw(counter_hash(KEYS, np.arange(2000))).tolist()) == {1000}
    tiny = AliasTable(np.r_[np.ones(100), 1e-300])
    assert tiny.probabilities()[-1] > 0  # a positive weight keeps a chance


def test_draw_frequencies_chi_square() -> None:
    rng = np.random.default_rng(5)
    w = rng.pareto(1.5, 300) + 0.01
    w[::17] = 0.0
    draws = AliasTable(w).draw(counter_hash(KEYS, np.arange(600_000)))
    counts = np.bincount(draws, minlength=len(w))
    assert counts[w == 0].sum() == 0
    expected = w / w.sum() * len(draws)
    keep = w > 0
    p = stats.chisquare(counts[keep], expected[keep]).pvalue
    assert p > 1e-3


def test_counter_hash_uniform_and_random_access() -> None:
    h = counter_hash(KEYS, np.arange(200_000))
    cells, frac = scale(h, 64)
    assert stats.chisquare(np.bincount(cells.astype(np.int64), minlength=64)).pvalue > 1e-3
    assert stats.kstest(frac.astype(np.float64) / 2**32, "uniform").pvalue > 1e-3
    u = uniform_open(h)
    assert u.min() > 0 and u.max() < 1
    assert np.array_equal(counter_hash(KEYS, np.arange(5, 9)), h[5:9])
    other = counter_hash(np.array([0x1234, 0xABCE], dtype=np.uint64), np.arange(5))
    assert not np.array_equal(other, h[:5])


def test_scale_handles_full_range() -> None:
    h = np.array([0, 2**64 - 1, 2**63], dtype=np.uint64)
    cells, _ = scale(h, 2**32)
    assert cells.tolist() == [0, 2**32 - 1, 2**31]
    cells, _ = scale(h, np.array([1, 5, 10], dtype=np.uint64))
    assert cells.tolist() == [0, 4, 5]


def test_rejects_sizes_out_of_range() -> None:
    with pytest.raises(ValueError, match="holds 1 to"):
        AliasTable(np.zeros(0))


@given(weight_lists)
def test_chunked_construction_matches_single_pass(weights: list[float]) -> None:
    import fairshard._random.alias as alias_module

    w = np.array(weights)
    whole = AliasTable(w).probabilities()
    saved = alias_module._CHUNK
    alias_module._CHUNK = 7  # many chunks, boundaries everywhere
    try:
        chunked = AliasTable(w).probabilities()
    finally:
        alias_module._CHUNK = saved
    assert np.allclose(chunked, whole, rtol=0, atol=1e-12)
    assert np.all(chunked[w == 0] == 0)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([1e308, 1e308], [0.5, 0.5]),  # sum(w) overflows
        ([1e-300, 1e-300], [0.5, 0.5]),  # n * U / sum(w) overflows
        ([1e-310, 0.0, 3e-310], [0.25, 0.0, 0.75]),  # subnormal weights
        ([1.7e308, 1.7e308, 0.0, 1.7e308], [1 / 3, 1 / 3, 0.0, 1 / 3]),
    ],
)
def test_weights_near_the_float64_limits(weights: list[float], expected: list[float]) -> None:
    table = AliasTable(np.array(weights))
    p = table.probabilities()
    assert np.allclose(p, expected, rtol=0, atol=2.0**-30)
    drawn = table.draw(counter_hash(KEYS, np.arange(4000)))
    counts = np.bincount(drawn, minlength=len(weights)) / 4000
    assert np.allclose(counts, expected, atol=0.05)


@given(weight_lists, st.integers(-1000, 1000))
def test_power_of_two_rescaling_gives_the_same_table(weights: list[float], shift: int) -> None:
    w = np.array(weights)
    scaled = np.ldexp(w, shift)
    if not np.all(np.isfinite(scaled)) or np.any((scaled == 0) != (w == 0)):
        return  # out of float64 range: nothing to compare
    if np.any(np.ldexp(scaled, -shift) != w):
        return  # the shift lost bits in subnormals
    a, b = AliasTable(w), AliasTable(scaled)
    assert np.array_equal(a.alias, b.alias)
    assert np.array_equal(a.threshold, b.threshold)
