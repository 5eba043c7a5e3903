"""Plans for weighted sampling: pure functions of (weights, seed, epoch).

* ``AliasPlan`` -- with replacement: position ``p`` draws
  ``table.draw(counter_hash(keys, p))``; random access, O(1) memory beyond the
  table, independent of the world size.
* ``GroupedAliasPlan`` -- with replacement, two levels: draw a group (class)
  from a small alias table, then a member of that group uniformly. Equivalent
  to per-sample weights that are equal within each group, at O(groups) cost
  per epoch instead of O(n).
* ``exponential_keys_order`` -- without replacement (Efraimidis-Spirakis),
  in ``exponential_keys``: the order of the keys ``log E_i - log w_i``.
* ``ArrayPlan`` -- any materialized order (int64, or int32 to halve it); it lives
  in the core, which shares materialized plans across a node's ranks.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._core.plans import ArrayPlan, IndexPlan
from .._random.alias import AliasTable
from .._random.counter import counter_hash, scale
from .exponential_keys import exponential_keys_order

__all__ = ["AliasPlan", "ArrayPlan", "GroupedAliasPlan", "exponential_keys_order"]


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
        members: (n,) int32 or int64 item ids sorted by group (stable).
        offsets: (groups + 1,) int64; group ``g`` is ``members[offsets[g]:offsets[g+1]]``.
        num_samples: Plan length.
        keys: (4,) uint64: two words for the group draw, two for the member.
    """

    def __init__(
        self,
        table: AliasTable,
        members: NDArray[np.int64] | NDArray[np.int32],
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
        picked = self.members[self.offsets[groups] + within.astype(np.int64)]
        return picked.astype(np.int64, copy=False)
