"""Partitions: which global plan positions each rank takes.

A partition is a pure function of ``(total, start, world_size, layout, tail)``.
It covers the plan positions ``[start, total)`` -- ``start`` is non-zero only
after an elastic resume re-partitions the unconsumed tail of an epoch.

Layouts:
    ``strided``: rank ``r`` takes ``start + r, start + r + W, ...`` (PyTorch's
        layout). Consecutive steps of all ranks consume a prefix of the plan,
        which is what makes elastic resume exact.
    ``blocked``: rank ``r`` takes one contiguous block, so gathering results
        in rank order restores plan order (dataset order when not shuffled).

Tail modes, for ``M = total - start`` remaining positions on ``W`` ranks:
    ``pad``: every rank gets ``ceil(M / W)``; positions past the end wrap to the
        head of the remainder (PyTorch's padding; the duplicates are declared).
    ``drop``: every rank gets ``floor(M / W)``; the last ``M mod W`` positions
        are not used.
    ``uneven``: every position exactly once; ranks differ by at most one
        (evaluation only: unequal step counts hang DDP training).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .._errors import check_choice, check_int

__all__ = ["LAYOUTS", "TAILS", "Layout", "Partition", "Tail"]

Layout = Literal["strided", "blocked"]
Tail = Literal["pad", "drop", "uneven"]
LAYOUTS: tuple[Layout, ...] = ("strided", "blocked")
TAILS: tuple[Tail, ...] = ("pad", "drop", "uneven")


@dataclass(frozen=True)
class Partition:
    """How ``[start, total)`` is split over ``world_size`` ranks.

    Example:
        >>> p = Partition(total=10, world_size=4, layout="strided", tail="pad")
        >>> [p.positions(r, 0, p.num_items(r)).tolist() for r in range(4)]
        [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    """

    total: int
    world_size: int
    layout: Layout = "strided"
    tail: Tail = "pad"
    start: int = 0

    def __post_init__(self) -> None:
        check_int("total", self.total, minimum=0)
        check_int("world_size", self.world_size, minimum=1)
        check_int("start", self.start, minimum=0, maximum=self.total)
        check_choice("layout", self.layout, LAYOUTS)
        check_choice("tail", self.tail, TAILS)

    @property
    def remaining(self) -> int:
        """Number of plan positions this partition covers (``total - start``)."""
        return self.total - self.start

    def num_items(self, rank: int) -> int:
        """Number of positions rank ``rank`` takes (padding included)."""
        m, w = self.remaining, self.world_size
        if self.tail == "pad":
            return -(-m // w)
        if self.tail == "drop":
            return m // w
        return m // w + (1 if rank < m % w else 0)

    @property
    def max_items(self) -> int:
        """The largest share: the number of steps the job takes."""
        return self.num_items(0)

    def num_padded(self) -> int:
        """Number of declared duplicate positions (``pad`` only)."""
        return self.max_items * self.world_size - self.remaining if self.tail == "pad" else 0

    def num_dropped(self) -> int:
        """Number of plan positions no rank takes (``drop`` only)."""
        return self.remaining - self.max_items * self.world_size if self.tail == "drop" else 0

    def _block_start(self, rank: int) -> int:
        m, w = self.remaining, self.world_size
        if self.tail == "uneven":
            q, extra = divmod(m, w)
            return rank * q + min(rank, extra)
        return rank * self.max_items

    def positions(self, rank: int, begin: int, end: int) -> NDArray[np.int64]:
        """Global plan positions of the rank's local items ``[begin, end)``.

        Args:
            rank: The rank, ``0 <= rank < world_size``.
            begin: First local index (inclusive).
            end: Last local index (exclusive), at most ``num_items(rank)``.

        Returns:
            (end - begin,) int64 array of positions in ``[start, total)``.
        """
        local = np.arange(begin, end, dtype=np.int64)
        if self.layout == "strided":
            offsets = local * self.world_size + rank
        else:
            offsets = local + self._block_start(rank)
        # Offsets increase with the local index, so the last one is the largest.
        if self.tail == "pad" and offsets.size and offsets[-1] >= self.remaining > 0:
            offsets %= self.remaining  # wrap padding to the head of the remainder
        return offsets + self.start

    def consumed_after(self, steps: int) -> int:
        """Plan positions consumed once every rank has taken ``steps`` items.

        Exact for the strided layout, where ``steps`` steps consume the prefix
        ``[start, start + steps * world_size)`` (capped at ``total``).
        """
        return min(self.total, self.start + steps * self.world_size)
