"""The packed-word Efraimidis-Spirakis order equals the exact (key, index) sort."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from fairshard._random.counter import counter_hash, uniform_open
from fairshard._samplers.exponential_keys import exponential_keys_order


def _reference(weights: NDArray[np.float64], m: int, keys: NDArray[np.uint64]) -> NDArray[np.int64]:
    """The definition: keys log(E_i) - log(w_i), the m smallest by (key, index)."""
    n = weights.shape[0]
    e = -np.log(uniform_open(counter_hash(keys, np.arange(n, dtype=np.int64))))
    positive = weights > 0
    key = np.full(n, np.inf)
    np.subtract(
        np.log(e),
        np.log(weights, where=positive, out=np.ones_like(weights)),
        out=key,
        where=positive,
    )
    order: NDArray[np.int64] = np.lexsort((np.arange(n), key))[:m]
    return order


def _weights(kind: int, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    if kind == 0:
        w = rng.random(n)
    elif kind == 1:  # many zeros
        w = rng.random(n) * (rng.random(n) > 0.5)
    elif kind == 2:  # weights across the float64 range: a wide key span, coarse quantization
        w = np.exp(rng.uniform(-700, 700, n)) * (rng.random(n) > 0.3)
    else:  # equal weights
        w = np.ones(n) * (rng.random(n) > 0.2)
    if not (w > 0).any():
        w[0] = 1.0
    return w


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 3000),
    kind=st.integers(0, 3),
    fraction=st.floats(0.0, 1.0),
    quant_bits=st.sampled_from([None, 1, 2, 5, 12]),
    seed=st.integers(0, 2**32),
)
def test_equals_the_exact_sort(
    n: int, kind: int, fraction: float, quant_bits: int | None, seed: int
) -> None:
    # Few quantization bits force long runs of tied words: they must resolve
    # exactly as the full-precision sort, at the cut of num_samples too.
    rng = np.random.default_rng(seed)
    w = _weights(kind, n, rng)
    m = max(1, round(fraction * int((w > 0).sum())))
    keys = rng.integers(0, 2**63, 2, dtype=np.uint64)
    got = exponential_keys_order(w, m, keys, quant_bits=quant_bits)
    assert got.dtype == np.int32
    assert np.array_equal(got, _reference(w, m, keys))


def test_equals_the_exact_sort_at_a_million() -> None:
    # At this size the default quantization leaves real ties to resolve.
    rng = np.random.default_rng(3)
    w = rng.random(1 << 20)
    keys = np.array([5, 6], dtype=np.uint64)
    for m in (1 << 20, 1000, 1):
        assert np.array_equal(exponential_keys_order(w, m, keys), _reference(w, m, keys))


def test_quant_bits_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="quant_bits=60"):
        exponential_keys_order(np.ones(10), 3, np.ones(2, np.uint64), quant_bits=60)
