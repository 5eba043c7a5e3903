"""The epochs of a sampler's plan chained into one stream of positions.

Epoch ``e`` holds ``len(plan(e))`` positions, so stream position ``q`` is
position ``q - ends[e]`` of the epoch ``e`` with ``ends[e] <= q < ends[e+1]``.
When the config fixes the plan length ``n`` (``_known_plan_length``) that is
``divmod(q, n)``; otherwise the epochs before ``q`` are walked once, building
their plans for their lengths, and remembered.

After a resume on changed data (``StepSampler.load_state_dict(state,
migrate=...)``) the chain starts at an origin ``(epoch, stream position)``:
the positions before it belong to the old data and are never read again;
the origin's epoch holds the rest of the saved epoch (its plan is the
rest's, maybe empty), and the epochs after it the new data's plain plans.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError
from .base import PlannedSampler

__all__ = ["EpochChain"]


class EpochChain:
    """Stream positions <-> ``(epoch, plan position)`` of one sampler, and the items there."""

    def __init__(
        self, sampler: PlannedSampler[Any, Any], origin: tuple[int, int] | None = None
    ) -> None:
        self.sampler = sampler
        self.origin = origin
        self.known = sampler._fixed_plan_length() if origin is None else None
        self._first = 0 if origin is None else origin[0]
        # _ends[k]: stream positions before epoch first + k.
        self._ends: list[int] = [0 if origin is None else origin[1]]

    def epoch_length(self, epoch: int) -> int:
        """Positions in ``epoch`` (refused when empty: an endless stream would stall).

        The origin's epoch may be empty (nothing was left of it).
        """
        length = self.known if self.known is not None else len(self.sampler.plan(epoch))
        if length == 0 and (self.origin is None or epoch != self._first):
            raise ConfigError(
                f"{self.sampler.kind} has an empty plan in epoch {epoch}; an endless stream "
                "needs items in every epoch"
            )
        return length

    def _extend(self, epochs: int, position: int) -> None:
        first = self._first
        while len(self._ends) <= epochs - first or self._ends[-1] <= position:
            self._ends.append(self._ends[-1] + self.epoch_length(first + len(self._ends) - 1))

    def locate(self, positions: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(epoch, position in that epoch's plan) of stream positions: (m,) -> (m,), (m,)."""
        if self.known is not None:
            n = self.epoch_length(0)
            epochs, local = np.divmod(positions, n)
            return epochs, local
        self._extend(self._first, int(positions.max()) if positions.size else 0)
        ends = np.asarray(self._ends, dtype=np.int64)
        k = np.maximum(np.searchsorted(ends, positions, side="right") - 1, 0)
        return k + self._first, positions - ends[k]

    def stream_position(self, epoch: int, position: int) -> int:
        """The stream position of ``position`` in ``epoch``."""
        if self.known is not None:
            return epoch * self.epoch_length(0) + position
        if epoch < self._first:  # before the origin: the old data's positions
            return self._ends[0]
        self._extend(epoch, 0)
        return self._ends[epoch - self._first] + position

    def items(self, positions: NDArray[np.int64]) -> tuple[list[Any], NDArray[np.int64]]:
        """The plan items at sorted stream positions, and their epochs."""
        if self.known is not None and positions.size:
            n = self.epoch_length(0)
            epoch = int(positions[0]) // n
            if int(positions[-1]) // n == epoch:  # sorted: one epoch, no division, no split
                local = positions - epoch * n if epoch else positions
                epochs: NDArray[np.int64] = np.broadcast_to(np.int64(epoch), positions.shape)
                return self.sampler.plan(epoch).items(local), epochs
        epochs, local = self.locate(positions)
        items: list[Any] = []
        if epochs.size:
            cuts = np.flatnonzero(np.diff(epochs)) + 1
            for part_e, part_p in zip(np.split(epochs, cuts), np.split(local, cuts), strict=True):
                items.extend(self.sampler.plan(int(part_e[0])).items(part_p))
        return items, epochs
