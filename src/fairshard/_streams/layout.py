"""Who reads what: the pure layout under ``ShardedIterable``.

A *consumer* is one DataLoader worker of one rank: ``(rank, world_size,
worker, num_workers)``; a rank without workers is worker 0 of 1. Everything
here is a pure function of the consumer, the policy and the sizes, so the
tests and the simulator call exactly what the dataset runs.

NOTE (item mode layout): stream position ``p`` goes to rank ``p % R`` -- the
strided layout of ``Partition`` -- and, inside the rank, to worker
``(p // R) % W``. Think of the stream as rows of ``R`` items: row ``k`` is
read by worker ``k % W`` of every rank, and rank ``r`` takes column ``r``.
Each consumer therefore takes every ``R * W``-th item, starting at
``rank + R * worker``. Ranks come first (rather than ``rank * W + worker``)
so that a rank's share does not depend on ``num_workers``: ``len()`` is the
same whatever the DataLoader does, the drop remainder is below ``R`` items
(not ``R * W``), and, under ``drop``/``pad``, worker ``w`` of every rank
yields the same number of items, hence the same number of batches.

NOTE (shard mode layout): shard position ``j`` of the epoch's shard order
goes to rank ``j % R``. A rank's shards, concatenated in order, form its
*rank stream*. With known shard sizes the policy fixes one length ``L`` for
every rank (``drop``: the shortest rank stream, ``pad``: the longest, the
short ones wrapping to their own head) and worker ``w`` reads the contiguous
block ``[w * L // W, (w + 1) * L // W)`` of it -- equal counts per worker on
every rank, so equal batches too, and a shard is split between two workers
only at a block boundary. Without sizes (``uneven`` only) worker ``w`` reads
the rank's shards ``w, w + W, ...`` whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._core.partition import Tail
from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words

__all__ = [
    "Consumer",
    "Segment",
    "item_count",
    "item_positions",
    "rank_totals",
    "shard_count",
    "shard_order",
    "shard_segments",
]


#: ``(shard index, start, stop)``: items ``[start, stop)`` of one shard;
#: ``stop`` is ``None`` for "to the end" (sizes unknown).
Segment = tuple[int, int, int | None]


@dataclass(frozen=True)
class Consumer:
    """One reader of the stream: a DataLoader worker of a rank."""

    rank: int
    world_size: int
    worker: int = 0
    num_workers: int = 1

    @property
    def offset(self) -> int:
        """First stream position this consumer takes in item mode."""
        return self.rank + self.world_size * self.worker

    @property
    def stride(self) -> int:
        """Distance between the stream positions it takes in item mode."""
        return self.world_size * self.num_workers


# ---------------------------------------------------------------- item mode
def item_count(total: int, world_size: int, rank: int, policy: Tail) -> int:
    """Items rank ``rank`` yields in item mode from a stream of ``total`` items.

    Example:
        >>> [item_count(10, 4, r, "drop") for r in range(4)]
        [2, 2, 2, 2]
        >>> [item_count(10, 4, r, "pad") for r in range(4)]
        [3, 3, 3, 3]
        >>> [item_count(10, 4, r, "uneven") for r in range(4)]
        [3, 3, 2, 2]
    """
    if policy == "drop":
        return total // world_size
    if policy == "pad":
        return -(-total // world_size)
    return len(range(rank, total, world_size))


def item_positions(total: int, consumer: Consumer, policy: Tail) -> range:
    """Stream positions one consumer takes, in order (item mode, known total).

    Under ``pad`` the positions past ``total`` stand for ``p % total`` (the
    head of the stream, as ``Partition``'s ``pad``).

    Example:
        >>> list(item_positions(10, Consumer(1, 4, 0, 2), "pad"))
        [1, 9]
        >>> list(item_positions(10, Consumer(1, 4, 1, 2), "pad"))
        [5]
    """
    rows = item_count(total, consumer.world_size, 0, policy)
    limit = total if policy == "uneven" else rows * consumer.world_size
    return range(consumer.offset, limit, consumer.stride)


# --------------------------------------------------------------- shard mode
def shard_order(num_shards: int, seed: int, epoch: int, shuffle: bool) -> NDArray[np.int64]:
    """The epoch's shard order: a keyed permutation of ``[0, num_shards)``.

    Example:
        >>> shard_order(4, 0, 0, shuffle=False).tolist()
        [0, 1, 2, 3]
        >>> sorted(shard_order(5, 7, 1, shuffle=True).tolist())
        [0, 1, 2, 3, 4]
    """
    positions = np.arange(num_shards, dtype=np.int64)
    if not shuffle:
        return positions
    keys = stream_words(StreamId.ITERABLE, epoch, seed, ROUNDS)
    return KeyedPermutation(num_shards, keys).take(positions)


def rank_totals(order: NDArray[np.int64], sizes: NDArray[np.int64], world_size: int) -> list[int]:
    """Length of each rank's stream: the summed sizes of its shards."""
    return [int(sizes[order[r::world_size]].sum()) for r in range(world_size)]


def shard_count(totals: Sequence[int], rank: int, policy: Tail) -> int:
    """Items rank ``rank`` yields in shard mode, given every rank's stream length."""
    if policy == "drop":
        return min(totals)
    if policy == "pad":
        return max(totals)
    return totals[rank]


def _block(length: int, consumer: Consumer) -> tuple[int, int]:
    w, n = consumer.worker, consumer.num_workers
    return w * length // n, (w + 1) * length // n


def shard_segments(
    order: NDArray[np.int64],
    sizes: NDArray[np.int64] | None,
    consumer: Consumer,
    policy: Tail,
) -> list[Segment]:
    """What one consumer reads in shard mode, in order.

    Args:
        order: (num_shards,) the epoch's shard order (``shard_order``).
        sizes: (num_shards,) items per shard, or ``None`` when unknown
            (then only ``uneven`` is possible and shards are read whole).
        consumer: The reader.
        policy: ``"drop"``, ``"pad"`` or ``"uneven"``.

    Returns:
        Segments ``(shard, start, stop)``; their lengths add up to the
        consumer's block of the rank stream.

    Example:
        >>> order = np.arange(4, dtype=np.int64)
        >>> sizes = np.array([3, 1, 2, 2], dtype=np.int64)  # rank 0: 3+2, rank 1: 1+2
        >>> shard_segments(order, sizes, Consumer(0, 2), "drop")
        [(0, 0, 3)]
        >>> shard_segments(order, sizes, Consumer(1, 2), "pad")
        [(1, 0, 1), (3, 0, 2), (1, 0, 1), (3, 0, 1)]
    """
    mine = order[consumer.rank :: consumer.world_size]  # the rank's shards, in order
    if sizes is None:
        return [(int(s), 0, None) for s in mine[consumer.worker :: consumer.num_workers]]
    own = sizes[mine]
    total = int(own.sum())
    length = shard_count(rank_totals(order, sizes, consumer.world_size), consumer.rank, policy)
    begin, end = _block(length, consumer)
    starts = np.concatenate(([0], np.cumsum(own)))  # (len(mine) + 1,) rank-stream offsets
    segments: list[Segment] = []
    while begin < end:  # each turn covers one pass over the rank stream (pad wraps)
        lap, low = divmod(begin, total)
        high = min(total, low + (end - begin))
        first = int(np.searchsorted(starts, low, side="right")) - 1
        for i in range(first, len(mine)):
            a, b = max(low, int(starts[i])), min(high, int(starts[i + 1]))
            if a >= high:
                break
            if a < b:
                segments.append((int(mine[i]), a - int(starts[i]), b - int(starts[i])))
        begin = lap * total + high
    return segments
