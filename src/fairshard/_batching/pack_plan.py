"""Packing items into fixed-capacity rows: the pure algorithm and its plan.

NOTE (algorithm): items are shuffled, cut into windows of ``window`` items,
and every window is packed on its own by *bin completion* -- all windows at
once, each step of the loop below being a few numpy operations over every
window:

1. open a row with the longest item left in the window;
2. add the longest item left that still fits the row, and repeat until no
   item left fits; then go to 1.

This is first-fit decreasing restricted to one open row at a time: a row is
closed only when nothing left fits it, so its waste is smaller than the
shortest item left. Within a window the lengths are sorted once, "the longest
item left that fits" is a binary search, and items already taken are skipped
with a union-find of "next item to the left" pointers (path compression).
The loop runs about ``window`` steps whatever the number of items: the
number of items only widens each step. On log-normal lengths (``mu=5,
sigma=0.8``, capacity 4096) rows are 99% full with ``window=1024`` and 99.7%
with 4096 (``benchmarks/bench_packing.py``).

A larger window packs tighter but mixes items from further apart in the
shuffled order. Rows are shuffled again into batches afterwards, so rows
from one window do not stay together.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.plans import BatchPlan, shareable

__all__ = ["PackedPlan", "pack_windows"]


def pack_windows(
    lengths: NDArray[np.int64], capacity: int, window: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pack consecutive windows of items into rows of at most ``capacity`` tokens.

    Args:
        lengths: (n,) lengths in ``[1, capacity]``, in the (already shuffled)
            order the windows are cut from.
        capacity: Tokens per row.
        window: Items per window (the last window may be shorter).

    Returns:
        ``(members, row_offsets)``: (n,) positions into ``lengths`` grouped
        by row, longest first within a row, and (rows + 1,) int64 CSR
        offsets of each row in ``members``.

    Example:
        >>> members, offsets = pack_windows(np.array([6, 1, 3, 4, 2]), 7, 5)
        >>> [members[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
        [[0, 1], [3, 2], [4]]
    """
    n = int(lengths.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    num_windows = -(-n // window)
    first = np.arange(num_windows, dtype=np.int64) * window  # (W,) first sorted slot
    # Sorting by key = window * (capacity + 1) + length keeps windows contiguous
    # and makes "longest item <= gap in window w" one searchsorted over the key.
    small = num_windows * (capacity + 1) < 2**31  # int32 keys: half the memory traffic
    key: NDArray[Any] = np.arange(n, dtype=np.int64) // window * (capacity + 1) + lengths
    key = key.astype(np.int32 if small else np.int64)
    order = np.argsort(key, kind="stable")  # (n,) sorted slot -> item position
    key = key[order]
    # NOTE (memory layout): the loop works in local slots j (rank within the
    # window's ascending order) and stores per-slot state at j * W + w, so
    # that one step -- which touches one slot per window, at similar j in
    # every window -- reads neighbouring memory instead of one cache line per
    # window. Slots past the end of a short last window are never reached.
    slots = np.arange(n, dtype=np.int64)
    where = slots % window * num_windows + slots // window  # (n,) state index of each slot
    del slots
    cells = window * num_windows
    size = np.zeros(cells, dtype=np.int32)  # lengths <= capacity < 2**31
    size[where] = lengths[order]
    taken = np.zeros(cells, dtype=bool)
    left = np.repeat(np.arange(-1, window - 1, dtype=np.int32), num_windows)  # union-find
    row_of = np.zeros(cells, dtype=np.int64)
    seat_of = np.zeros(cells, dtype=np.int32)
    count = np.minimum(first + window, n) - first  # (W,) items per window
    gap = np.full(num_windows, -1, dtype=np.int64)  # (W,) room in the open row; -1: none
    top = count - 1  # (W,) local slot at or above the longest item left
    row = np.zeros(num_windows, dtype=np.int64)
    seat = np.zeros(num_windows, dtype=np.int64)
    remaining = count.copy()
    rows = 0
    active = np.arange(num_windows, dtype=np.int64)
    while active.size:
        room = gap[active]
        opening = room < 0
        probe = top[active].copy()
        # Only rows the top item does not fit need a search (the top is an upper bound).
        search = np.flatnonzero(~opening & (size[probe * num_windows + active] > room))
        if search.size:
            w = active[search]
            value = (w * (capacity + 1) + room[search]).astype(key.dtype)  # no upcast of key
            at = np.searchsorted(key, value, side="right") - 1
            probe[search] = np.minimum(at - first[w], probe[search])
        from_top = probe == top[active]
        slot = _untaken_at_or_left(probe, active, num_windows, taken, left)
        found = slot >= 0
        gap[active[~found]] = -1  # nothing left fits: close the row
        w, slot, opened, from_top = active[found], slot[found], opening[found], from_top[found]
        new = int(opened.sum())
        row[w[opened]] = rows + np.arange(new, dtype=np.int64)
        seat[w[opened]] = 0
        rows += new
        # Taken from the top: everything above was taken, so the top moves below it.
        top[w[from_top]] = slot[from_top] - 1
        cell = slot * num_windows + w
        row_of[cell] = row[w]
        seat_of[cell] = seat[w]
        seat[w] += 1
        taken[cell] = True
        gap[w] = np.where(opened, capacity, gap[w]) - size[cell]
        remaining[w] -= 1
        active = active[(remaining[active] > 0)]
    rows_of_slots = row_of[where]  # (n,) back in sorted-slot order
    row_offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows_of_slots, minlength=rows), out=row_offsets[1:])
    members = np.empty(n, dtype=np.int64)
    members[row_offsets[rows_of_slots] + seat_of[where]] = order
    return members, row_offsets


def _untaken_at_or_left(
    probe: NDArray[np.int64],
    windows: NDArray[np.int64],
    num_windows: int,
    taken: NDArray[np.bool_],
    left: NDArray[np.int32],
) -> NDArray[np.int64]:
    """(m,) the first untaken local slot at or below ``probe`` in each window; -1 if none.

    Walks the ``left`` pointers (state index ``slot * num_windows + window``)
    and compresses every path it walked.
    """
    slot = probe.copy()
    live = slot >= 0
    live[live] = taken[slot[live] * num_windows + windows[live]]
    trail: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []
    while live.any():
        at = np.flatnonzero(live)
        cells = slot[at] * num_windows + windows[at]
        trail.append((at, cells))
        slot[at] = left[cells]
        keep = slot[at] >= 0
        live[at] = False
        inside = at[keep]
        live[inside] = taken[slot[inside] * num_windows + windows[inside]]
    for at, cells in trail:
        left[cells] = slot[at]
    return np.where(slot >= 0, slot, -1)


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
    ) -> None:
        super().__init__(flat, row_offsets[batch_rows])
        self.row_offsets = np.asarray(row_offsets, dtype=np.int64)
        self.batch_rows = np.asarray(batch_rows, dtype=np.int64)

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The item indices and the row and batch boundaries."""
        arrays = {"flat": self.flat, "row_offsets": self.row_offsets}
        return {**arrays, "batch_rows": self.batch_rows}, {}

    @classmethod
    def from_plan_arrays(
        cls, arrays: Mapping[str, NDArray[Any]], meta: Mapping[str, Any]
    ) -> PackedPlan:
        """The plan over published arrays (read-only, not copied)."""
        return cls(arrays["flat"], arrays["row_offsets"], arrays["batch_rows"])

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
