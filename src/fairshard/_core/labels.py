"""The one label validator: class labels (ints or strings, any container) as class codes.

Every family that takes labels reads them here, so the same input is accepted
or refused the same way everywhere: all ints (within int64) or all strings;
bytes, floats, bools and mixed types are refused with the fix.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, ConfigTypeError
from .inputs import to_numpy

__all__ = ["code_dtype", "encode_labels"]


def encode_labels(
    labels: Any, name: str = "labels", *, narrow: bool = False
) -> tuple[list[Any], NDArray[np.integer[Any]]]:
    """Validate labels and map them to codes ``0..C-1``.

    Accepts a list, tuple, numpy array or tensor of ints, or a list, tuple or
    numpy array of strings -- one label per dataset item.

    NOTE (speed, memory): integer labels over a range no wider than the
    dataset (or 2**16) are coded by counting, not by ``numpy.unique``'s sort:
    a ``bincount`` of the values and one gather through the codes of the
    values present -- the same classes and codes, without the sort's five
    arrays of the labels' size (about 0.05 s instead of 1-4 s at 1e7 labels).

    Args:
        labels: One class label per dataset item.
        name: The parameter's name, for messages.
        narrow: Return the codes in the smallest dtype that holds them
            (uint16 for up to 65,536 classes, else int32 or int64) instead
            of int64: a quarter of the memory for a sampler that keeps them.

    Returns:
        The sorted distinct classes (Python ints or strs) and ``(n,)`` int64
        (or, with ``narrow``, narrower) codes: ``classes[codes[i]]`` is item
        ``i``'s label.

    Raises:
        ConfigTypeError: labels of another type (floats, bools, mixed types).
        ConfigError: labels that are not 1-D, or empty.

    Example:
        >>> encode_labels(["b", "a", "b"])
        (['a', 'b'], array([1, 0, 1]))
    """
    labels = to_numpy(labels, name)
    if isinstance(labels, str | bytes | Mapping) or not hasattr(labels, "__len__"):
        raise ConfigTypeError(
            f"{name} must be a 1-D sequence (one class label per item), got {type(labels).__name__}"
        )
    array = labels if isinstance(labels, np.ndarray) else np.asarray(list(labels), dtype=object)
    if array.ndim != 1:
        raise ConfigError(f"{name} must be 1-D (one label per item), got shape {array.shape}")
    if array.size == 0:
        raise ConfigError(f"{name} is empty; pass one class label per dataset item")
    if array.dtype.kind == "S" or (
        array.dtype == object and any(isinstance(v, bytes) for v in array.tolist())
    ):
        raise ConfigTypeError(
            f"{name} must be ints or str, got bytes (dtype {array.dtype}); bytes labels cannot "
            "be saved in state_dict(), so decode them first, e.g. "
            f"[label.decode() for label in {name}]"
        )
    if array.dtype.kind in "iu":
        values = _checked_int64(array, name)
        counted = _count_codes(values, narrow)
        if counted is not None:
            return counted
    elif array.dtype.kind == "U":
        values = array
    elif array.dtype == object:
        items = array.tolist()
        if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
            values = _checked_int64(np.asarray([int(v) for v in items], dtype=object), name)
        elif all(isinstance(v, str) for v in items):
            values = np.asarray(items, dtype=str)
        else:
            bad = next(
                i
                for i, v in enumerate(items)
                if not isinstance(v, str | numbers.Integral)
                or isinstance(v, bool)
                or isinstance(v, str) != isinstance(items[0], str)
            )
            beside = f" beside {name}[0]={items[0]!r}" if bad else ""
            raise ConfigTypeError(
                f"{name} must be all ints or all strings, got {name}[{bad}]={items[bad]!r} "
                f"({type(items[bad]).__name__}){beside}"
            )
    else:
        raise ConfigTypeError(
            f"{name} must hold ints or strings, got dtype {array.dtype}; convert class "
            "labels to ints (e.g. with numpy.unique(..., return_inverse=True))"
        )
    classes, codes = np.unique(values, return_inverse=True)
    codes = codes.reshape(-1)
    return classes.tolist(), codes.astype(code_dtype(classes.size) if narrow else np.int64)


def code_dtype(num_classes: int) -> type[np.integer[Any]]:
    """The smallest dtype for codes ``0..num_classes-1`` (uint16, which numpy sorts by radix)."""
    if num_classes <= 1 << 16:
        return np.uint16
    return np.int32 if num_classes <= 1 << 31 else np.int64


def _count_codes(
    values: NDArray[np.int64], narrow: bool
) -> tuple[list[Any], NDArray[np.integer[Any]]] | None:
    """``numpy.unique``'s classes and codes by counting, where the range allows (see NOTE)."""
    low, high = int(values.min()), int(values.max())
    span = max(values.size, 1 << 16)  # the widest range counted
    base = 0 if low >= 0 and high < span else low
    if high - base >= span:
        return None  # a sparse range: the sort is cheaper than a count over it
    shifted = values if base == 0 else values - base
    present = np.bincount(shifted) > 0  # (high - base + 1,)
    num_classes = int(np.count_nonzero(present))
    codes = np.cumsum(present, dtype=np.int64)
    codes -= 1
    dtype = code_dtype(num_classes) if narrow else np.int64
    classes = np.flatnonzero(present)
    classes += base
    return classes.tolist(), codes.astype(dtype)[shifted]


_INT64 = np.iinfo(np.int64)


def _checked_int64(array: NDArray[Any], name: str) -> NDArray[np.int64]:
    """Integer labels as int64, refusing values that would wrap (uint64 above 2**63 - 1)."""
    if array.dtype == object:
        low, high = min(array.tolist()), max(array.tolist())
    else:
        low, high = int(array.min()), int(array.max())
    if low < _INT64.min or high > _INT64.max:
        bad = next(i for i, v in enumerate(array.tolist()) if not _INT64.min <= v <= _INT64.max)
        raise ConfigError(
            f"{name}[{bad}]={array.tolist()[bad]} does not fit in int64; map class labels to "
            "small ints first (e.g. numpy.unique(labels, return_inverse=True)[1])"
        )
    return array.astype(np.int64, copy=False)
