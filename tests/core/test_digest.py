"""The one stable hash is byte for byte the canonical JSON encoding it always was.

Saved states carry checksums made with it, so its fast paths for plain
scalars must write exactly what ``json.dumps`` writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard._distributed.digest import _BLOCK, AsDtype, digest, encode


def _reference(h: Any, value: Any) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"nd:{value.dtype.str}:{value.shape}:".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, Mapping):
        h.update(b"{")
        for key in sorted(value, key=str):
            h.update(json.dumps(str(key)).encode())
            _reference(h, value[key])
        h.update(b"}")
    elif isinstance(value, list | tuple):
        h.update(b"[")
        for item in value:
            _reference(h, item)
            h.update(b",")
        h.update(b"]")
    else:
        h.update(json.dumps(value, sort_keys=True).encode())


def reference_digest(value: Any) -> str:
    h = hashlib.sha256()
    _reference(h, value)
    return h.hexdigest()[:16]


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_digest_equals_the_canonical_json_encoding(value: Any) -> None:
    assert digest(value) == reference_digest(value)


def test_arrays_and_refusals_unchanged() -> None:
    value = {"a": np.arange(6, dtype=np.int32).reshape(2, 3), "b": [np.float64(0.5).item()]}
    assert digest(value) == reference_digest(value)
    with pytest.raises(TypeError):
        digest({1, 2})  # not JSON: refused as json.dumps refuses it


def test_large_arrays_are_streamed_to_the_same_hash() -> None:
    big = np.random.default_rng(0).integers(0, 1000, 2 * _BLOCK + 7)
    value = [big, {"k": big[::-1].reshape(-1, 1), "s": "x"}, 3]
    assert (
        digest(value) == reference_digest(value) == hashlib.sha256(encode(value)).hexdigest()[:16]
    )


@pytest.mark.parametrize("size", [0, 5, _BLOCK, 2 * _BLOCK + 3])
def test_as_dtype_hashes_as_the_converted_array(size: int) -> None:
    codes = (np.arange(size) % 997).astype(np.uint16)
    wide = codes.astype(np.int64)
    assert digest([AsDtype(codes, np.dtype(np.int64)), ["a"]]) == digest([wide, ["a"]])
    assert encode(AsDtype(codes, np.dtype(np.int64))) == encode(wide)


def test_arrays_are_hashed_in_place_as_their_bytes() -> None:
    big = np.arange(100_000, dtype=np.int64)  # over the size hashed on its own
    strided = np.arange(24, dtype=np.int16).reshape(4, 6)[:, ::2]  # not contiguous
    value = {"big": big, "strided": strided, "small": [np.zeros(3), 7], "empty": np.zeros(0)}
    assert digest(value) == reference_digest(value)
    assert digest(big) == reference_digest(big)
    assert digest([big, big[::-1]]) == reference_digest([big, big[::-1]])
