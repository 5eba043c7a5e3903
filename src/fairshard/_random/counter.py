"""Counter-based random numbers: a keyed hash of a plan position.

A plan with random access cannot walk a generator forward to position ``p``;
instead the randomness *at* position ``p`` is a hash of ``(key, p)``. The hash
is the SplitMix64 output function applied twice with two 64-bit keys from the
library's stream derivation (``_seeding``), so the numbers are a pure function
of ``(seed, epoch, position)``: any rank computes any position without
computing the ones before it, and the result does not depend on the world
size.

NOTE (mapping to a range): ``scale(h, n)`` maps a 64-bit word to
``floor(h * n / 2**64)`` -- Lemire's multiply-shift with the full 64 bits, so
the bias is at most ``n / 2**64`` -- and also returns the next 32 bits of the
product, a uniform fraction inside the chosen cell that alias tables use for
their coin flip. ``n`` may be an array (one range per element) and must be at
most ``2**32``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["MAX_RANGE", "counter_hash", "scale", "uniform_open"]

#: Largest range ``scale`` maps into.
MAX_RANGE = 1 << 32

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_S11, _S27, _S30, _S31, _S32 = (np.uint64(s) for s in (11, 27, 30, 31, 32))


def _mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's output function, in place on ``x``."""
    x ^= x >> _S30
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


def counter_hash(keys: NDArray[np.uint64], positions: NDArray[np.int64]) -> NDArray[np.uint64]:
    """64 pseudo-random bits per position, keyed by two 64-bit words.

    Args:
        keys: (2,) uint64 words (from ``stream_words``).
        positions: (m,) int64 plan positions (or any other counters).

    Returns:
        (m,) uint64 hashes.

    Example:
        >>> import numpy as np
        >>> keys = np.array([1, 2], dtype=np.uint64)
        >>> a = counter_hash(keys, np.arange(4, dtype=np.int64))
        >>> bool(np.array_equal(a[2:], counter_hash(keys, np.array([2, 3]))))
        True
    """
    with np.errstate(over="ignore"):
        x = positions.astype(np.uint64)
        x *= _GOLDEN
        x += keys[0]
        _mix(x)
        x ^= keys[1]
        return _mix(x)


def scale(
    h: NDArray[np.uint64], n: int | NDArray[np.uint64]
) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """Map 64-bit hashes to ``[0, n)`` plus a 32-bit fraction within the cell.

    Computes the top 96 bits of ``h * n`` with 32-bit halves (numpy has no
    128-bit product): with ``h = a * 2**32 + b``, ``t = a * n + (b * n >> 32)``
    fits in 64 bits for ``n <= 2**32``; the cell is ``t >> 32`` and the
    fraction ``t & (2**32 - 1)``.

    Args:
        h: (m,) uint64 hashes.
        n: Range size (``1 <= n <= 2**32``), a scalar or (m,) array.

    Returns:
        ((m,) cells in ``[0, n)``, (m,) fractions in ``[0, 2**32)``), both uint64.
    """
    nn = np.asarray(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        t = (h >> _S32) * nn
        t += ((h & _LOW32) * nn) >> _S32
    return t >> _S32, t & _LOW32


def uniform_open(h: NDArray[np.uint64]) -> NDArray[np.float64]:
    """Map hashes to floats in the open interval ``(0, 1)`` (53 bits)."""
    return np.asarray(((h >> _S11).astype(np.float64) + 0.5) * (1.0 / (1 << 53)), np.float64)
