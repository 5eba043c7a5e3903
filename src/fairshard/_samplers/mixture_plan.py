"""The plan of one mixture epoch: which source each position draws from, and which item.

Position ``p`` asks the interleave for its source ``s`` and that source's
draw number ``k`` (O(1)), then maps ``k`` to an item of the source: pass
``k // size_s`` over it, walked in the keyed permutation of
``(seed, epoch, source, pass)`` (``_random.permutation``), so every pass is
a fresh shuffle and any position is reached without the ones before it.

The rest of an epoch resumed on changed sources (``MixtureChange``) is a
plan of the same kind: source ``s``'s draws start at ``first_draws[s]``
(where the saved epoch left its walk) and its permutations are keyed by
``source_keys[s]`` (its old number), so the walk goes on exactly.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from .._core.plans import IndexPlan
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words
from .interleave import Interleave

__all__ = ["MixturePlan", "mixture_length"]

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
        first_draws: (S,) draws of each source before position 0 (default none).
        source_keys: (S,) the number each source's permutations are keyed by
            (default its own).
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
        *,
        first_draws: NDArray[np.int64] | None = None,
        source_keys: NDArray[np.int64] | None = None,
    ) -> None:
        self.interleave = interleave
        self.first_draws = first_draws
        self.source_keys = source_keys
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
            keyed = source if self.source_keys is None else int(self.source_keys[source])
            words = stream_words(
                StreamId.MIXTURE, self.epoch, self.seed, ROUNDS, sub_id=keyed << _PASS_BITS | pass_
            )
            perm = self._perms[key] = KeyedPermutation(int(self.sizes[source]), words)
        return perm

    def sources(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """(m,) source number of each position."""
        return self.interleave.take(positions)[0]

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        source, draw = self.interleave.take(positions)  # (m,), (m,)
        if self.first_draws is not None:
            draw = draw + self.first_draws[source]
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


def mixture_length(
    interleave: Interleave,
    sizes: NDArray[np.int64],
    stopping: Literal["upsample", "first_exhausted", "all_exhausted"],
    num_samples: int,
    first_draws: NDArray[np.int64] | None = None,
) -> int:
    """Positions of a mixture epoch (or of its rest, after ``first_draws`` of each source).

    ``"upsample"``: ``num_samples``. ``"first_exhausted"``: up to the first
    draw a source has no unseen item for. ``"all_exhausted"``: up to the last
    unseen item of every drawn source (0 when none is left).
    """
    if stopping == "upsample":
        return num_samples
    first = np.zeros_like(sizes) if first_draws is None else first_draws
    left = np.maximum(sizes - first, 0)  # (S,) unseen items of each source
    drawn = np.flatnonzero(interleave.quotas > 0).tolist()
    if stopping == "first_exhausted":
        return min(interleave.position_of(s, int(left[s])) for s in drawn)
    ends = [interleave.position_of(s, int(left[s]) - 1) + 1 for s in drawn if left[s] > 0]
    return max(ends, default=0)
