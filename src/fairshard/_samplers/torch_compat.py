"""``IndexSampler``: every fairshard index sampler is a PyTorch ``DistributedSampler``.

Frameworks decide whether to shard a DataLoader themselves by asking
``isinstance(loader.sampler, torch.utils.data.DistributedSampler)``:
Lightning's ``Trainer`` and Fabric (``use_distributed_sampler=True``, the
default) wrap any other sampler in their ``DistributedSamplerWrapper``. A
fairshard sampler already gives each rank its share, so being wrapped shards
the share a second time and silently drops ``(W - 1) / W`` of the data.
Every index sampler therefore derives from PyTorch's class (through this
base) and passes those checks unchanged; the frameworks then leave the
sampler alone and call its ``set_epoch`` themselves.

NOTE (why subclass, and why only for the index samplers): subclassing is the
only way ``isinstance`` answers True for a class that is not an ABC (a
virtual subclass needs ``ABCMeta``; faking ``__class__`` would lie to every
other check). PyTorch's ``__init__`` is never called: it would resolve the
world its own way (and fail without a process group); the fairshard base
sets every attribute PyTorch's class has, with PyTorch's meaning:
``num_replicas``, ``rank``, ``epoch``, ``seed``, ``shuffle``, ``drop_last``,
``dataset``, ``num_samples`` (items this rank takes in a full epoch) and
``total_size`` (items all ranks take, padding included). The weighted
families keep the meaning the class they replace gives a name:
``WeightedSampler``, ``ClassBalancedSampler`` and ``HardExampleSampler`` store their
``num_samples`` argument -- draws per epoch over all ranks, as in
``WeightedRandomSampler`` -- under ``num_samples``, and ``MixtureSampler``'s
``num_samples`` is its epoch's draws over all ranks (the argument, or the
length its stopping strategy sets); ``len(sampler)`` is this rank's count
for every family. Batch samplers (``*BatchSampler``) yield
lists, which a ``DistributedSampler`` never does, so they do not claim to
be one (see docs/integrations.md for what that means in Lightning).
MRO: the fairshard base comes first, so its ``__iter__``, ``__len__`` and
``set_epoch`` are the ones that run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

import numpy as np
import torch.utils.data as tud

from .._core.base import PlannedSampler
from .._core.partition import Partition
from .._core.plans import IndexPlan
from .reshard_guard import refuse_resharding

__all__ = ["IndexSampler"]

IP = TypeVar("IP", bound=IndexPlan)

_HEAD = 256  # plan positions compared to tell whether the order changes with the epoch


class _PerRankCount:
    """PyTorch's ``num_samples`` (this rank's full-epoch count), unless a family sets its own.

    A non-data descriptor: an instance attribute of the same name (the
    weighted families' draw count) takes precedence over it.
    """

    def __get__(self, sampler: IndexSampler[Any] | None, owner: type) -> Any:
        if sampler is None:
            return self
        return sampler.full_partition().num_items(sampler.rank)


class IndexSampler(
    PlannedSampler[int, IP], tud.DistributedSampler[int], Generic[IP], register=False
):
    """Base of the index samplers: a ``PlannedSampler`` that is a PyTorch ``DistributedSampler``.

    Generic over the family's plan class (an ``IndexPlan``).

    See the module docstring for what it promises and why.
    """

    num_samples = _PerRankCount()

    @property
    def shuffle(self) -> bool:
        """PyTorch's flag: whether the order changes with the epoch.

        ``DistributedSampler`` sets it from its argument. For the other
        families it is computed: the heads of this epoch's plan and the next
        are compared (a wrapped ``SequentialSampler``, or weights with one
        positive entry, keep their order).
        """
        given = self.__dict__.get("_shuffle")
        if given is not None:
            return bool(given)
        now, following = self.plan(self.epoch), self.plan(self.epoch + 1)
        head = np.arange(min(len(now), _HEAD), dtype=np.int64)
        differ = bool(np.any(np.asarray(now.items(head)) != np.asarray(following.items(head))))
        self.plan(self.epoch)  # leave the current epoch's plan cached (and a wrapped sampler there)
        return differ

    @shuffle.setter
    def shuffle(self, value: bool) -> None:
        self.__dict__["_shuffle"] = bool(value)

    def __iter__(self) -> Iterator[int]:
        refuse_resharding(self)  # accelerate's prepare() would shard the share again
        return super().__iter__()

    @property
    def drop_last(self) -> bool:  # type: ignore[override]  # read-only: derived from tail
        """PyTorch's flag: ``True`` when the tail is dropped (``tail="drop"``)."""
        return self.tail == "drop"

    @property
    def dataset(self) -> Any:
        """What the indices index: the dataset given, else ``range`` of its size."""
        given = self.__dict__.get("_dataset")
        if given is not None:
            return given
        inner = getattr(self, "sampler", None)
        for name in ("data_source", "dataset"):
            source = getattr(inner, name, None)
            if source is not None:
                return source
        return range(int(getattr(self, "n", 0)))

    @dataset.setter
    def dataset(self, value: Any) -> None:
        self.__dict__["_dataset"] = value

    def full_partition(self) -> Partition:
        """The partition of a full epoch of the current plan (no resume)."""
        return Partition(len(self.plan()), self.num_replicas, self.layout, self.tail)

    @property
    def total_size(self) -> int:  # type: ignore[override]  # read-only: derived from the plan
        """Items all ranks take in a full epoch, padding included (PyTorch's attribute)."""
        partition = self.full_partition()
        if self.tail == "uneven":
            return partition.remaining
        return partition.max_items * self.num_replicas
