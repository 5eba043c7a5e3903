"""One stable hash of plain data and arrays: config digests, state checksums, plan fingerprints.

It lives with the job tools, below the sampler core, because both sides hash:
the core seals states with it and ``verify`` compares ranks' fingerprints by it.
``values_digest`` fingerprints a user's callable by what it computes on fixed
probes (a token-budget cost on probe batches, a curriculum on probe epochs):
the one mechanism for every callable that a resumed sampler must match.
Tensors are hashed by their values as numpy holds them (floating point as
float64, the way every family reads its inputs), so a weight given as a tensor
and the same weight as a list of floats digest alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import torch

__all__ = ["digest", "values_digest"]


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


def values_digest(fn: Callable[[Any], Any], probes: Iterable[Any]) -> str:
    """16 hex digits of ``fn``'s values on ``probes``: a callable compared by what it computes.

    Each value is read as float64 (a number or an array of numbers) and the
    values are hashed in probe order, so two callables agree exactly when
    they give the same numbers on every probe. Callables that agree on every
    probe and differ elsewhere cannot be told apart: choose probes that cover
    what the caller uses (several batch sizes and lengths, several epochs).
    """
    values = [np.asarray(fn(p), dtype="<f8").reshape(-1) for p in probes]
    data = np.concatenate(values).tobytes() if values else b""
    return hashlib.sha256(data).hexdigest()[:16]
