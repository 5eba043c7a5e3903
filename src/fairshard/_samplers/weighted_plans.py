"""Plans for weighted sampling: pure functions of (weights, seed, epoch).

* ``AliasPlan`` -- with replacement: position ``p`` draws
  ``table.draw(counter_hash(keys, p))``; random access, O(1) memory beyond the
  table, independent of the world size.
* ``GroupedAliasPlan`` -- with replacement, two levels: draw a group (class)
  from a small alias table, then a member of that group uniformly. Equivalent
  to per-sample weights that are equal within each group, at O(groups) cost
  per epoch instead of O(n).
* ``exponential_keys_order`` -- without replacement (Efraimidis-Spirakis):
  item ``i`` gets the key ``E_i / w_i`` with ``E_i`` a unit exponential from
  the counter hash of ``i``; the ``k`` smallest keys, in increasing order, are
  a draw of ``k`` items without replacement, each next item chosen with
  probability proportional to its weight among those left. Keys are compared
  as ``log E_i - log w_i``: ``E_i / w_i`` overflows to infinity for a tiny
  positive weight, which would tie it with a zero weight. A zero weight's key
  is ``+inf`` and every positive weight's key is finite, so zero weights sort
  after all positive ones and are never chosen.
* ``ArrayPlan`` -- any materialized order.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._core.plans import IndexPlan
from .._random.alias import AliasTable
from .._random.counter import counter_hash, scale, uniform_open

__all__ = ["AliasPlan", "ArrayPlan", "GroupedAliasPlan", "exponential_keys_order"]

_CHUNK = 1 << 20


class ArrayPlan(IndexPlan):
    """A plan over a materialized (n,) int64 order."""

    def __init__(self, order: NDArray[np.int64]) -> None:
        self.order = np.ascontiguousarray(order, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.order.shape[0])

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self.order[positions]


class AliasPlan(IndexPlan):
    """``num_samples`` independent draws from ``table``, keyed by two words.

    Example:
        >>> import numpy as np
        >>> plan = AliasPlan(AliasTable(np.array([0.0, 1.0])), 5, np.ones(2, np.uint64))
        >>> plan.take(np.arange(5)).tolist()
        [1, 1, 1, 1, 1]
    """

    def __init__(self, table: AliasTable, num_samples: int, keys: NDArray[np.uint64]) -> None:
        self.table = table
        self.num_samples = num_samples
        self.keys = keys

    def __len__(self) -> int:
        return self.num_samples

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self.table.draw(counter_hash(self.keys, positions))


class GroupedAliasPlan(IndexPlan):
    """Draw a group by ``table``, then one of its members uniformly.

    Args:
        table: Alias table over the groups.
        members: (n,) int64 item ids sorted by group (stable).
        offsets: (groups + 1,) int64; group ``g`` is ``members[offsets[g]:offsets[g+1]]``.
        num_samples: Plan length.
        keys: (4,) uint64: two words for the group draw, two for the member.
    """

    def __init__(
        self,
        table: AliasTable,
        members: NDArray[np.int64],
        offsets: NDArray[np.int64],
        num_samples: int,
        keys: NDArray[np.uint64],
    ) -> None:
        self.table = table
        self.members = members
        self.offsets = offsets
        self.sizes = np.diff(offsets).astype(np.uint64)
        self.num_samples = num_samples
        self.keys = keys

    def __len__(self) -> int:
        return self.num_samples

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        groups = self.table.draw(counter_hash(self.keys[:2], positions))
        within, _ = scale(counter_hash(self.keys[2:], positions), self.sizes[groups])
        return self.members[self.offsets[groups] + within.astype(np.int64)]


def exponential_keys_order(
    weights: NDArray[np.float64], num_samples: int, keys: NDArray[np.uint64]
) -> NDArray[np.int64]:
    """The first ``num_samples`` items of a weighted draw without replacement.

    Args:
        weights: (n,) float64, finite, non-negative, at least ``num_samples``
            of them positive.
        num_samples: How many items to draw.
        keys: (2,) uint64 hash keys.

    Returns:
        (num_samples,) int64 distinct items, in draw order.
    """
    n = int(weights.shape[0])
    sort_keys = np.empty(n, dtype=np.float64)  # (n,) log(E_i / w_i); +inf where w_i == 0
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        e = -np.log(uniform_open(counter_hash(keys, np.arange(lo, hi, dtype=np.int64))))
        w = weights[lo:hi]
        positive = w > 0
        out = sort_keys[lo:hi]
        out.fill(np.inf)
        # E_i > 0 (uniform_open excludes 1), so both logs are finite for w_i > 0.
        np.subtract(
            np.log(e), np.log(w, where=positive, out=np.ones_like(w)), out=out, where=positive
        )
    if num_samples < n:
        top = np.argpartition(sort_keys, num_samples - 1)[:num_samples]
    else:
        top = np.arange(n, dtype=np.int64)
    # Ties (equal keys) resolve by index, so the order is fully determined.
    order = top[np.lexsort((top, sort_keys[top]))]
    return order.astype(np.int64, copy=False)
