"""``ShardedSampler``: shard any sampler across ranks (PyTorch's long-standing ask).

Per epoch the inner sampler runs once, fully, inside a forked RNG scope: the
global ``random``, ``numpy.random`` and ``torch`` generators are seeded from
the library's stream for ``(seed, epoch)`` and restored afterwards, so an
inner sampler that shuffles with global RNGs produces the same order on every
rank and the caller's RNG streams are untouched. ``set_epoch`` is forwarded
to the inner sampler first. The inner order becomes the epoch's plan and is
partitioned like every other fairshard plan (same layouts and tail modes).

NOTE (cost): the inner order is materialized, 8 bytes per item per epoch; an
inner sampler that reads process-specific state (rank, pid, time) still
diverges -- ``check=True`` all-gathers a digest of the inner order at each
``iter()`` and raises ``RankMismatchError`` naming the ranks that disagree.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterator
from typing import Any, NoReturn

import numpy as np
import torch
from numpy.typing import NDArray

from .._core import state as S
from .._core.partition import Layout, Tail
from .._core.plans import IndexPlan
from .._core.rng import forked_global_rng
from .._distributed.groups import group_of
from .._distributed.world import (
    all_gather_objects,
    group_size,
    process_group_active,
    talks_to_group,
)
from .._errors import ConfigError, ConfigTypeError, RankMismatchError, check_bool
from .._random.seeding import Stream, stream_words
from .torch_compat import IndexSampler
from .weighted_plans import ArrayPlan

__all__ = ["ShardedSampler"]


def _inner_order(sampler: Any, seed: int, epoch: int) -> NDArray[Any]:
    """Run ``sampler`` once with global RNGs seeded from ``(seed, epoch)``; restore them."""
    words = stream_words(Stream.WRAPPED, epoch, seed, 3)
    chunks: list[NDArray[Any]] = []
    done = 0
    with forked_global_rng(
        int(words[0]), int(words[1] >> np.uint64(32)), int(words[2] >> np.uint64(1))
    ):
        # NOTE (memory per item): read in chunks, each checked and kept as int32
        # when its values fit, so the order costs 4 bytes per index (8 past
        # 2**31) instead of a Python list's ~36 bytes while it is read.
        iterator = iter(sampler)
        while chunk := list(itertools.islice(iterator, _CHUNK)):
            order = _as_order(chunk, done)
            done += len(chunk)
            fits = order.size == 0 or int(order.max()) < (1 << 31)
            chunks.append(order.astype(np.int32) if fits else order)
    if not chunks:
        return np.empty(0, dtype=np.int64)
    wide = any(c.dtype == np.int64 for c in chunks)
    return np.concatenate(chunks).astype(np.int64 if wide else np.int32, copy=False)


_CHUNK = 1 << 16


_MAX_INDEX = (1 << 63) - 1


def _is_int(item: object) -> bool:
    return _is_int_type(type(item))


def _is_int_type(kind: type) -> bool:
    return issubclass(kind, numbers.Integral) and not issubclass(kind, bool | np.bool_)


def _as_order(items: list[Any], offset: int = 0) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The inner sampler's items as (n,) int64, each checked to be an int in ``[0, 2**63)``.

    ``offset`` is the position of ``items[0]`` in the inner sampler's order (for messages).

    Vectorized: one pass over the item types and one array conversion; a
    per-item scan runs only to name the first offending item.

    Raises:
        ConfigTypeError: an item that is not an int (bools and floats
            included), naming its position and value.
        ConfigError: an int outside ``[0, 2**63)``, naming its position and value.
    """
    if any(isinstance(x, torch.Tensor) for x in items):  # 0-d integer tensors, e.g. randperm
        items = [_tensor_item(x) if isinstance(x, torch.Tensor) else x for x in items]
    types = set(map(type, items))
    if all(_is_int_type(t) for t in types):
        array = np.array(items)
        if array.dtype.kind == "i" or array.size == 0:
            order = array.astype(np.int64, copy=False)
            negative = np.flatnonzero(order < 0)
            if negative.size == 0:
                return order
            _fail_range(offset + int(negative[0]), items[int(negative[0])])
    for position, item in enumerate(items, start=offset):  # name the first offender
        if not _is_int(item):
            sized = isinstance(item, np.ndarray | torch.Tensor) and item.ndim > 0
            if sized or isinstance(item, list | tuple):
                raise ConfigTypeError(
                    f"the inner sampler yielded sequences, not int indices (item {position}: "
                    f"{item!r}); wrap the sampler inside the BatchSampler instead"
                )
            raise ConfigTypeError(
                f"the inner sampler yielded {item!r} ({type(item).__name__}) at position "
                f"{position}; ShardedSampler shards samplers of int indices (not bools or floats)"
            )
        if not 0 <= int(item) <= _MAX_INDEX:
            _fail_range(position, item)
    # Every item is an int in range, but of mixed types numpy cannot combine
    # (int64 with uint64 gives float64): convert item by item.
    return np.array([int(item) for item in items], dtype=np.int64)


def _tensor_item(item: torch.Tensor) -> Any:
    """A 0-d integer tensor as its int; any other tensor unchanged (rejected later)."""
    integer = not (item.is_floating_point() or item.is_complex() or item.dtype == torch.bool)
    return item.item() if item.ndim == 0 and integer else item


def _fail_range(position: int, item: Any) -> NoReturn:
    raise ConfigError(
        f"the inner sampler yielded {item!r} at position {position}, outside [0, 2**63); "
        "ShardedSampler shards samplers of non-negative int indices"
    )


class ShardedSampler(IndexSampler):
    """Partition the order of any sampler across ranks.

    Args:
        sampler: A ``torch.utils.data.Sampler`` or any iterable of ints with
            ``__len__``; if it has ``set_epoch`` it is forwarded.
        num_replicas, rank, seed, layout, tail, auto_epoch, group: As
            ``DistributedSampler``.
        check: At every ``iter()``, all-gather a digest of the inner order and
            raise ``RankMismatchError`` naming the ranks that differ (a
            collective: every rank must iterate).

    Raises:
        ConfigTypeError: ``sampler`` is not iterable or has no ``__len__``.
        ConfigError: ``len(sampler)`` differs from the number of items it yields.

    Example:
        >>> from torch.utils.data import RandomSampler
        >>> shards = [set(ShardedSampler(RandomSampler(range(8)), num_replicas=2, rank=r))
        ...           for r in (0, 1)]
        >>> sorted(shards[0] | shards[1]) == list(range(8)) and not shards[0] & shards[1]
        True
    """

    kind = "ShardedSampler"

    def __init__(
        self,
        sampler: Any,
        *,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int = 0,
        tail: Tail = "pad",
        layout: Layout = "strided",
        check: bool = False,
        auto_epoch: bool = False,
        group: Any = None,
    ) -> None:
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            layout=layout,
            tail=tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        if not hasattr(sampler, "__iter__") or not hasattr(sampler, "__len__"):
            raise ConfigTypeError(
                f"sampler must be iterable and define __len__, got {type(sampler).__name__}"
            )
        check_bool("check", check)
        self.sampler = sampler
        self.check = check

    def _config(self) -> dict[str, Any]:
        inner = type(self.sampler)
        return {"sampler": f"{inner.__module__}.{inner.__qualname__}", "n": len(self.sampler)}

    def _build_plan(self, epoch: int) -> IndexPlan:
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)
        order = _inner_order(self.sampler, self.seed, epoch)
        expected = len(self.sampler)
        if order.shape[0] != expected:
            raise ConfigError(
                f"the inner sampler's len() is {expected} but it yielded {order.shape[0]} "
                f"indices in epoch {epoch}; fix its __len__ (ShardedSampler needs it exact)"
            )
        return ArrayPlan(order)

    def __iter__(self) -> Iterator[int]:
        checking = self.check and self.num_replicas > 1 and process_group_active()
        if checking and not talks_to_group(self.num_replicas, group_of(self)):  # not outside it
            raise ConfigError(
                f"ShardedSampler(check=True) compares the inner order across the "
                f"num_replicas={self.num_replicas} ranks, but the process group has "
                f"{group_size(group_of(self))} ranks and fairshard talks only to the group a "
                "sampler's world is; build it for the whole group, or pass check=False"
            )
        items = super().__iter__()
        if checking:
            plan = self.plan(self.pass_epoch())
            assert isinstance(plan, ArrayPlan)
            self._check_ranks(S.digest(plan.order))
        return items

    def _check_ranks(self, local: str) -> None:
        digests = all_gather_objects(local, timeout=60.0, group=group_of(self))
        if len(set(digests)) > 1:
            groups: dict[str, list[int]] = {}
            for r, value in enumerate(digests):
                groups.setdefault(value, []).append(r)
            detail = "; ".join(f"ranks {ranks}: order digest {d}" for d, ranks in groups.items())
            raise RankMismatchError(
                f"ShardedSampler: the inner sampler produced different orders on different "
                f"ranks ({detail}). It depends on something other than the global RNGs "
                "(rank, process id, time, its own unseeded generator); make it deterministic"
            )
