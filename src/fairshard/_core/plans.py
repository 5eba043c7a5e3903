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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
import torch
from numpy.typing import NDArray

from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words

__all__ = [
    "PLAN_TYPES",
    "ArrayPlan",
    "BatchPlan",
    "SharedPlan",
    "flatten_items",
    "shareable",
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

    #: Largest number of positions evaluated at once (the cursor's chunk bound).
    max_chunk: int

    def __len__(self) -> int:
        """Number of positions in the epoch."""
        ...

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """Python objects at ``positions`` (each in ``[0, len(self))``), in a new list.

        The caller owns the list (a ``StepSampler`` cuts it short when the
        plans change): never return a list the plan keeps.
        """
        ...


@runtime_checkable
class SharedPlan(Protocol):
    """A materialized plan that can be published as arrays and rebuilt from them.

    Node-shared plans (``_core/plan_share.py``) publish ``plan_arrays()`` once
    per node; every rank rebuilds the plan from the read-only mapped arrays
    with the type's ``from_plan_arrays``, found by name in :data:`PLAN_TYPES`.
    """

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The plan's arrays, and plain JSON values that complete it."""
        ...


#: Rebuilds a plan from its published arrays and values.
PlanFactory = Callable[[Mapping[str, NDArray[Any]], Mapping[str, Any]], Plan]
#: Every :class:`SharedPlan` type by name (the name is published with the arrays).
PLAN_TYPES: dict[str, PlanFactory] = {}

_T = TypeVar("_T")


def shareable(cls: type[_T]) -> type[_T]:
    """Class decorator: register a plan type's ``from_plan_arrays`` under its name."""
    PLAN_TYPES[cls.__qualname__] = cls.from_plan_arrays  # type: ignore[attr-defined]
    return cls


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
        keys = stream_words(StreamId.PERMUTATION, epoch, seed, ROUNDS, sub_id=sub_id)
        self._perm = KeyedPermutation(n, keys)

    def __len__(self) -> int:
        return len(self._perm)

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self._perm.take(positions)


def torch_epoch_seed(seed: int, epoch: int) -> int:
    """The seed PyTorch's ``DistributedSampler`` gives its generator: ``seed + epoch``."""
    return seed + epoch


@shareable
class ArrayPlan(IndexPlan):
    """A plan over a materialized (n,) order: int64, or int32 kept as is (half the memory)."""

    def __init__(self, order: NDArray[np.int64] | NDArray[np.int32]) -> None:
        dtype = np.int32 if order.dtype == np.int32 else np.int64
        self.order = np.ascontiguousarray(order, dtype=dtype)

    def __len__(self) -> int:
        return int(self.order.shape[0])

    def take(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self.order[positions].astype(np.int64, copy=False)

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The order."""
        return {"order": self.order}, {}

    @classmethod
    def from_plan_arrays(
        cls, arrays: Mapping[str, NDArray[Any]], meta: Mapping[str, Any]
    ) -> ArrayPlan:
        """The plan over a published order (read-only, not copied)."""
        plan = cls.__new__(cls)
        plan.order = arrays["order"]
        return plan


class TorchPermutationPlan(ArrayPlan):
    """PyTorch's ``DistributedSampler`` order: ``torch.randperm`` seeded ``seed + epoch``.

    Materializes the permutation (8 bytes per index), so memory grows with the
    dataset. Exists so that old experiments can be reproduced index for index.
    Shared across a node's ranks, it is rebuilt as the :class:`ArrayPlan` of
    its order (the same items at every position).
    """

    def __init__(self, n: int, seed: int, epoch: int) -> None:
        generator = torch.Generator()
        generator.manual_seed(torch_epoch_seed(seed, epoch))
        super().__init__(torch.randperm(n, generator=generator).numpy())


@shareable
class BatchPlan:
    """A plan whose items are batches: lists of dataset indices.

    Stored as CSR arrays -- ``flat`` holds every batch's indices back to back
    and ``offsets[b]:offsets[b + 1]`` delimits batch ``b`` -- so memory is two
    int64 arrays, and any batch is reached in O(1).

    Args:
        flat: (total,) int64 dataset indices of all batches, concatenated.
        offsets: (num_batches + 1,) int64, non-decreasing, ``offsets[0] == 0``
            and ``offsets[-1] == len(flat)``.

    Example:
        >>> import numpy as np
        >>> plan = BatchPlan(np.array([4, 2, 9, 7, 1]), np.array([0, 2, 5]))
        >>> len(plan), plan.items(np.array([1, 0]))
        (2, [[9, 7, 1], [4, 2]])
    """

    #: At most this many batches evaluated at once ...
    max_chunk = 1024
    #: ... and about this many items: a chunk's Python lists are what a rank
    #: holds beside the (shared) plan, so 1024 packed batches of 160 items
    #: each, 160k Python ints, kept ~6 MiB of freed heap per rank where 16k
    #: items (an index plan's chunk) keep well under one.
    chunk_items = IndexPlan.max_chunk

    def __init__(self, flat: NDArray[np.int64], offsets: NDArray[np.int64]) -> None:
        self.flat = np.asarray(flat, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        if self.offsets.ndim != 1 or self.offsets.size < 1 or self.offsets[0] != 0:
            raise ValueError("offsets must be a 1-D array starting at 0")
        if self.offsets[-1] != self.flat.size or np.any(np.diff(self.offsets) < 0):
            raise ValueError("offsets must be non-decreasing and end at len(flat)")
        self._bound_chunk()

    def _bound_chunk(self) -> None:
        batches, items = self.offsets.size - 1, int(self.flat.size)
        if items > batches:  # batches of more than one item on average
            self.max_chunk = max(1, min(type(self).max_chunk, self.chunk_items * batches // items))

    def __len__(self) -> int:
        return int(self.offsets.size - 1)

    def plan_arrays(self) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The CSR arrays."""
        return {"flat": self.flat, "offsets": self.offsets}, {}

    @classmethod
    def from_plan_arrays(
        cls, arrays: Mapping[str, NDArray[Any]], meta: Mapping[str, Any]
    ) -> BatchPlan:
        """The plan over published CSR arrays (read-only, not copied, not re-checked)."""
        plan = cls.__new__(cls)
        plan.flat, plan.offsets = arrays["flat"], arrays["offsets"]
        plan._bound_chunk()
        return plan

    def sizes(self) -> NDArray[np.int64]:
        """(num_batches,) number of indices in each batch."""
        return np.diff(self.offsets)

    def batch(self, position: int) -> NDArray[np.int64]:
        """The indices of one batch."""
        return self.flat[self.offsets[position] : self.offsets[position + 1]]

    def items(self, positions: NDArray[np.int64]) -> list[Any]:
        """The batches at ``positions`` as lists of Python ints."""
        starts = self.offsets[positions]
        ends = self.offsets[positions + 1]
        lengths = ends - starts
        # Gather all requested indices at once: (sum(lengths),) positions into flat.
        gather = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
        gather += np.arange(int(lengths.sum()), dtype=np.int64)
        values = self.flat[gather].tolist()
        out: list[Any] = []
        cursor = 0
        for length in lengths.tolist():
            out.append(values[cursor : cursor + length])
            cursor += length
        return out


def flatten_items(items: Sequence[Any]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """What a plan or a sampler yields as ``(indices, sizes)``: ints, batches, or batches of rows.

    The one flattening helper: evaluation shares, the coverage checker, the
    simulator and the tests all read items through it. Items nest to any
    depth (an index, a batch of indices, a batch of packed rows of indices).

    Returns:
        ``(m,)`` int64 dataset indices in order, and ``(len(items),)`` int64
        sizes: how many indices each item holds (1 for an int item).

    Example:
        >>> flatten_items([[3, 1], [2]])
        (array([3, 1, 2]), array([2, 1]))
        >>> flatten_items([[[0, 4], [2]], [[1]]])[1]
        array([3, 1])
    """
    if all(isinstance(item, int | np.integer) for item in items):
        return np.asarray(items, dtype=np.int64).reshape(-1), np.ones(len(items), dtype=np.int64)
    parts = [_leaves(item) for item in items]
    sizes = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    flat = np.fromiter((i for p in parts for i in p), dtype=np.int64, count=int(sizes.sum()))
    return flat, sizes


def _leaves(item: Any) -> list[int]:
    """The indices inside one item, depth first."""
    if isinstance(item, int | np.integer):
        return [int(item)]
    if isinstance(item, np.ndarray) and item.ndim == 1 and item.dtype.kind in "iu":
        return [int(i) for i in item.tolist()]
    if all(isinstance(i, int | np.integer) for i in item):
        return [int(i) for i in item]
    return [leaf for sub in item for leaf in _leaves(sub)]
