"""What is left of an elastically resumed epoch of ``ShardedIterable``, and who reads it.

NOTE (what is left, and who reads it): a saved run is a *level*: its world
size ``R``, its DataLoader worker count ``W`` and how many items each
worker had consumed (rank 0's counts; every rank takes the same number of
batches, and under ``drop``/``pad`` worker ``w`` of every rank holds the
same number of items, so rank 0's counts are every rank's, capped by a
rank's own share under ``uneven``). From a level the consumed set of the
epoch follows exactly -- item mode: whole rows of ``R`` stream positions
(row ``j`` is read by worker ``j % W`` of every rank); shard mode: a prefix
of every consumer's contiguous block -- and what is left is a sorted list
of ranges of *base positions*: item mode: stream positions; shard mode:
positions in the concatenation of the first run's rank streams (rank 0's
stream, then rank 1's, ..., each truncated or wrapped to its tail length).

The ranges are then read as one virtual stream of ``M`` items by the new
``(R', W')``: item mode with the same strided layout (consumer ``(r, w)``
takes virtual positions ``r + R' * w + k * R' * W'``), shard mode with a
blocked one (rank ``r`` takes a contiguous share, worker ``w`` a contiguous
block of it). The tail rule applies again to ``M``: ``drop`` leaves out
fewer than ``R'`` items, ``pad`` repeats the head of the virtual stream;
nothing else is lost or repeated. A level that is saved again is appended,
so a job may change shape several times within one epoch; each level is
three small ints plus one count per worker. The next epoch starts on the
new shape from scratch.

The elastic resume itself (a state that asks for it, reading what is left,
saving it again) is ``_streams.elastic``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._core.partition import Tail
from .layout import Consumer, Segment, rank_totals, shard_count, shard_segments
from .state import Position

__all__ = [
    "Elastic",
    "Level",
    "Ranges",
    "Stream",
    "View",
    "consumed_spans",
    "consumer_spans",
    "rank_lengths",
]

_CHUNK = 1 << 15  # virtual positions mapped at once when reading item mode

#: ``(world_size, num_workers, consumed per worker)`` of one saved run of an epoch.
Level = tuple[int, int, tuple[int, ...]]


class Stream(Protocol):
    """What elastic resume reads of a ``ShardedIterable``."""

    @property
    def mode(self) -> str: ...

    @property
    def tail(self) -> Tail: ...

    @property
    def total(self) -> int | None: ...

    @property
    def sizes(self) -> NDArray[np.int64] | None: ...

    @property
    def source(self) -> Any: ...

    @property
    def seed(self) -> int: ...

    @property
    def rank(self) -> int: ...

    @property
    def num_replicas(self) -> int: ...

    @property
    def kind(self) -> str: ...

    def _order(self, epoch: int) -> NDArray[np.int64]: ...

    def _open(self, shard: int) -> Any: ...

    def _segments(self, epoch: int, consumer: Consumer) -> list[Segment]: ...

    def _config(self) -> dict[str, Any]: ...


class Ranges:
    """Sorted, disjoint half-open ranges of base positions read as one virtual sequence.

    Example:
        >>> r = Ranges(np.array([2, 10]), np.array([4, 13]))
        >>> len(r), r.take(np.arange(5)).tolist()
        (5, [2, 3, 10, 11, 12])
        >>> r.select([(1, 4)]).starts.tolist(), r.select([(1, 4)]).stops.tolist()
        ([3, 10], [4, 12])
    """

    __slots__ = ("cum", "starts", "stops")

    def __init__(self, starts: NDArray[np.int64], stops: NDArray[np.int64]) -> None:
        keep = stops > starts
        self.starts = np.asarray(starts, dtype=np.int64)[keep]
        self.stops = np.asarray(stops, dtype=np.int64)[keep]
        self.cum = np.concatenate(([0], np.cumsum(self.stops - self.starts))).astype(np.int64)

    def __len__(self) -> int:
        return int(self.cum[-1])

    def take(self, virtual: NDArray[np.int64]) -> NDArray[np.int64]:
        """Base positions at ``virtual`` positions (each in ``[0, len(self))``)."""
        index = np.searchsorted(self.cum, virtual, side="right") - 1
        return self.starts[index] + (virtual - self.cum[index])

    def select(self, spans: Sequence[tuple[int, int]]) -> Ranges:
        """The base ranges of the sorted, disjoint virtual ``spans`` ``[a, b)``."""
        starts: list[int] = []
        stops: list[int] = []
        for a, b in spans:
            if a >= b:
                continue
            first = int(np.searchsorted(self.cum, a, side="right")) - 1
            last = int(np.searchsorted(self.cum, b - 1, side="right")) - 1
            for i in range(first, last + 1):
                lo, hi = max(a, int(self.cum[i])), min(b, int(self.cum[i + 1]))
                begin = int(self.starts[i]) + lo - int(self.cum[i])
                if starts and stops[-1] == begin:
                    stops[-1] = begin + hi - lo  # merge touching ranges
                else:
                    starts.append(begin)
                    stops.append(begin + hi - lo)
        return Ranges(np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64))


def _complement(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """``[0, length)`` minus the union of ``spans`` (any order, may overlap), sorted."""
    out: list[tuple[int, int]] = []
    at = 0
    for a, b in sorted(spans):
        a, b = min(max(0, a), length), min(length, b)  # pad: spans may start past the end
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < length:
        out.append((at, length))
    return out


# ------------------------------------------------------------------- layouts
def rank_lengths(mode: str, tail: Tail, length: int, world_size: int) -> list[int]:
    """Items each rank reads of a virtual stream of ``length`` items (both modes)."""
    if tail == "drop":
        return [length // world_size] * world_size
    if tail == "pad":
        return [-(-length // world_size)] * world_size
    q, extra = divmod(length, world_size)
    if mode == "item":
        return [len(range(r, length, world_size)) for r in range(world_size)]
    return [q + (1 if r < extra else 0) for r in range(world_size)]


def consumer_spans(
    mode: str, tail: Tail, lengths: Sequence[int], consumer: Consumer
) -> range | tuple[int, int]:
    """Virtual positions of ``consumer`` (may pass the end under ``pad``: they wrap).

    Item mode: a strided ``range`` over rows of ``world_size``; shard mode:
    the consumer's contiguous block ``(begin, end)`` of its rank's share.
    """
    r, w, n = consumer.rank, consumer.worker, consumer.num_workers
    if mode == "item":
        rows = lengths[0] if tail != "uneven" else -(-sum(lengths) // consumer.world_size)
        limit = rows * consumer.world_size if tail != "uneven" else sum(lengths)
        return range(consumer.offset, limit, consumer.stride)
    start = int(sum(lengths[:r]))
    own = lengths[r]
    return start + w * own // n, start + (w + 1) * own // n


def _count(span: range | tuple[int, int]) -> int:
    return len(span) if isinstance(span, range) else span[1] - span[0]


def consumed_spans(
    mode: str, tail: Tail, lengths: Sequence[int], level: Level, length: int
) -> list[tuple[int, int]]:
    """Virtual ranges a level consumed (every rank like rank 0, capped by its share)."""
    world, workers, counts = level
    if mode == "shard":
        spans = []
        for r in range(world):
            for w in range(workers):
                begin, end = consumer_spans(mode, tail, lengths, Consumer(r, world, w, workers))
                spans.append((begin, min(begin + counts[w], end, length)))
        return spans
    low, high = min(counts), max(counts)
    spans = [(0, min(low * workers * world, length))]
    for k in range(low, high):  # the frontier: rows of workers that gave more
        for w in range(workers):
            if counts[w] > k:
                row = k * workers + w
                spans.append((row * world, min((row + 1) * world, length)))
    return spans


# ----------------------------------------------------------------- the plan
@dataclass
class Elastic:
    """An epoch resumed after a change of shape: its saved levels and the saved position.

    ``levels`` are the finished runs; ``saved`` is the last one (its counts
    are where the state was taken) and ``positions`` are its consumers'
    positions -- continued when the reader has the same shape, else
    ``saved`` becomes one more finished level.
    """

    epoch: int
    levels: list[Level]
    saved: Level
    positions: list[Position] | None  # per worker of ``saved`` (continue on the same shape)

    def history(self, world_size: int, num_workers: int) -> list[Level]:
        """The finished levels before a pass on ``(world_size, num_workers)``."""
        if self.positions is not None and (world_size, num_workers) == self.saved[:2]:
            return list(self.levels)
        return [*self.levels, self.saved]

    def start(self, consumer: Consumer) -> Position:
        """Where ``consumer`` starts its pass: the saved position, or the level's start."""
        if self.positions is not None and (consumer.world_size, consumer.num_workers) == tuple(
            self.saved[:2]
        ):
            return self.positions[consumer.worker]
        return Position(self.epoch, 0, 0, 0)


class View:
    """What is left of an epoch after ``levels``, as read by one world size.

    Args:
        stream: The dataset.
        epoch: The epoch.
        levels: The finished levels, oldest first.
        world_size: The world size reading what is left.
    """

    def __init__(self, stream: Stream, epoch: int, levels: Sequence[Level], world_size: int):
        self.stream, self.epoch, self.world_size = stream, epoch, world_size
        self.mode, self.tail = stream.mode, stream.tail
        if self.mode == "item":
            assert stream.total is not None
            base = int(stream.total)
            self._segments: list[Segment] = []
            first = rank_lengths("item", self.tail, base, levels[0][0]) if levels else []
        else:
            first0 = levels[0][0] if levels else world_size
            order = stream._order(epoch)
            assert stream.sizes is not None
            totals = rank_totals(order, stream.sizes, first0)
            first = [shard_count(totals, r, self.tail) for r in range(first0)]
            self._segments = [
                seg
                for r in range(first0)
                for seg in shard_segments(order, stream.sizes, Consumer(r, first0), self.tail)
            ]
            base = sum(first)
        seg_len = np.asarray([(b or 0) - a for _, a, b in self._segments], dtype=np.int64)
        self._seg_base = np.concatenate(([0], np.cumsum(seg_len))).astype(np.int64)
        left = Ranges(np.asarray([0], dtype=np.int64), np.asarray([base], dtype=np.int64))
        lengths = first
        for index, level in enumerate(levels):
            if index:
                lengths = rank_lengths(self.mode, self.tail, len(left), level[0])
            spans = consumed_spans(self.mode, self.tail, lengths, level, len(left))
            left = left.select(_complement(spans, len(left)))
        self.left = left
        self.lengths = rank_lengths(self.mode, self.tail, len(left), world_size)
        if not levels and self.mode == "shard":
            self.lengths = first

    def count(self, consumer: Consumer) -> int:
        """Items ``consumer`` reads of what is left."""
        if len(self.left) == 0:
            return 0
        return _count(consumer_spans(self.mode, self.tail, self.lengths, consumer))

    def rank_count(self, rank: int) -> int:
        """Items rank ``rank`` reads of what is left, over all its workers."""
        return 0 if len(self.left) == 0 else self.lengths[rank]

    def segments(self, consumer: Consumer) -> list[Segment]:
        """Shard mode: the consumer's part as ``(shard, start, stop)`` segments."""
        begin, end = consumer_spans(self.mode, self.tail, self.lengths, consumer)
        size = len(self.left)
        spans: list[tuple[int, int]] = []
        while begin < end and size:  # pad: positions past the end wrap to the head
            lap, low = divmod(begin, size)
            high = min(size, low + end - begin)
            spans.append((low, high))
            begin = lap * size + high
        out: list[Segment] = []
        for a, b in spans:
            chosen = self.left.select([(a, b)])
            for lo, hi in zip(chosen.starts.tolist(), chosen.stops.tolist(), strict=True):
                out.extend(self._base_segments(lo, hi))
        return out

    def _base_segments(self, lo: int, hi: int) -> list[Segment]:
        first = int(np.searchsorted(self._seg_base, lo, side="right")) - 1
        out: list[Segment] = []
        for i in range(first, len(self._segments)):
            a, b = max(lo, int(self._seg_base[i])), min(hi, int(self._seg_base[i + 1]))
            if a >= hi:
                break
            if a < b:
                shard, start, _ = self._segments[i]
                offset = start - int(self._seg_base[i])
                out.append((shard, a + offset, b + offset))
        return out

    def item_positions(self, consumer: Consumer, consumed: int) -> Iterator[NDArray[np.int64]]:
        """Item mode: the consumer's stream positions after ``consumed``, in chunks."""
        span = consumer_spans(self.mode, self.tail, self.lengths, consumer)
        assert isinstance(span, range)
        rest = span[consumed:]
        size = len(self.left)
        for begin in range(0, len(rest), _CHUNK):
            part = rest[begin : begin + _CHUNK]
            virtual = np.arange(part.start, part.stop, part.step, dtype=np.int64) % size
            yield self.left.take(virtual)
