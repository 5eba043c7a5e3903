"""``stop_together``: end an epoch on every rank at the same step.

When no rank can know in advance how many items it will get -- shards of
unknown size, a filter applied on the fly -- equal step counts need a
coordinated stop: before each step every rank says whether it still has a
batch, and all stop as soon as one has none. This costs one all-reduce of one
integer per step; the batches the other ranks had fetched for that last step
are dropped (at most one per rank, counted in ``StopTogether.dropped``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

import torch

from .._distributed.world import _collective_device, process_group_active, retain

__all__ = ["StopTogether", "stop_together"]

T = TypeVar("T")


class StopTogether(Generic[T]):
    """Iterate ``iterable`` until any rank's copy of it is exhausted.

    Without an initialized process group it passes everything through.

    Args:
        iterable: This rank's batches (typically a DataLoader).
        group: The process group to agree in; ``None`` is the default group.
    """

    def __init__(self, iterable: Iterable[T], group: Any = None) -> None:
        self.iterable = iterable
        self.group = group
        self.dropped = 0  # batches this rank fetched but did not yield at the stop

    def __len__(self) -> int:
        """No length: where the stop falls depends on every rank's data (``TypeError``)."""
        raise TypeError("stop_together has no len(): the stop depends on every rank's data")

    def __iter__(self) -> Iterator[T]:
        if not process_group_active():
            yield from self.iterable
            return
        device = _collective_device(torch.distributed.get_backend(self.group))
        flag = torch.ones(1, dtype=torch.int64, device=device)
        it = iter(self.iterable)
        while True:
            try:
                item, have = next(it), 1
            except StopIteration:
                have = 0
            flag.fill_(have)
            torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MIN, group=self.group)
            retain(flag)
            if int(flag.item()) == 0:
                self.dropped += have
                return
            yield item


def stop_together(iterable: Iterable[T], *, group: Any = None) -> StopTogether[T]:
    """Yield from ``iterable`` while every rank still has data; stop all ranks together.

    Wrap the DataLoader of a stream whose per-rank counts are not known to be
    equal (``ShardedIterable(..., tail="uneven")``), so DDP never waits on a
    rank that has already finished::

        for batch in fairshard.stop_together(loader):
            ...

    Example:
        >>> list(stop_together([1, 2, 3]))  # no process group: unchanged
        [1, 2, 3]
    """
    return StopTogether(iterable, group)
