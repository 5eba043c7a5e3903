"""A lazy keyed permutation of ``[0, n)`` with random access.

NOTE (algorithm): ``KeyedPermutation`` is a Feistel network over the
mixed-radix domain ``Z_a x Z_b`` with ``a = ceil(sqrt(n))`` and
``b = ceil(n / a)``, so the domain ``a * b`` exceeds ``n`` by less than ``a``
(about ``sqrt(n)``). A value ``x`` is split as ``(x // b, x % b)``; round ``i``
maps ``(L, R)`` to ``(R, (L + F(R, k_i)) mod |L|)``, which swaps the two radices,
and an even number of rounds brings the pair back to ``Z_a x Z_b``. Every round
is invertible, so the network is a bijection of the domain; *cycle walking*
(re-applying it while the result is ``>= n``) restricts it to a bijection of
``[0, n)``. Because the domain exceeds ``n`` by at most ``sqrt(n)``, almost no
value needs a second pass (contrast a power-of-two domain, which wastes up to
3/4 of the work).

``F`` is a multiply-xorshift-multiply hash of ``R xor k_i`` (the shape of the
SplitMix64 finalizer, trimmed to the operations that reach the top 32 bits),
whose top 32 bits are reduced to the radix with Lemire's multiply-shift. Four
rounds fail the pair-order test at n=10; six pass every check. The round keys
come from the library's stream derivation (``_seeding``), so the permutation is a pure function of
``(n, seed, epoch)``.

Limits, measured in ``tests/randomness/test_permutation_stats.py``: with
:data:`ROUNDS` rounds the position of each item and the relative order of
item pairs are statistically indistinguishable from uniform at the sample
sizes tested; this is a fast pseudo-random permutation for data order, not a
cryptographic one, and it reaches only a subset of the ``n!`` permutations.

Memory is O(chunk) and independent of ``n``; ``take`` costs O(len(positions)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._errors import check_int

__all__ = ["MAX_N", "ROUNDS", "KeyedPermutation"]

#: Number of Feistel rounds (even, so the radices come back in order).
ROUNDS = 6
#: Largest supported ``n``: the radices must stay below 2**32.
MAX_N = 1 << 62

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S32 = np.uint64(32)


def _isqrt_ceil(n: int) -> int:
    import math

    root = math.isqrt(n)
    return root if root * root == n else root + 1


class KeyedPermutation:
    """A bijection of ``[0, n)`` chosen by ``keys``, evaluated lazily.

    Args:
        n: Size of the domain, ``0 <= n <= MAX_N``.
        keys: ``ROUNDS`` 64-bit round keys (from ``stream_words``).

    Example:
        >>> import numpy as np
        >>> p = KeyedPermutation(10, np.arange(ROUNDS, dtype=np.uint64))
        >>> sorted(p.take(np.arange(10)).tolist()) == list(range(10))
        True
    """

    __slots__ = ("_a", "_b", "_keys", "n")

    def __init__(self, n: int, keys: NDArray[np.uint64]) -> None:
        self.n = check_int("n", n, minimum=0, maximum=MAX_N)
        if keys.shape != (ROUNDS,) or keys.dtype != np.uint64:
            raise ValueError(f"keys must be {ROUNDS} uint64 words, got shape {keys.shape}")
        self._keys = [np.uint64(k) for k in keys]
        a = max(1, _isqrt_ceil(self.n))
        self._a = a
        self._b = max(1, -(-self.n // a))

    def __len__(self) -> int:
        return self.n

    def _rounds(self, x: NDArray[np.uint64]) -> NDArray[np.uint64]:
        # x: (m,) uint64, every value < a * b.
        a, b = np.uint64(self._a), np.uint64(self._b)
        left = x // b
        right = x - left * b
        radix_left, radix_right = a, b
        h = np.empty_like(x)
        tmp = np.empty_like(x)
        for key in self._keys:
            # h = top 32 bits of a multiply-xorshift-multiply hash of (right ^ key),
            # then Lemire-reduce to [0, radix_left).
            np.bitwise_xor(right, key, out=h)
            np.multiply(h, _M1, out=h)
            np.right_shift(h, _S32, out=tmp)
            np.bitwise_xor(h, tmp, out=h)
            np.multiply(h, _M2, out=h)
            np.right_shift(h, _S32, out=h)
            np.multiply(h, radix_left, out=h)
            np.right_shift(h, _S32, out=h)
            # left = (left + h) mod radix_left, branch-free: left + h < 2 * radix_left,
            # and in unsigned arithmetic min(s, s - r) is s - r when s >= r, else s.
            np.add(left, h, out=left)
            np.subtract(left, radix_left, out=tmp)
            np.minimum(left, tmp, out=left)
            left, right = right, left
            radix_left, radix_right = radix_right, radix_left
        np.multiply(left, b, out=left)
        np.add(left, right, out=left)
        return np.asarray(left, dtype=np.uint64)

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """Return the permuted values at ``positions`` (each in ``[0, n)``).

        Args:
            positions: (m,) int64 array of positions.

        Returns:
            (m,) int64 array: ``perm[positions]``.
        """
        if positions.size == 0:
            return np.empty(0, dtype=np.int64)
        x = self._rounds(positions.astype(np.uint64))
        n = np.uint64(self.n)
        outside = np.flatnonzero(x >= n)
        while outside.size:  # cycle walking; rare once n > a few hundred
            walked = self._rounds(x[outside])
            x[outside] = walked
            outside = outside[walked >= n]
        return x.view(np.int64)
