"""The plan of one mixture epoch: which source each position draws from, and which item.

Position ``p`` asks the interleave for its source ``s`` and that source's
draw number ``k`` (O(1)), then maps ``k`` to an item of the source: pass
``k // size_s`` over it, walked in the keyed permutation of
``(seed, epoch, source, pass)`` (``_random.permutation``), so every pass is
a fresh shuffle and any position is reached without the ones before it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._core.plans import IndexPlan
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words
from .interleave import Interleave

__all__ = ["MixturePlan"]

_PASS_BITS = 32  # sub_id = source << 32 | pass


class MixturePlan(IndexPlan):
    """One epoch of a mixture: ``length`` positions over the interleave's period.

    Args:
        interleave: The source schedule.
        sizes: (S,) items per source.
        offsets: (S,) first global index of each source.
        length: Positions in the epoch.
        seed: Root seed (normalized).
        epoch: The epoch.
        shuffle: Walk each source in a keyed random order (else in index order).
    """

    def __init__(
        self,
        interleave: Interleave,
        sizes: NDArray[np.int64],
        offsets: NDArray[np.int64],
        length: int,
        seed: int,
        epoch: int,
        shuffle: bool,
    ) -> None:
        self.interleave = interleave
        self.sizes = sizes
        self.offsets = offsets
        self.length = length
        self.seed = seed
        self.epoch = epoch
        self.shuffle = shuffle
        self._perms: dict[tuple[int, int], KeyedPermutation] = {}

    def __len__(self) -> int:
        return self.length

    def _perm(self, source: int, pass_: int) -> KeyedPermutation:
        key = (source, pass_)
        perm = self._perms.get(key)
        if perm is None:
            if len(self._perms) >= 64:  # a chunk touches a few passes; keep memory flat
                self._perms.clear()
            words = stream_words(
                StreamId.MIXTURE, self.epoch, self.seed, ROUNDS, sub_id=source << _PASS_BITS | pass_
            )
            perm = self._perms[key] = KeyedPermutation(int(self.sizes[source]), words)
        return perm

    def sources(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """(m,) source number of each position."""
        return self.interleave.take(positions)[0]

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        source, draw = self.interleave.take(positions)  # (m,), (m,)
        return self.items_of(source, draw)

    def items_of(self, source: NDArray[np.int64], draw: NDArray[np.int64]) -> NDArray[np.int64]:
        """Global indices of draw ``draw[i]`` of source ``source[i]``: (m,), (m,) -> (m,)."""
        size = self.sizes[source]
        pass_, local = np.divmod(draw, size)
        if self.shuffle and source.size:
            # One permutation per (source, pass) present in the chunk: a handful.
            key = source * (int(pass_.max()) + 1) + pass_
            for k in np.unique(key).tolist():
                sel = np.flatnonzero(key == k)
                s, p = int(source[sel[0]]), int(pass_[sel[0]])
                local[sel] = self._perm(s, p).take(local[sel])
        result: NDArray[np.int64] = self.offsets[source] + local
        return result
