"""A plan's int64 ``flat`` built through the two int32 halves of its own memory."""

from __future__ import annotations

import numpy as np
import pytest

from fairshard._batching import halves
from fairshard._batching.base import check_lengths, reorder_batches, reorder_into
from fairshard._batching.halves import PlanBuffer


@pytest.mark.parametrize("size", [0, 1, 2, 7, 1000, 3 * (1 << 16) + 5])
def test_finish_widens_out_over_the_spent_work(size: int) -> None:
    values = np.random.default_rng(size).integers(0, 2**31 - 1, size)
    buffer = PlanBuffer(size, 2**31)
    assert buffer.out.dtype == buffer.work.dtype == np.int32
    assert not np.shares_memory(buffer.out, buffer.work)
    buffer.work[:] = -1
    buffer.out[:] = values
    count = max(0, size - 3)
    flat = buffer.finish(count)
    assert flat.dtype == np.int64
    assert np.array_equal(flat, values[:count])


def test_indices_past_int32_use_a_separate_int64_work() -> None:
    buffer = PlanBuffer(5, 2**31 + 1)
    assert buffer.out.dtype == buffer.work.dtype == np.int64
    assert not np.shares_memory(buffer.out, buffer.work)
    buffer.out[:] = [2**31, 0, 4, 3, 2]
    assert buffer.finish(5).tolist() == [2**31, 0, 4, 3, 2]


def test_reorder_into_int32_halves_matches_reorder_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(halves, "_WIDEN_CHUNK", 4)  # many chunks
    rng = np.random.default_rng(3)
    offsets = np.concatenate([[0], np.cumsum(rng.integers(1, 9, 50))])
    n = int(offsets[-1])
    flat, order = rng.permutation(n), rng.permutation(50)
    buffer = PlanBuffer(n, n)
    buffer.work[:] = flat
    new_offsets = reorder_into(buffer.work, offsets, order, buffer.out)
    reference = reorder_batches(flat, offsets, order)
    assert np.array_equal(buffer.finish(n), reference.flat)
    assert np.array_equal(new_offsets, reference.offsets)


def test_check_lengths_uses_int64_and_float64_arrays_in_place() -> None:
    ints, floats = np.arange(1, 5, dtype=np.int64), np.ones(3)
    assert check_lengths(ints) is ints
    assert check_lengths(floats) is floats
    narrow = np.arange(1, 5, dtype=np.int32)
    assert check_lengths(narrow).dtype == np.int64  # converted (a copy)
