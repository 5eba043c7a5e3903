"""One stable hash of plain data and arrays: config digests, state checksums, plan fingerprints.

It lives with the job tools, below the sampler core, because both sides hash:
the core seals states with it and ``verify`` compares ranks' fingerprints by it.
Tensors are hashed by their values as numpy holds them (floating point as
float64, the way every family reads its inputs), so a weight given as a tensor
and the same weight as a list of floats digest alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

__all__ = ["digest"]


def _feed(h: Any, value: Any) -> None:
    """Feed ``value`` into hash ``h`` canonically (dict order does not matter)."""
    if isinstance(value, np.ndarray):
        h.update(f"nd:{value.dtype.str}:{value.shape}:".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, torch.Tensor):
        tensor = value.detach().cpu()
        _feed(h, (tensor.double() if tensor.is_floating_point() else tensor).numpy())
    elif isinstance(value, Mapping):
        h.update(b"{")
        for key in sorted(value, key=str):
            h.update(json.dumps(str(key)).encode())
            _feed(h, value[key])
        h.update(b"}")
    elif isinstance(value, list | tuple):
        h.update(b"[")
        for item in value:
            _feed(h, item)
            h.update(b",")
        h.update(b"]")
    else:
        h.update(json.dumps(value, sort_keys=True).encode())


def digest(value: Any) -> str:
    """A short stable hash of plain data and arrays (16 hex digits)."""
    h = hashlib.sha256()
    _feed(h, value)
    return h.hexdigest()[:16]
