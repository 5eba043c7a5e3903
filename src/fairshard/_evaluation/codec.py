"""Turn per-rank outputs into byte rows for a collective, and back.

Every supported output -- a tensor or numpy array with a leading sample
dimension, or a list of picklable objects -- becomes one ``(length, width)``
uint8 tensor: one row of ``width`` bytes per sample for arrays (so any dtype,
``bool`` and ``bfloat16`` included, travels on gloo and nccl alike), or the
pickled list as ``(nbytes, 1)``. Collectives then only ever move uint8 rows,
padded to the longest rank.
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .._errors import ConfigTypeError

__all__ = ["Encoded", "Meta", "decode", "encode"]


@dataclass(frozen=True)
class Meta:
    """What a rank sends ahead of its bytes: enough to decode them and to check peers.

    Attributes:
        kind: ``"tensor"``, ``"numpy"`` or ``"objects"``.
        rows: Number of samples (the leading dimension, or the list length).
        dtype: ``torch.dtype`` or ``numpy.dtype`` (``None`` for objects).
        trailing: Shape of one sample (``()`` for objects).
        length: Rows of the byte tensor (``rows``, or the pickle size).
        width: Bytes per row of the byte tensor.
    """

    kind: str
    rows: int
    dtype: Any
    trailing: tuple[int, ...]
    length: int
    width: int

    def describe(self) -> str:
        """Human-readable type, for error messages."""
        if self.kind == "objects":
            return "a list of objects"
        return f"a {self.kind} of dtype {self.dtype} with sample shape {self.trailing}"


@dataclass(frozen=True)
class Encoded:
    """A rank's outputs as ``(meta.length, meta.width)`` uint8 ``data``."""

    meta: Meta
    data: torch.Tensor
    device: torch.device | None  # where a tensor result should live


def _leading(shape: tuple[int, ...], kind: str) -> tuple[int, tuple[int, ...]]:
    if not shape:
        raise ConfigTypeError(
            f"outputs must have a leading sample dimension, got a 0-dimensional {kind}; "
            "stack per-sample results into shape (num_samples, ...)"
        )
    return shape[0], tuple(shape[1:])


def encode(outputs: Any) -> Encoded:
    """Encode one rank's outputs.

    Raises:
        ConfigTypeError: ``outputs`` is not a tensor, numpy array, list or tuple,
            has no leading dimension, or is an object array.
    """
    if isinstance(outputs, torch.Tensor):
        tensor = outputs.detach()
        rows, trailing = _leading(tuple(tensor.shape), "tensor")
        flat = tensor.contiguous().reshape(rows, math.prod(trailing))
        data = flat.view(torch.uint8) if tensor.dtype != torch.uint8 else flat
        meta = Meta("tensor", rows, tensor.dtype, trailing, rows, int(data.shape[1]))
        return Encoded(meta, data, tensor.device)
    if isinstance(outputs, np.ndarray):
        if outputs.dtype.hasobject:
            raise ConfigTypeError(
                f"outputs is a numpy array of dtype {outputs.dtype}, which holds Python "
                "objects; pass a list of the objects instead"
            )
        array = np.ascontiguousarray(outputs)
        rows, trailing = _leading(array.shape, "numpy array")
        raw = array.reshape(rows, math.prod(trailing)).view(np.uint8)
        raw = raw if raw.flags.writeable else raw.copy()
        meta = Meta("numpy", rows, array.dtype, trailing, rows, int(raw.shape[1]))
        return Encoded(meta, torch.from_numpy(raw), None)
    if isinstance(outputs, list | tuple):
        payload = pickle.dumps(list(outputs), protocol=pickle.HIGHEST_PROTOCOL)
        data = torch.frombuffer(bytearray(payload), dtype=torch.uint8).reshape(-1, 1)
        meta = Meta("objects", len(outputs), None, (), int(data.shape[0]), 1)
        return Encoded(meta, data, None)
    raise ConfigTypeError(
        f"outputs must be a torch.Tensor or numpy array with a leading sample dimension, or "
        f"a list of per-sample objects, got {type(outputs).__name__}"
    )


def decode(meta: Meta, data: torch.Tensor) -> Any:
    """Invert ``encode``: ``data`` holds at least ``meta.length`` rows of ``meta.width`` bytes."""
    rows = data[: meta.length]
    if meta.kind == "objects":
        return pickle.loads(rows.reshape(-1).cpu().numpy().tobytes())
    if meta.kind == "numpy":
        raw = rows.cpu().numpy()
        return raw.view(meta.dtype).reshape((meta.rows, *meta.trailing))
    values = rows if meta.dtype == torch.uint8 else rows.view(meta.dtype)
    return values.reshape((meta.rows, *meta.trailing))
