"""Walker/Vose alias tables in integer fixed point, built in vectorized passes.

An alias table over ``n`` items has ``n`` equal cells; cell ``k`` keeps item
``k`` with probability ``threshold[k] / 2**32`` and otherwise gives
``alias[k]``. One draw costs one cell choice and one coin flip, so a plan of
any length is evaluated in O(1) per position, from any position.

NOTE (construction): Vose's method pairs "light" items (mass below one cell)
with "heavy" ones (above) using two stacks -- sequential, so too slow in
Python for 10**8 items. We build the same kind of table with the *sweep*
formulation (Huebschle-Schneider and Sanders, "Parallel weighted random
sampling", 2019), which is a merge of two prefix sums and vectorizes:

* masses are integers: item ``i`` gets ``q_i = round(w_i * n * U / sum(w))``
  units with ``U = 2**s`` units per cell (``s = min(40, 62 - bit_length(n))``),
  computed on the weights divided by ``2**e``, the power of two with
  ``1 <= max(w) / 2**e < 2`` (exact, so the units are those of the plain
  formula, but neither ``sum(w)`` nor the factor overflows for weights near
  the float64 limits, huge or subnormal),
  at least one unit for any positive weight, and the rounding residual goes
  to the heaviest item, so ``sum(q) == n * U`` exactly. Zero weights get
  exactly zero units;
* lights, in index order, lay their deficits ``U - q_i`` end to end: light
  ``i`` starts at ``L_i``. Heavies, in index order, lay their excesses
  ``q_j - U`` end to end: heavy ``k`` ends at ``H_k``. Because the totals are
  equal, ``H_last == sum of deficits`` exactly;
* light ``i`` takes as alias the heavy ``k`` with ``H_{k-1} <= L_i < H_k``
  (one ``searchsorted``). A heavy that has given away its excess becomes a cell
  of its own with the *next* heavy as alias: its overshoot
  ``o_k = C_k - H_k``, where ``C_k`` is the end of the last light starting
  before ``H_k``, is its deficit, and it keeps ``U - o_k`` units;
* items with ``q_i == U`` are full cells (alias = itself).

Every pass runs over chunks of the weights, so extra memory is the table
(``alias`` int32 -- int64 above ``2**31`` items -- plus ``threshold``
uint32: 8 bytes per item) plus, during construction, 12 bytes per heavy
item (its id and ``H_k``) and O(chunk) buffers.
Thresholds are the kept units rounded *up* to 32 bits, so a positive weight
always has a chance; a zero weight has threshold 0 and is never an alias, so
it is never drawn. Probabilities are exact up to ``2**-32`` of a cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .counter import MAX_RANGE, scale

__all__ = ["MAX_ITEMS", "AliasTable"]

#: Largest number of items an alias table holds (cells are chosen with 64-bit
#: multiply-shift, which needs ``n <= 2**32``).
MAX_ITEMS = MAX_RANGE

_CHUNK = 1 << 20
_FULL = np.uint64(0xFFFFFFFF)


def _units_per_cell_bits(n: int) -> int:
    return min(40, 62 - n.bit_length())


class AliasTable:
    """An alias table for drawing items in proportion to non-negative weights.

    Args:
        weights: (n,) float64, finite, non-negative, not all zero (validated
            by the caller; ``fairshard._samplers.weights.check_weights``). Read only,
            never copied whole.

    Example:
        >>> import numpy as np
        >>> table = AliasTable(np.array([1.0, 0.0, 3.0]))
        >>> table.probabilities().round(6).tolist()
        [0.25, 0.0, 0.75]
    """

    __slots__ = ("alias", "n", "threshold")

    def __init__(self, weights: NDArray[np.float64]) -> None:
        n = int(weights.shape[0])
        if not 1 <= n <= MAX_ITEMS:
            raise ValueError(f"an alias table holds 1 to {MAX_ITEMS} items, got {n}")
        self.n = n
        index_dtype = np.int32 if n <= (1 << 31) else np.int64
        self.alias: NDArray[np.signedinteger] = np.arange(n, dtype=index_dtype)
        self.threshold: NDArray[np.uint32] = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
        _build(weights, self.alias, self.threshold)

    def arrays(self) -> dict[str, NDArray[Any]]:
        """The table's two arrays; :meth:`from_arrays` rebuilds it from them (e.g. mapped)."""
        return {"alias": self.alias, "threshold": self.threshold}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, NDArray[Any]]) -> AliasTable:
        """The table of ``arrays()``'s arrays, used as they are (read-only ones stay so)."""
        table = cls.__new__(cls)
        table.alias = arrays["alias"]
        table.threshold = arrays["threshold"]
        table.n = int(table.alias.shape[0])
        return table

    def draw(self, h: NDArray[np.uint64]) -> NDArray[np.int64]:
        """Items for 64-bit hashes: (m,) uint64 -> (m,) int64 in ``[0, n)``."""
        cell, frac = scale(h, self.n)
        cells = cell.astype(np.int64)
        keep = frac < self.threshold[cells]
        return np.where(keep, cells, self.alias[cells]).astype(np.int64, copy=False)

    def probabilities(self) -> NDArray[np.float64]:
        """(n,) exact draw probability of every item under this table."""
        own = self.threshold.astype(np.float64) / 2.0**32
        full = self.alias == np.arange(self.n)
        own[full] = 1.0
        p = own.copy()
        np.add.at(p, self.alias.astype(np.int64), 1.0 - own)
        return np.asarray(p / self.n, dtype=np.float64)


class _Units:
    """Integer masses ``q`` of the weights, chunk by chunk, in reused buffers."""

    def __init__(self, weights: NDArray[np.float64], scale: float, factor: float) -> None:
        self.weights = weights
        self.scale = scale
        self.factor = factor
        self.fix = (-1, 0)
        size = min(_CHUNK, int(weights.shape[0]))
        self._scaled = np.empty(size, dtype=np.float64)
        self._units = np.empty(size, dtype=np.int64)

    def __call__(self, lo: int, hi: int) -> NDArray[np.int64]:
        """(hi - lo,) int64 masses of items ``[lo, hi)`` (a view of a reused buffer)."""
        scaled, units = self._scaled[: hi - lo], self._units[: hi - lo]
        np.divide(self.weights[lo:hi], self.scale, out=scaled)  # exact: a power of two
        np.multiply(scaled, self.factor, out=scaled)
        np.rint(scaled, out=scaled)
        units[:] = scaled
        lost = units == 0  # a positive weight below half a unit keeps one unit
        if lost.any():
            lost &= self.weights[lo:hi] > 0
            units[lost] = 1
        where, delta = self.fix
        if lo <= where < hi:
            units[where - lo] += delta
        return units


def _build(
    weights: NDArray[np.float64],
    alias: NDArray[np.signedinteger],
    threshold: NDArray[np.uint32],
) -> None:
    n = int(weights.shape[0])
    bits = _units_per_cell_bits(n)
    unit = 1 << bits
    chunks = [(lo, min(n, lo + _CHUNK)) for lo in range(0, n, _CHUNK)]
    scale, total_scaled = _scaled_sum(weights, chunks)
    units = _Units(weights, scale, float(n * unit) / total_scaled)

    # Pass 1: rounding residual, the heaviest item (it absorbs the residual)
    # and the number of heavy items.
    total, best, best_at, num_heavy = 0, -1, 0, 0
    for lo, hi in chunks:
        q = units(lo, hi)
        total += int(q.sum())
        num_heavy += int(np.count_nonzero(q > unit))
        at = int(np.argmax(q))
        if int(q[at]) > best:
            best, best_at = int(q[at]), lo + at
    delta = n * unit - total
    if best + delta < 0:  # pragma: no cover - needs float error beyond a cell
        raise ArithmeticError("alias table rounding residual exceeds the heaviest item")
    num_heavy += int(best + delta > unit) - int(best > unit)
    units.fix = (best_at, delta)

    # Pass 2: heavy items in index order and the ends H of their excesses.
    heavy = np.empty(num_heavy, dtype=alias.dtype)  # (m,) item ids
    ends = np.empty(num_heavy, dtype=np.int64)  # (m,) H_k
    filled, running = 0, 0
    for lo, hi in chunks:
        q = units(lo, hi)
        (idx,) = np.nonzero(q > unit)
        excess = np.cumsum(q[idx] - unit)
        excess += running
        heavy[filled : filled + idx.size] = idx + lo
        ends[filled : filled + idx.size] = excess
        filled += idx.size
        running = int(excess[-1]) if idx.size else running
    if num_heavy == 0:
        return  # every item is exactly one full cell

    shift = bits - 32
    last_heavy = num_heavy - 1
    # Pass 3: lights take their alias; heavies, once given away, become cells.
    running = 0
    for lo, hi in chunks:
        q = units(lo, hi)
        (idx,) = np.nonzero(q < unit)
        if idx.size == 0:
            continue
        deficit = unit - q[idx]
        stops = np.cumsum(deficit)  # (l,) L_i + deficit_i
        stops += running
        starts = stops - deficit  # (l,) L_i
        idx += lo
        alias[idx] = heavy[np.searchsorted(ends, starts, side="right")]
        threshold[idx] = _threshold(unit - deficit, shift)
        # Heavies whose H_k lies in (first start, last stop] are done within
        # this chunk: C_k is the stop of the last light starting before H_k,
        # the overshoot o_k = C_k - H_k, and heavy k keeps U - o_k units with
        # the next heavy as alias.
        k_lo = int(np.searchsorted(ends, starts[0], side="right"))
        k_hi = int(np.searchsorted(ends, stops[-1], side="right"))
        if k_hi > k_lo:
            last = np.searchsorted(starts, ends[k_lo:k_hi], side="left") - 1
            own = unit - (stops[last] - ends[k_lo:k_hi])  # (k_hi - k_lo,) kept units
            cells = heavy[k_lo:k_hi]
            nxt = heavy[np.minimum(np.arange(k_lo + 1, k_hi + 1), last_heavy)]
            full = own >= unit
            alias[cells] = np.where(full, cells, nxt)
            threshold[cells] = np.where(full, np.uint32(0xFFFFFFFF), _threshold(own, shift))
        running = int(stops[-1])


def _scaled_sum(weights: NDArray[np.float64], chunks: list[tuple[int, int]]) -> tuple[float, float]:
    """``(2**e, sum(w) / 2**e)`` with ``1 <= max(w) / 2**e < 2``.

    Dividing by a power of two is exact (for subnormal weights too), so the
    scaled units equal ``w * n * U / sum(w)`` whenever that is representable;
    the scaled sum lies in ``[1, 2 n]``, so it never overflows or underflows.
    """
    _, exponent = np.frexp(np.max(weights))
    scale = float(np.ldexp(1.0, int(exponent) - 1))
    with np.errstate(over="ignore"):
        total = float(np.sum(weights))
    if np.isfinite(total):
        return scale, total / scale
    # sum(w) overflows: sum the scaled weights chunk by chunk instead.
    return scale, float(sum(float(np.sum(weights[lo:hi] / scale)) for lo, hi in chunks))


def _threshold(units: NDArray[np.int64], shift: int) -> NDArray[np.uint32]:
    """Kept units of a cell as a 32-bit threshold, rounded up, capped below 2**32."""
    u = units.astype(np.uint64)
    if shift >= 0:
        u += np.uint64((1 << shift) - 1)
        u >>= np.uint64(shift)
    else:
        u <<= np.uint64(-shift)
    return np.asarray(np.minimum(u, _FULL), dtype=np.uint32)
