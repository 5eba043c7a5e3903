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
import math
from collections.abc import Callable, Iterable, Mapping
from json.encoder import encode_basestring_ascii as _encode_str
from typing import Any

import numpy as np
import torch

__all__ = ["digest", "encode", "encode_scalar", "is_plain", "memo_key", "values_digest"]


def _scalar(value: Any) -> bytes:
    """``json.dumps(value, sort_keys=True).encode()``, without its call overhead for plain scalars.

    Byte for byte what ``json.dumps`` writes (checksums of saved states depend
    on it): strings through the same C encoder, ints and floats through their
    ``repr`` (with JSON's ``NaN``/``Infinity``), and anything else through
    ``json.dumps`` itself (which refuses what JSON cannot hold).
    """
    kind = type(value)
    if kind is str:
        return _encode_str(value).encode()
    if kind is bool:
        return b"true" if value else b"false"
    if kind is int:
        return int.__repr__(value).encode()
    if kind is float:
        if value != value:
            return b"NaN"
        if value in (math.inf, -math.inf):
            return b"Infinity" if value > 0 else b"-Infinity"
        return float.__repr__(value).encode()
    if value is None:
        return b"null"
    return json.dumps(value, sort_keys=True).encode()


def _feed(out: list[bytes | memoryview], value: Any) -> None:
    """Append ``value``'s canonical bytes to ``out`` (dict order does not matter)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        out.append(b"{")
        for key in sorted(value, key=str):
            out.append(_encode_str(str(key)).encode())
            _feed(out, value[key])
        out.append(b"}")
    elif kind is list or kind is tuple or isinstance(value, list | tuple):
        out.append(b"[")
        for item in value:
            _feed(out, item)
            out.append(b",")
        out.append(b"]")
    elif isinstance(value, np.ndarray):
        out.append(f"nd:{value.dtype.str}:{value.shape}:".encode())
        contiguous = np.ascontiguousarray(value)
        # The array's own buffer, not a copy: ``digest`` hashes it in place.
        out.append(
            contiguous.tobytes() if contiguous.dtype.hasobject else contiguous.data.cast("B")
        )
    elif isinstance(value, torch.Tensor):
        tensor = value.detach().cpu()
        _feed(out, (tensor.double() if tensor.is_floating_point() else tensor).numpy())
    else:
        out.append(_scalar(value))


def encode(value: Any) -> bytes:
    """The canonical bytes ``digest`` hashes (dict order does not matter)."""
    out: list[bytes | memoryview] = []
    _feed(out, value)
    return b"".join(out)


encode_scalar = _scalar


_PLAIN_SCALARS = frozenset((str, int, float, bool, type(None)))


def is_plain(value: Any) -> bool:
    """Whether ``value`` holds only exact dicts (str keys), lists, tuples and plain scalars.

    Plain scalars: exact str, int, float, bool, None. For plain values
    ``repr`` is injective on what ``encode`` writes: two plain values with
    the same ``repr`` encode alike (``repr`` tells ``1``, ``1.0``, ``True``,
    ``-0.0`` and ``0.0`` apart, as the encoding does).
    """
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if kind is dict:
        if not set(map(type, value)) <= {str}:
            return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    return set(map(type, items)) <= _PLAIN_SCALARS or all(map(is_plain, items))


_EQUAL_ENCODE_ALIKE = frozenset((str, int, bool, type(None)))


def memo_key(value: Any) -> Any:
    """A key to keep ``encode(value)`` under: equal keys, equal bytes (``None``: do not keep).

    A flat list or tuple of str, int, bool or None is keyed by its values
    and each value's exact type (values of these types that compare equal
    encode alike); other plain data by its ``repr`` (see ``is_plain``).
    """
    kind = type(value)
    if kind is list or kind is tuple:
        types = tuple(map(type, value))
        if set(types) <= _EQUAL_ENCODE_ALIKE:
            return (kind, types, tuple(value))
    return repr(value) if is_plain(value) else None


def digest(value: Any) -> str:
    """A short stable hash of plain data and arrays (16 hex digits).

    The pieces are hashed one after the other, arrays from their own
    memory: hashing a plan-sized array takes no copy of it.
    """
    out: list[bytes | memoryview] = []
    _feed(out, value)
    hashed = hashlib.sha256()
    for piece in out:
        hashed.update(piece)
    return hashed.hexdigest()[:16]


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
