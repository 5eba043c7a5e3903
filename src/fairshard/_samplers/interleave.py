"""Exact proportions over every prefix: one period of Tijdeman's interleave.

A mixture of ``S`` sources with proportions ``n_s / Q`` (integers ``n_s``
summing to the period ``Q``) needs, for position ``p`` of the global plan,
the source that position draws from and how many draws that source had
before it. The goal is that over *every* prefix ``[0, p)`` each source has
``c_s(p)`` draws with ``|c_s(p) - p * n_s / Q| < 1``.

NOTE (algorithm): neither rounding each source's share separately nor
the greedy "give the position to the source furthest behind" (Megatron-LM's
blended index) meets that bound for every weight vector: on skewed weights
with many sources both drift past one sample (measured in
``tests/samplers/test_mixture_interleave.py``). Tijdeman's chairman-assignment
algorithm does: with ``d = 1 / (2S - 2)``, the ``k``-th draw of source ``s``
(0-based) is released at time ``(k + d) / r_s`` and due at ``(k + 1 - d) / r_s``
(``r_s = n_s / Q``, time counted in positions), and each position goes to
the released draw that is due first (earliest deadline first; ties to the
lower source number). Tijdeman proved every draw then meets its deadline,
which bounds the deviation by ``1 - 1 / (2S - 2)``. The schedule is built
with two heaps, ``O(Q log S)`` once per set of proportions.

NOTE (why one period is enough): at ``p = Q`` every target ``p * n_s / Q = n_s``
is an integer and the deviation is below one, so the counts *are* the targets;
from there the schedule repeats, shifted. Position ``p`` is therefore
``(j, t) = divmod(p, Q)``: source ``source[t]``, which had
``j * n_s + local[t]`` draws before. Random access costs O(1) per position
and memory is ``O(Q)`` (12 bytes per period slot), independent of the
number of draws.

NOTE (proportions as integers): weights that are integers (dataset sizes) or
simple decimals (``[0.7, 0.2, 0.1]``) are represented exactly when their
period fits ``max_period``; other weights are rounded to quotas of
``M = max_period`` by largest remainder. Every positive weight keeps at least
one slot, so every source with a positive weight is drawn. The rounding
error of each realized proportion ``n_s / M`` against its target ``p_s`` is
then below ``1 / M``, except when ``m`` positive weights are below ``1 / M``
of the total: each of those still gets its one slot (error below
``1 / M``), and the ``m`` slots come from the largest quotas, whose error is
below ``(1 + m) / M`` (``[1] + [1e-9] * 999``: ``1000 / 65536`` for the
first source). Raise ``max_period`` to shrink both. More positive weights
than ``max_period`` slots cannot all be drawn and are refused. The realized
proportions are what the prefix bound refers to and what the sampler reports.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError

__all__ = ["DEFAULT_MAX_PERIOD", "Interleave", "quotas_from_weights"]

#: Default largest period: proportions are within ``1 / 2**16`` of the weights (module notes).
DEFAULT_MAX_PERIOD = 1 << 16


def quotas_from_weights(weights: NDArray[np.float64], max_period: int) -> NDArray[np.int64]:
    """Integer quotas ``n_s`` (summing to the period) for non-negative ``weights``.

    Exact when the weights are integers or fractions whose common denominator
    keeps the period within ``max_period``; otherwise the largest-remainder
    rounding of ``weights / sum(weights) * max_period``, with every positive
    weight given at least one slot (error bound in the module notes).

    Raises:
        ConfigError: more positive weights than ``max_period`` (some could never
            be drawn).

    Example:
        >>> quotas_from_weights(np.array([0.7, 0.2, 0.1]), 1 << 16).tolist()
        [7, 2, 1]
        >>> quotas_from_weights(np.array([300.0, 100.0, 0.0]), 1 << 16).tolist()
        [3, 1, 0]
    """
    positive = weights > 0
    count = int(np.count_nonzero(positive))
    if count > max_period:
        raise ConfigError(
            f"{count} sources have a positive weight but max_period={max_period} gives only "
            f"{max_period} slots per period, so some would never be drawn; pass "
            f"max_period={_at_least(count)} or more (at most {1 << 24}), or give fewer "
            "sources a positive weight"
        )
    with np.errstate(over="ignore"):
        total = float(weights.sum())
    if not math.isfinite(total):  # huge weights: the ratios, without overflow
        scaled = weights / float(weights.max())
        weights = np.where(positive & (scaled == 0), np.nextafter(0.0, 1.0), scaled)  # stay > 0
        total = float(weights.sum())
    if np.all(weights == np.round(weights)) and total <= 2**53:
        ints = [int(w) for w in weights.tolist()]
        g = 0
        for v in ints:
            g = math.gcd(g, v)
        if sum(ints) // g <= max_period:
            return np.asarray([v // g for v in ints], dtype=np.int64)
    fractions = [Fraction(w / total).limit_denominator(max_period) for w in weights.tolist()]
    if sum(fractions) == 1 and all(
        abs(float(f) - w / total) <= 1e-12 and (f > 0) == (w > 0)
        for f, w in zip(fractions, weights.tolist(), strict=True)
    ):
        period = 1
        for f in fractions:
            period = period * f.denominator // math.gcd(period, f.denominator)
        if period <= max_period:
            return np.asarray([int(f * period) for f in fractions], dtype=np.int64)
    share = weights / total * max_period  # (S,)
    quotas = np.floor(share).astype(np.int64)
    quotas[positive & (quotas == 0)] = 1
    missing = max_period - int(quotas.sum())
    if missing > 0:
        # Remainders after the minimum slot: a weight already raised to one slot
        # has a negative remainder and never takes a second one.
        order = np.argsort(-(share - quotas), kind="stable")
        quotas[order[:missing]] += 1
    while missing < 0:  # the minimum slots pushed the total over: take from the largest
        quotas[int(np.argmax(quotas))] -= 1
        missing += 1
    return quotas


def _at_least(count: int) -> int:
    """The smallest power of two >= ``count`` (a round period to suggest)."""
    return 1 << max(1, (count - 1).bit_length())


class Interleave:
    """The periodic schedule of sources for integer quotas (see the module notes).

    Args:
        quotas: (S,) non-negative int64 quotas, at least one positive.

    Example:
        >>> il = Interleave(np.array([2, 1]))
        >>> il.source.tolist(), il.take(np.arange(6))[1].tolist()
        ([0, 1, 0], [0, 0, 1, 2, 1, 3])
    """

    __slots__ = ("local", "occurrence", "period", "quotas", "source", "starts")

    def __init__(self, quotas: NDArray[np.int64]) -> None:
        self.quotas = np.asarray(quotas, dtype=np.int64)
        if self.quotas.ndim != 1 or np.any(self.quotas < 0) or self.quotas.sum() <= 0:
            raise ConfigError(f"quotas must be >= 0 with one positive, got {self.quotas.tolist()}")
        self.period = int(self.quotas.sum())
        # Three (Q,) int32 tables (Q <= 2**24): 12 bytes per slot.
        self.source = _schedule([int(q) for q in self.quotas.tolist()]).astype(np.int32)
        # (S + 1,) CSR starts of each source's slots; occurrence: (Q,) slot of each draw.
        self.starts = np.concatenate(([0], np.cumsum(self.quotas)))
        self.occurrence = np.argsort(self.source, kind="stable").astype(np.int32)
        self.local = np.empty(self.period, dtype=np.int32)  # (Q,) draws of source before slot
        self.local[self.occurrence] = np.arange(self.period) - np.repeat(
            self.starts[:-1], self.quotas
        )

    def take(self, positions: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Source of each position and that source's draws before it.

        Args:
            positions: (m,) int64 global positions (>= 0).

        Returns:
            ((m,) source numbers, (m,) 0-based draw number within the source).
        """
        j, t = np.divmod(positions, self.period)
        source = self.source[t].astype(np.int64)
        return source, j * self.quotas[source] + self.local[t]

    def position_of(self, source: int, draw: int) -> int:
        """Global position of the ``draw``-th (0-based) draw of ``source``."""
        quota = int(self.quotas[source])
        j, r = divmod(draw, quota)
        return j * self.period + int(self.occurrence[int(self.starts[source]) + r])

    def draws_before(self, position: int) -> NDArray[np.int64]:
        """(S,) number of draws of each source in the prefix ``[0, position)``."""
        j, t = divmod(position, self.period)
        head = np.bincount(self.source[:t], minlength=self.quotas.size)
        return j * self.quotas + head


def _schedule(quotas: list[int]) -> NDArray[np.int64]:
    """Tijdeman's earliest-deadline-first schedule of one period (exact integer keys)."""
    period = sum(quotas)
    active = [s for s, q in enumerate(quotas) if q > 0]
    out = np.empty(period, dtype=np.int64)
    if len(active) == 1:
        out[:] = active[0]
        return out
    # Times are in positions t = 1..Q; with D = 2S - 2, the k-th draw of s is
    # released at the first t with D * (q_s * t - k * Q) >= Q and due at
    # (D * (k + 1) - 1) * Q / (D * q_s). Deadlines are compared as exact
    # integers scaled by the lcm of the quotas.
    d = 2 * len(active) - 2
    lcm = 1
    for s in active:
        lcm = lcm * quotas[s] // math.gcd(lcm, quotas[s])

    def release(s: int, k: int) -> int:
        return -(-(period * (1 + d * k)) // (d * quotas[s]))

    pending = [(release(s, 0), s, 0) for s in active]
    heapq.heapify(pending)
    ready: list[tuple[int, int, int]] = []
    for t in range(1, period + 1):
        while pending and pending[0][0] <= t:
            _, s, k = heapq.heappop(pending)
            heapq.heappush(ready, ((d * (k + 1) - 1) * (lcm // quotas[s]), s, k))
        if not ready:  # pragma: no cover - excluded by Tijdeman's theorem
            raise RuntimeError(f"interleave schedule has no released draw at t={t}")
        _, s, k = heapq.heappop(ready)
        out[t - 1] = s
        if k + 1 < quotas[s]:
            heapq.heappush(pending, (release(s, k + 1), s, k + 1))
    return out
