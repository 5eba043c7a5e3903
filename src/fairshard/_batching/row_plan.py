"""``PackedPlan``: the plan of ``PackingBatchSampler``, batches of rows of item indices.

The rows come from ``_batching.pack_plan``'s packing; this is how a plan
holds them (CSR arrays), hands out batches and is shared between a node's
ranks.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.plans import BatchPlan, shareable

__all__ = ["PackedPlan"]


@shareable
class PackedPlan(BatchPlan):
    """Batches of rows of item indices: ``items()`` gives ``list[list[list[int]]]``.

    The base :class:`BatchPlan` sees each batch as the flat list of its items
    (``offsets`` delimit batches in ``flat``, so ``sizes()`` counts items per
    batch); ``row_offsets`` additionally delimits the rows in ``flat``.

    Args:
        flat: (n,) item indices, row after row, batch after batch.
        row_offsets: (rows + 1,) row boundaries in ``flat``.
        batch_rows: (batches + 1,) batch boundaries in rows.
        row_loads: (rows,) tokens of each row, if known (the packer knows
            them; a batch's token cost is then a sum over its rows, not a
            gather of every item's length).

    Example:
        >>> plan = PackedPlan(np.array([4, 2, 9, 7, 1]), np.array([0, 2, 3, 5]),
        ...                   np.array([0, 2, 3]))
        >>> plan.items(np.array([1, 0]))
        [[[7, 1]], [[4, 2], [9]]]
    """

    def __init__(
        self,
        flat: NDArray[np.int64],
        row_offsets: NDArray[np.int64],
        batch_rows: NDArray[np.int64],
        row_loads: NDArray[np.integer[Any]] | None = None,
    ) -> None:
        super().__init__(flat, row_offsets[batch_rows])
        self.row_offsets = np.asarray(row_offsets, dtype=np.int64)
        self.batch_rows = np.asarray(batch_rows, dtype=np.int64)
        self.row_loads = row_loads

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The item indices, the row and batch boundaries and the rows' tokens if known."""
        arrays = {"flat": self.flat, "row_offsets": self.row_offsets}
        loads = {} if self.row_loads is None else {"row_loads": self.row_loads}
        return {**arrays, "batch_rows": self.batch_rows, **loads}, {}

    @classmethod
    def from_plan_arrays(
        cls, arrays: Mapping[str, NDArray[Any]], meta: Mapping[str, Any]
    ) -> PackedPlan:
        """The plan over published arrays (read-only, not copied)."""
        loads = arrays.get("row_loads")  # absent from a plan cached without them
        return cls(arrays["flat"], arrays["row_offsets"], arrays["batch_rows"], loads)

    def rows_per_batch(self) -> NDArray[np.int64]:
        """(batches,) number of rows in each batch."""
        return np.diff(self.batch_rows)

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """The batches at ``positions``, each a list of rows of Python ints."""
        out: list[Any] = []
        row_offsets = self.row_offsets
        for b in positions.tolist():
            r0, r1 = int(self.batch_rows[b]), int(self.batch_rows[b + 1])
            bounds = row_offsets[r0 : r1 + 1]
            values = self.flat[bounds[0] : bounds[-1]].tolist()
            base = int(bounds[0])
            marks = (bounds - base).tolist()
            out.append([values[a:z] for a, z in itertools.pairwise(marks)])
        return out
