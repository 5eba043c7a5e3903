"""The one label encoder: counting and sorting give numpy.unique's classes and codes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard._core.labels import code_dtype, encode_labels

int_labels = st.one_of(
    st.lists(st.integers(-5, 40), min_size=1, max_size=200),
    st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=30),  # a sparse range: sorted
    st.lists(st.integers(10**12, 10**12 + 9), min_size=1, max_size=50),
)


@settings(max_examples=200, deadline=None)
@given(int_labels, st.sampled_from([np.int64, np.int32, np.uint64, object]))
def test_int_labels_code_as_numpy_unique(values: list[int], dtype: object) -> None:
    if dtype in (np.int32, np.uint64) and not all(
        np.iinfo(dtype).min <= v <= np.iinfo(dtype).max  # type: ignore[call-overload]
        for v in values
    ):
        return
    labels = np.asarray(values, dtype=dtype)  # type: ignore[call-overload]
    classes, codes = encode_labels(labels)
    expected, inverse = np.unique(
        np.asarray(values, dtype=object).astype(np.int64), return_inverse=True
    )
    assert classes == expected.tolist()
    assert all(type(c) is int for c in classes)
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, inverse.reshape(-1))
    narrow_classes, narrow = encode_labels(labels, narrow=True)
    assert narrow_classes == classes
    assert narrow.dtype == code_dtype(len(classes)) == np.uint16
    np.testing.assert_array_equal(narrow, codes)


def test_narrow_codes_of_strings_and_many_classes() -> None:
    classes, codes = encode_labels(["b", "a", "b"], narrow=True)
    assert classes == ["a", "b"] and codes.dtype == np.uint16 and codes.tolist() == [1, 0, 1]
    values = np.arange(70_000)[::-1]
    classes, codes = encode_labels(values, narrow=True)
    assert codes.dtype == np.int32 and codes.tolist()[:2] == [69_999, 69_998]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16])
def test_small_int_dtypes(dtype: type) -> None:
    classes, codes = encode_labels(np.array([3, 1, 3, 0], dtype=dtype))
    assert classes == [0, 1, 3] and codes.tolist() == [2, 1, 2, 0]
