"""What every rank evaluates: its samples, their dataset indices, and which are padding.

Evaluation helpers need, for each rank, which dataset samples its outputs
belong to and which of them are padding duplicates. A fairshard sampler knows
this exactly -- its plan and partition are pure functions every rank can
evaluate for every other rank -- so no indices need to be sent over the
network. PyTorch's own ``DistributedSampler`` is described too: its order is
``TorchPermutationPlan`` (or the identity) under a strided partition with the
``pad`` or ``drop`` tail, which fairshard reproduces index for index.

NOTE (padding is a tail): with ``tail="pad"`` a rank's local item ``i`` sits
in global slot ``i * W + rank`` (strided) or ``rank * max_items + i``
(blocked); a slot is padding when it is ``>= remaining``. Both are increasing
in ``i``, so every rank's padding is the *end* of its share, and the first
``num_real(rank)`` items are exactly its real ones.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch.utils.data as tud
from numpy.typing import NDArray

from .._core.base import PlannedSampler
from .._core.partition import Partition, Tail
from .._core.plans import Plan, RangePlan, TorchPermutationPlan, flatten_items
from .._core.state import digest
from .._errors import ConfigError, ConfigTypeError

__all__ = ["ShareMap", "describe", "padding_mask"]


def _real_items(partition: Partition, rank: int) -> int:
    """Number of leading items of ``rank``'s share that are not padding."""
    count = partition.num_items(rank)
    if partition.tail != "pad":
        return count
    m, w = partition.remaining, partition.world_size
    if partition.layout == "strided":  # slots rank, rank + w, ... below m
        return max(0, -(-(m - rank) // w))
    return min(count, max(0, m - rank * partition.max_items))  # blocked: one run of slots


class ShareMap:
    """Every rank's share of one epoch, counted in samples.

    Args:
        plan: The epoch's plan (index plan, or a plan whose items are batches).
        partition: How the plan's positions are split over the ranks.
        rank: The rank this process is.
        identity: Plain values every rank of one job must agree on.
    """

    def __init__(self, plan: Plan, partition: Partition, rank: int, identity: tuple[Any, ...]):
        self.plan = plan
        self.partition = partition
        self.rank = rank
        self.identity = identity
        self.world_size = partition.world_size
        self._take = getattr(plan, "take", None)
        self._flat = lru_cache(maxsize=None)(self._flat_share)

    def _flat_share(self, rank: int) -> tuple[NDArray[np.int64], int]:
        """(samples of ``rank`` as dataset indices, number of real samples) for batch plans."""
        positions = self.partition.positions(rank, 0, self.partition.num_items(rank))
        flat, counts = flatten_items(self.plan.items(positions))
        return flat, int(counts[: _real_items(self.partition, rank)].sum())

    def size(self, rank: int) -> int:
        """Number of samples ``rank`` yields in the epoch, padding included."""
        if self._take is not None:
            return self.partition.num_items(rank)
        return int(self._flat(rank)[0].size)

    def num_real(self, rank: int) -> int:
        """Number of leading samples of ``rank``'s share that are not padding."""
        if self._take is not None:
            return _real_items(self.partition, rank)
        return self._flat(rank)[1]

    def indices(self, rank: int, begin: int = 0, end: int | None = None) -> NDArray[np.int64]:
        """Dataset indices of ``rank``'s samples ``[begin, end)`` (default: all of them)."""
        end = self.size(rank) if end is None else end
        if self._take is not None:
            positions = self.partition.positions(rank, begin, end)
            result: NDArray[np.int64] = np.asarray(self._take(positions), dtype=np.int64)
            return result
        return self._flat(rank)[0][begin:end]

    def real_positions(self, rank: int) -> NDArray[np.int64]:
        """Plan positions of ``rank``'s real samples (one per sample; batches repeat theirs)."""
        count = _real_items(self.partition, rank)
        positions = self.partition.positions(rank, 0, count)
        if self._take is not None:
            return positions
        sizes = np.diff(
            np.concatenate(([0], np.cumsum(flatten_items(self.plan.items(positions))[1])))
        )
        return np.repeat(positions, sizes)

    def check_complete(self, what: str) -> None:
        """Raise if the sampler dropped samples, so ``what`` cannot see the whole dataset."""
        dropped = self.partition.num_dropped()
        if dropped:
            raise ConfigError(
                f"{what} needs every sample scored once, but the sampler drops {dropped} of "
                f"{self.partition.remaining} positions (tail='drop' / drop_last=True); use "
                "fairshard.DistributedEvalSampler (or tail='uneven', or drop_last=False)"
            )


def describe(sampler: Any) -> ShareMap:
    """The ``ShareMap`` of ``sampler``'s current epoch.

    Accepts fairshard samplers, PyTorch's ``DistributedSampler`` (exactly that
    class: a subclass may change the order) and a ``torch.utils.data.BatchSampler``
    around either (its batches are consecutive runs of the inner sampler).

    Raises:
        ConfigTypeError: ``sampler`` is none of those.
    """
    if type(sampler) is tud.BatchSampler:
        sampler = sampler.sampler
    if isinstance(sampler, PlannedSampler):
        identity = (sampler.kind, digest(sampler.full_config()), sampler.seed, sampler.epoch)
        return ShareMap(sampler.plan(), sampler.partition(), sampler.rank, identity)
    if type(sampler) is tud.DistributedSampler:
        n = len(sampler.dataset)  # type: ignore[arg-type]
        epoch, seed = int(sampler.epoch), int(sampler.seed)
        plan: Plan = TorchPermutationPlan(n, seed, epoch) if sampler.shuffle else RangePlan(n)
        tail: Tail = "drop" if sampler.drop_last else "pad"
        partition = Partition(n, sampler.num_replicas, "strided", tail)
        torch_identity = ("torch.DistributedSampler", n, bool(sampler.shuffle), seed, epoch, tail)
        return ShareMap(plan, partition, sampler.rank, torch_identity)
    raise ConfigTypeError(
        f"sampler must be a fairshard sampler (e.g. fairshard.DistributedEvalSampler) or "
        f"torch.utils.data.DistributedSampler, got {type(sampler).__name__}; only those say "
        "which dataset index every rank's outputs belong to. Use "
        "fairshard.DistributedEvalSampler(dataset) for evaluation"
    )


def padding_mask(sampler: Any) -> NDArray[np.bool_]:
    """Which of this rank's samples are padding duplicates, in the order it yields them.

    Padding exists only with ``tail="pad"`` (PyTorch's ``drop_last=False``):
    samples repeated so every rank takes the same number of steps. Count a
    sample in a metric only where the mask is ``False``.

    Args:
        sampler: A fairshard sampler or ``torch.utils.data.DistributedSampler``.

    Returns:
        (share size,) bool array, ``True`` for padding.

    Example:
        >>> from fairshard import DistributedSampler
        >>> padding_mask(DistributedSampler(10, num_replicas=4, rank=3, shuffle=False)).tolist()
        [False, False, True]
    """
    shares = describe(sampler)
    size = shares.size(shares.rank)
    return np.arange(size) >= shares.num_real(shares.rank)
