"""Class labels given as ints or strings, in any container, as class codes."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError, ConfigTypeError

__all__ = ["encode_labels"]


def encode_labels(labels: Any, name: str = "labels") -> tuple[list[Any], NDArray[np.int64]]:
    """Validate labels and map them to codes ``0..C-1``.

    Accepts a list, tuple, numpy array or tensor of ints, or a list, tuple or
    numpy array of strings -- one label per dataset item.

    Returns:
        The sorted distinct classes (Python ints or strs) and ``(n,)`` int64
        codes: ``classes[codes[i]]`` is item ``i``'s label.

    Raises:
        ConfigTypeError: labels of another type (floats, bools, mixed types).
        ConfigError: labels that are not 1-D, or empty.

    Example:
        >>> encode_labels(["b", "a", "b"])
        (['a', 'b'], array([1, 0, 1]))
    """
    if hasattr(labels, "detach") and hasattr(labels, "cpu"):  # torch.Tensor
        labels = labels.detach().cpu().numpy()
    if isinstance(labels, str | bytes | Mapping) or not hasattr(labels, "__len__"):
        raise ConfigTypeError(
            f"{name} must be a 1-D sequence (one class label per item), got {type(labels).__name__}"
        )
    array = labels if isinstance(labels, np.ndarray) else np.asarray(list(labels), dtype=object)
    if array.ndim != 1:
        raise ConfigError(f"{name} must be 1-D (one label per item), got shape {array.shape}")
    if array.size == 0:
        raise ConfigError(f"{name} is empty; pass one class label per dataset item")
    if array.dtype.kind in "iu":
        values = array.astype(np.int64)
    elif array.dtype.kind == "U":
        values = array
    elif array.dtype == object:
        items = array.tolist()
        if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
            values = np.asarray([int(v) for v in items], dtype=np.int64)
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
    return classes.tolist(), codes.reshape(-1).astype(np.int64)
