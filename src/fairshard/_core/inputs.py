"""The one reader of array-like inputs: tensors on any device and of any dtype to numpy.

Weights, lengths, labels, batches and state values all arrive as lists,
numpy arrays or ``torch.Tensor`` (possibly on a GPU, possibly ``bfloat16``,
which numpy cannot hold). Every family reads them through :func:`to_numpy`,
so a dtype that works for one input works for all of them.
"""

from __future__ import annotations

import numbers
from collections.abc import Sized
from typing import Any

import numpy as np
import torch

from .._errors import ConfigError, ConfigTypeError

__all__ = ["dataset_length", "to_numpy"]


def to_numpy(value: Any, name: str) -> Any:
    """``value`` as numpy when it is a tensor or an Arrow column; else unchanged.

    Arrow columns (a ``datasets.Dataset`` column, a pyarrow array) are
    converted by Arrow, without a Python loop over rows.

    Floating-point tensors become float64 (numpy has no bfloat16, and every
    consumer computes in float64 anyway); integer and bool tensors keep their
    dtype. The tensor is detached and copied to the CPU first.

    Args:
        value: A tensor, or any other input (returned as is).
        name: The parameter's name, for messages.

    Raises:
        ConfigError: a 0-d tensor (a single number where a sequence belongs).
    """
    if not isinstance(value, torch.Tensor):
        return _arrow_to_numpy(value)
    if value.ndim == 0:
        raise ConfigError(
            f"{name} is a 0-d tensor ({value.item()!r}); pass a 1-D tensor with one entry per "
            "dataset item, or an int for a dataset size"
        )
    tensor = value.detach().cpu()
    if tensor.is_floating_point():
        tensor = tensor.double()
    return tensor.numpy()


def _arrow_to_numpy(value: Any) -> Any:
    """An Arrow-backed column as numpy, read by Arrow; anything else unchanged.

    NOTE (why): a Hugging Face ``datasets.Dataset`` column (``ds["length"]``,
    a lazy ``Column``) or a pyarrow array converts item by item through
    ``np.asarray`` -- a Python loop over every row (seconds per million).
    Arrow converts the whole column at once: the ``Column`` is read through
    its dataset in Arrow format (which honours ``shuffle``/``select``
    index mappings), a pyarrow ``Array``/``ChunkedArray`` with its own
    ``to_numpy``. Nothing is imported: the types are recognised by module.
    """
    module = type(value).__module__
    if module.startswith("datasets."):
        source, column = getattr(value, "source", None), getattr(value, "column_name", None)
        if isinstance(column, str) and callable(getattr(source, "with_format", None)):
            value = source.with_format("arrow")[column]  # type: ignore[union-attr]
            module = type(value).__module__
    if module.startswith("pyarrow") and callable(getattr(value, "to_numpy", None)):
        if getattr(value, "null_count", 0):
            raise ConfigError(
                f"the Arrow column has {value.null_count} missing values (nulls); fill or "
                "filter them before passing it (one number per dataset item)"
            )
        if hasattr(value, "combine_chunks"):  # ChunkedArray
            return np.asarray(value.to_numpy())
        return np.asarray(value.to_numpy(zero_copy_only=False))
    return value


def dataset_length(dataset: Any, name: str = "dataset") -> int:
    """``len(dataset)``, or an error that says what to pass instead.

    An int is accepted as the dataset size, so samplers can be built (and
    simulated) without a dataset object.
    """
    if isinstance(dataset, torch.Tensor) and dataset.ndim == 0:
        raise ConfigTypeError(
            f"{name} is a 0-d tensor ({dataset.item()!r}); pass the dataset itself, or its "
            f"length as an int (e.g. {name}=int(t) for a size held in a tensor)"
        )
    if isinstance(dataset, bool):
        raise ConfigTypeError(f"{name} must be a sized dataset or an int, got {dataset!r}")
    if isinstance(dataset, numbers.Integral):  # Python and numpy integers
        if dataset < 0:
            raise ConfigError(f"{name} size must be >= 0, got {name}={dataset}")
        return int(dataset)
    if isinstance(dataset, str | bytes):
        raise ConfigTypeError(
            f"{name} must be a sized dataset or an int, got a {type(dataset).__name__} "
            f"({name}={dataset!r}); pass the dataset object or its length"
        )
    if not isinstance(dataset, Sized):
        raise ConfigTypeError(
            f"{name} must define __len__ (a map-style dataset) or be an int size, got "
            f"{type(dataset).__name__}; for an IterableDataset use fairshard.ShardedIterable"
        )
    length = len(dataset)
    if length < 0:
        raise ConfigError(f"len({name}) must be >= 0, got {length}")
    return length
