"""Plans: the global sequence of items for one epoch, with random access.

A plan is a pure function of ``(config, seed, epoch)``. It never depends on
the rank or the world size, so every rank computes the same plan without
communicating, and a job can resume on another world size.

Every plan answers ``len(plan)`` and ``plan.items(positions)``, which returns
the Python objects to yield (ints for index plans, lists of ints for batch
plans) for an int64 array of plan positions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
from numpy.typing import NDArray

from ._permutation import ROUNDS, KeyedPermutation
from ._seeding import Stream, stream_words

__all__ = [
    "IndexPlan",
    "PermutationPlan",
    "Plan",
    "RangePlan",
    "TorchPermutationPlan",
    "torch_epoch_seed",
]


@runtime_checkable
class Plan(Protocol):
    """What a sampler needs from a plan."""

    def __len__(self) -> int:
        """Number of positions in the epoch."""
        ...

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """Python objects at ``positions`` (each in ``[0, len(self))``)."""
        ...


class IndexPlan(ABC):
    """A plan whose items are dataset indices (ints)."""

    #: Largest number of positions evaluated at once.
    max_chunk = 16384

    @abstractmethod
    def __len__(self) -> int:
        """Number of positions in the epoch."""

    @abstractmethod
    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """Dataset indices at ``positions``: (m,) int64 -> (m,) int64."""

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """Dataset indices at ``positions`` as Python ints."""
        result: list[Any] = self.take(positions).tolist()
        return result


class RangePlan(IndexPlan):
    """The identity order ``0, 1, ..., n - 1`` (``shuffle=False``)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return positions


class PermutationPlan(IndexPlan):
    """A lazy uniform-looking permutation of ``[0, n)`` keyed by ``(seed, epoch)``."""

    def __init__(self, n: int, seed: int, epoch: int, *, sub_id: int = 0) -> None:
        keys = stream_words(Stream.PERMUTATION, epoch, seed, ROUNDS, sub_id=sub_id)
        self._perm = KeyedPermutation(n, keys)

    def __len__(self) -> int:
        return len(self._perm)

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self._perm.take(positions)


def torch_epoch_seed(seed: int, epoch: int) -> int:
    """The seed PyTorch's ``DistributedSampler`` gives its generator: ``seed + epoch``."""
    return seed + epoch


class TorchPermutationPlan(IndexPlan):
    """PyTorch's ``DistributedSampler`` order: ``torch.randperm`` seeded ``seed + epoch``.

    Materializes the permutation (8 bytes per index), so memory grows with the
    dataset. Exists so that old experiments can be reproduced index for index.
    """

    def __init__(self, n: int, seed: int, epoch: int) -> None:
        generator = torch.Generator()
        generator.manual_seed(torch_epoch_seed(seed, epoch))
        self._order = torch.randperm(n, generator=generator).numpy()

    def __len__(self) -> int:
        return int(self._order.shape[0])

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self._order[positions]
