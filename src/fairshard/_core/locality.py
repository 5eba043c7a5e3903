"""The locality order: shuffled blocks of neighbouring indices, mixed across a window.

A random order reads a cold file at random offsets; on a disk that is several
times slower than reading it in order. The locality order keeps runs of
neighbouring indices together so that the data side can read ahead, and
still mixes enough of the dataset at any time to shuffle well.

NOTE (the order, rank-independent part ``Q``): the ``n`` indices are cut
into ``n // block_size`` full *blocks* of ``block_size`` neighbouring
indices (the last ``n % block_size`` indices form a short tail block that
stays last). The full blocks are permuted (a ``KeyedPermutation`` keyed by
``StreamId.LOCALITY``, sub-stream 0), then taken ``window`` at a time: a
*window* is ``window`` consecutive blocks of that order, and the
``window * block_size`` indices of a window are permuted among themselves
(sub-stream ``1 + w`` for window ``w``). So any ``block_size * window``
consecutive positions of ``Q`` touch at most ``2 * window`` blocks, and a
batch mixes records of up to ``window`` places in the dataset.

NOTE (lanes: each rank reads whole windows): under the strided layout rank
``r`` takes plan positions ``r, r + W, ...``. The plan interleaves ``L``
*lanes* so that those positions are one lane: the plan is read in groups
of ``L`` windows, and in group ``g`` plan position ``g * L * C + t * L + r``
(``C = block_size * window``) is item ``t`` of window ``g * L + r`` of
``Q``. Rank ``r`` therefore reads windows ``r, L + r, 2L + r, ...`` whole;
the last, incomplete group (fewer than ``L * C`` positions) is read as it
is, strided. ``L`` is the world size the epoch started on (1 for the
blocked layout, whose ranks read contiguous runs of ``Q``), saved in the
state, so a resume on another world size finishes the same plan exactly:
the new ranks then read the rest of that epoch strided across the old
lanes (exact, with less locality until the epoch ends), and the next epoch
has lanes of the new world size.

Every position is computed on its own: ``take`` costs O(len(positions))
plus one key derivation per window it touches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words
from .plans import IndexPlan

__all__ = [
    "DEFAULT_BLOCK_SIZE",
    "DEFAULT_WINDOW",
    "LocalityPlan",
    "WindowTracker",
    "locality_windows",
]

#: Records per block when not given (see docs/locality.md for the measurement).
DEFAULT_BLOCK_SIZE = 256
#: Blocks per window when not given.
DEFAULT_WINDOW = 64


class LocalityPlan(IndexPlan):
    """The locality order of ``[0, n)`` for one epoch (see the module docstring).

    Args:
        n: Dataset size.
        seed: Root seed.
        epoch: The epoch.
        block_size: Neighbouring indices per block, ``>= 1``.
        window: Blocks mixed together, ``>= 1``.
        lanes: Interleaved lanes (the world size of the strided layout).

    Example:
        >>> plan = LocalityPlan(12, 0, 0, block_size=2, window=2, lanes=1)
        >>> order = plan.take(np.arange(12)).tolist()
        >>> sorted(order) == list(range(12)), sorted({i // 2 for i in order[:4]}) != []
        (True, True)
    """

    def __init__(
        self, n: int, seed: int, epoch: int, *, block_size: int, window: int, lanes: int
    ) -> None:
        self.n, self.seed, self.epoch = n, seed, epoch
        self.block_size, self.window, self.lanes = block_size, window, lanes
        self.num_blocks = n // block_size  # full blocks; the tail block stays last
        keys = stream_words(StreamId.LOCALITY, epoch, seed, ROUNDS, sub_id=0)
        self._blocks = KeyedPermutation(self.num_blocks, keys)
        self.span = block_size * window  # C: positions per window
        group = self.span * lanes
        self._grouped = n // group * group  # plan positions inside complete groups

    def __len__(self) -> int:
        return self.n

    def _lanes(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """Plan positions -> positions of ``Q`` (the lane transpose)."""
        lanes, span = self.lanes, self.span
        if lanes == 1:
            return positions
        group, inside = np.divmod(positions, lanes * span)
        step, lane = np.divmod(inside, lanes)
        q = group * (lanes * span) + lane * span + step
        return np.where(positions < self._grouped, q, positions)

    def _window_order(self, q: NDArray[np.int64]) -> NDArray[np.int64]:
        """Positions of ``Q`` -> positions in the block order (mixed inside each window)."""
        span = self.span
        window, inside = np.divmod(q, span)
        out = np.empty_like(q)
        for w in np.unique(window).tolist():
            mask = window == w
            length = min(span, self.n - w * span)
            keys = stream_words(StreamId.LOCALITY, self.epoch, self.seed, ROUNDS, sub_id=1 + w)
            out[mask] = w * span + KeyedPermutation(length, keys).take(inside[mask])
        return out

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """Dataset indices at plan ``positions``: (m,) int64 -> (m,) int64."""
        if positions.size == 0:
            return positions.astype(np.int64)
        ordered = self._window_order(self._lanes(np.asarray(positions, dtype=np.int64)))
        block, inside = np.divmod(ordered, self.block_size)
        full = block < self.num_blocks
        index: NDArray[np.int64] = ordered.copy()  # the tail block keeps its place
        if full.any():
            index[full] = self._blocks.take(block[full]) * self.block_size + inside[full]
        return index

    def window_order_blocks(self) -> NDArray[np.int64]:
        """(num_blocks,) the full blocks in the epoch's block order (windows of ``window``)."""
        return self._blocks.take(np.arange(self.num_blocks, dtype=np.int64))

    def windows(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """The window of ``Q`` that each plan position reads (what read-ahead prefetches)."""
        windows: NDArray[np.int64] = self._lanes(np.asarray(positions, dtype=np.int64)) // self.span
        return windows

    def window_blocks(self, window: int) -> NDArray[np.int64]:
        """Dataset blocks of one window: (k,) block ids (index ``i`` is in ``i // block_size``)."""
        first = window * self.window
        last = min(first + self.window, self.num_blocks)
        blocks = self._blocks.take(np.arange(first, last, dtype=np.int64))
        tail = self.num_blocks * self.block_size  # where the short tail block starts in Q
        if self.n > tail and window == tail // self.span:
            blocks = np.append(blocks, self.num_blocks)
        return blocks


def locality_windows(plan: LocalityPlan, positions: NDArray[np.int64]) -> list[NDArray[np.int64]]:
    """The dataset blocks each distinct window of ``positions`` reads, in first-use order."""
    seen: dict[int, None] = {}
    for w in plan.windows(positions).tolist():
        seen.setdefault(w, None)
    return [plan.window_blocks(w) for w in seen]


class WindowTracker:
    """Which windows of a locality-ordered sampler's plan a process reads next.

    The data side's half of the locality order (``Readahead`` hints a file,
    ``fairshard.formats`` datasets fetch shard bytes): given an index being
    read, it names the window that reads it and, the first time a process
    meets that window, the windows due next on this rank (this one and the
    ``ahead`` windows ``lanes`` further on in the plan).

    NOTE (no counter): it holds a copy of the sampler (seed, epoch, world
    size, lanes) and finds an index's window by inverting the epoch's block
    permutation (one int64 per block, built once per epoch and process), so
    prefetching workers, several workers and ``load_state_dict`` change
    nothing: it reads the plan, not what has been consumed. ``epoch`` set to
    an int overrides the sampler's (for ``persistent_workers=True``, whose
    workers keep the sampler copy of their first epoch).

    Args:
        sampler: A sampler whose ``plan(epoch)`` is a :class:`LocalityPlan`
            and whose ``pass_epoch()`` names the epoch being read.
        ahead: Windows due beyond the current one (``>= 0``).
    """

    def __init__(self, sampler: Any, ahead: int) -> None:
        self.sampler, self.ahead = sampler, ahead
        self.epoch: int | None = None  # None: the sampler's epoch
        self._epoch_cache: tuple[int, LocalityPlan, NDArray[np.int64]] | None = None
        self._due: set[int] = set()
        self._seen: set[int] = set()

    def plan(self) -> tuple[LocalityPlan, NDArray[np.int64]]:
        """The epoch's plan and, per full block, its place in the block order."""
        epoch = self.sampler.pass_epoch() if self.epoch is None else self.epoch
        cached = self._epoch_cache
        if cached is not None and cached[0] == epoch:
            return cached[1], cached[2]
        plan = self.sampler.plan(epoch)
        if not isinstance(plan, LocalityPlan):  # pragma: no cover - checked by the callers
            raise TypeError("the sampler's plan is not a locality plan")
        order = plan.window_order_blocks()
        where = np.empty(len(order), dtype=np.int64)
        where[order] = np.arange(len(order), dtype=np.int64)  # block -> place in block order
        self._epoch_cache = (epoch, plan, where)
        self._due, self._seen = set(), set()
        return plan, where

    def window_of(self, index: int) -> int:
        """The window of the epoch's plan that reads dataset index ``index``."""
        plan, where = self.plan()
        block = index // plan.block_size
        if block >= plan.num_blocks:  # the short tail block, last in the order
            return plan.num_blocks * plan.block_size // plan.span
        return int(where[block]) // plan.window

    def due(self, index: int) -> list[NDArray[np.int64]]:
        """The blocks of each window newly due after reading ``index`` (empty when seen).

        Returns:
            One array of dataset block ids per window newly due (block
            ``b`` holds indices ``[b * block_size, (b + 1) * block_size)``),
            in the order they are read; windows due before in this process
            are left out.
        """
        window = self.window_of(int(index))
        if window in self._seen:
            return []
        self._seen.add(window)
        plan, _ = self.plan()
        last = (plan.n - 1) // plan.span if plan.n else -1
        out: list[NDArray[np.int64]] = []
        for w in (window + k * plan.lanes for k in range(self.ahead + 1)):
            if w > last or w in self._due:
                continue
            self._due.add(w)
            out.append(plan.window_blocks(w))
        return out
