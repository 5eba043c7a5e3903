"""Elastic resume of ``ShardedIterable``: finish an epoch on another world size or worker count.

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

Requires known lengths and positions that can be read again: item mode over
a sized, indexable source (or ``total=`` and an indexable source), shard
mode with ``shard_sizes``. Anything else is refused with the fix.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.partition import Tail
from .._errors import ConfigError, StateDictError
from .layout import Consumer, Segment, rank_totals, shard_count, shard_segments
from .read import read_shards
from .resume import batches_per_worker, position_in
from .source import random_access
from .state import ConsumerProgress, Position

__all__ = ["Elastic", "Level", "Ranges", "StateDictError", "elastic_resume"]

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


# ------------------------------------------------------------ load and save
def _fix(stream: Stream, saved_workers: int) -> str | None:
    """Why ``stream`` cannot resume on another shape (the fix), or ``None`` when it can.

    NOTE (uneven): under ``tail="uneven"`` the workers of different ranks
    hold different counts, so the batches a DataLoader hands out round robin
    fall differently on each rank and rank 0's per-worker counts are not
    every rank's. A state of one consumer per rank (``num_workers=0``, the
    loop stopping every rank together, as ``stop_together`` does) is exact.
    """
    if stream.tail == "uneven" and saved_workers > 1:
        return (
            f"under tail='uneven' a state saved with num_workers={saved_workers} does not "
            "say what the other ranks' workers took; save with num_workers=0 (and "
            "fairshard.stop_together), or resume on the same shape"
        )
    if getattr(stream, "shuffle_buffer", 0):
        return (
            "a shuffle buffer has yielded part of its window in an order of this shape; "
            "resume on the same shape, or save at the end of an epoch"
        )
    if stream.mode == "item":
        if stream.total is not None and random_access(stream.source):
            return None
        return (
            "give a sized, indexable source (a list, an array, a map-style dataset) so that "
            "what is left can be read by position"
        )
    if stream.sizes is not None:
        return None
    return "pass shard_sizes= so that what is left can be counted"


def _ints(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _levels(extra: dict[str, Any]) -> list[Level]:
    rows = extra.get("levels", [])
    ok = isinstance(rows, list) and all(
        isinstance(r, list)
        and len(r) == 3
        and _ints(r[0])
        and _ints(r[1])
        and r[0] >= 1
        and r[1] >= 1
        and isinstance(r[2], list)
        and len(r[2]) == r[1]
        and all(_ints(c) for c in r[2])
        for r in rows
    )
    if not ok:
        raise StateDictError(
            "state_dict['extra']['levels'] must be a list of [world_size, num_workers, "
            f"[consumed per worker]], got {rows!r}"
        )
    return [(int(a), int(b), tuple(int(c) for c in cs)) for a, b, cs in rows]


def _plain_levels(levels: Sequence[Level]) -> list[list[Any]]:
    return [[a, b, list(cs)] for a, b, cs in levels]


def elastic_resume(
    stream: Stream, state_dict: dict[str, Any], here: Consumer
) -> Elastic | tuple[int, list[Position]] | None:
    """The elastic resume a state asks for, or ``None`` when the plain resume applies.

    The plain resume applies to a state of the same shape without earlier
    levels. Another rank's state of a whole rank on the same world size is
    this rank's too (under ``drop``/``pad`` every rank's worker ``w`` holds
    as many items): it comes back as ``(epoch, positions)`` for the plain
    resume, with this rank's shard segments. A state saved on another
    world size or worker count becomes an elastic resume when the stream
    can have one.

    Raises:
        StateDictError: foreign, tampered or mismatched state; or a change
            of shape that this stream cannot resume exactly (the message
            names the fix).
    """
    state = S.unseal(state_dict, stream.kind)
    S.check_config(state[S.K_CONFIG], stream._config())
    if state[S.K_SEED] != stream.seed:
        return None  # the plain path names the seed
    extra = state[S.K_EXTRA]
    if not isinstance(extra, dict):
        return None
    levels = _levels(extra)
    epoch, world, rank = state[S.K_EPOCH], state[S.K_WORLD], state[S.K_RANK]
    body = {k: v for k, v in extra.items() if k != "levels"}
    if "workers" in extra:
        rows, count = body.get("workers"), body.get("num_workers")
        if not (
            isinstance(rows, list)
            and isinstance(count, int)
            and not isinstance(count, bool)
            and len(rows) == count >= 1
            and all(isinstance(r, list) and len(r) == 3 and all(map(_ints, r)) for r in rows)
        ):
            return None  # the plain path names what is wrong
        if not levels and (rank, world) == (here.rank, here.world_size):
            return None
        if not levels and world == here.world_size and stream.tail != "uneven":
            return _rebased(stream, epoch, rows, here, getattr(stream, "shuffle_buffer", 0))
        if (rank, world) != (here.rank, here.world_size):
            _check_fix(stream, f"rank {rank} of {world}", here, count)
        positions = [Position(epoch, c, s, o) for c, s, o in rows]
        saved: Level = (world, count, tuple(p.consumed for p in positions))
        return Elastic(epoch, levels, saved, positions)
    keys = ("worker", "num_workers", "segment", "offset")
    if sorted(body) != sorted(keys) or not all(_ints(body[k]) for k in keys):
        return None
    saved_consumer = Consumer(rank, world, body["worker"], body["num_workers"])
    if not levels and saved_consumer == here:
        return None
    if saved_consumer.num_workers > 1 and (
        (world, saved_consumer.num_workers) != (here.world_size, here.num_workers)
        or rank != here.rank
    ):
        raise StateDictError(
            f"state_dict was saved by {saved_consumer} but this process is {here}: a single "
            "DataLoader worker's state holds that worker's position only, not its rank's; "
            "to resume on another num_replicas, rank or num_workers, save the whole rank "
            "with fairshard.loader_state_dict(loader, batches=k) and load that into the "
            "dataset before building the DataLoader"
        )
    if not levels:
        _check_fix(stream, str(saved_consumer), here, saved_consumer.num_workers)
    at = Position(epoch, state[S.K_STEPS], body["segment"], body["offset"])
    if saved_consumer.num_workers > 1:  # continuing a level inside a worker
        positions = [
            at if w == here.worker else Position(epoch, 0, 0, 0) for w in range(here.num_workers)
        ]
        saved = (world, here.num_workers, tuple(p.consumed for p in positions))
        return Elastic(epoch, levels, saved, positions)
    return Elastic(epoch, levels, (world, 1, (at.consumed,)), [at])


def _rebased(
    stream: Stream, epoch: int, rows: list[list[int]], here: Consumer, buffer: int
) -> tuple[int, list[Position]]:
    positions = []
    for w, (consumed, _, _) in enumerate(rows):
        segment = offset = 0
        if stream.mode == "shard":
            consumer = Consumer(here.rank, here.world_size, w, len(rows))
            start = consumed // buffer * buffer if buffer else consumed  # the window's start
            segment, offset = position_in(stream._segments(epoch, consumer), start)
        positions.append(Position(epoch, consumed, segment, offset))
    return epoch, positions


def _check_fix(stream: Stream, saved: str, here: Consumer, saved_workers: int) -> None:
    fix = _fix(stream, saved_workers)
    if fix is not None:
        raise StateDictError(
            f"state_dict was saved by {saved} but this process is {here}; a stream resumes "
            "only with the same num_replicas, rank and DataLoader num_workers unless it can "
            f"be read by position: {fix}"
        )


def elastic_from_workers(epoch: int, world: int, positions: list[Position]) -> Elastic:
    """A whole rank's state of the same world size read with another ``num_workers``."""
    return Elastic(
        epoch, [], (world, len(positions), tuple(p.consumed for p in positions)), positions
    )


def check_workers_fix(stream: Stream, saved_workers: int, here: Consumer) -> None:
    """Refuse another ``num_workers`` where the stream cannot resume elastically.

    Raises:
        StateDictError: naming the fix.
    """
    fix = _fix(stream, saved_workers)
    if fix is not None:
        raise StateDictError(
            f"state_dict was saved with DataLoader num_workers={saved_workers} but this "
            f"DataLoader has num_workers={here.num_workers}; a stream resumes only with the "
            f"same num_workers unless it can be read by position: {fix}"
        )


# ------------------------------------------------------------------ reading
def read_view(stream: Stream, elastic: Elastic, progress: ConsumerProgress) -> Iterator[Any]:
    """This consumer's part of what is left of an elastically resumed epoch."""
    c = progress.consumer
    view = View(stream, elastic.epoch, elastic.history(c.world_size, c.num_workers), c.world_size)
    if stream.mode == "shard":
        segments = view.segments(c)
        progress.segment, progress.offset = position_in(segments, progress.consumed)
        return read_shards(segments, stream._open, stream.sizes, progress)
    return itertools.chain.from_iterable(_item_chunks(stream.source, view, progress))


def _item_chunks(source: Any, view: View, progress: ConsumerProgress) -> Iterator[Iterator[Any]]:
    getitem: Callable[[int], Any] = source.__getitem__
    for chunk in view.item_positions(progress.consumer, progress.consumed):
        positions = iter(chunk.tolist())
        progress.track(positions, len(chunk))
        yield map(getitem, positions)


def view_rank_count(stream: Stream, elastic: Elastic) -> int:
    """Items this rank reads of what is left (the next pass on the current world size)."""
    view = View(stream, elastic.epoch, [*elastic.levels, elastic.saved], stream.num_replicas)
    return view.rank_count(stream.rank)


def complete(stream: Stream, elastic: Elastic) -> bool:
    """Whether the saved state read its epoch to the end."""
    return len(View(stream, elastic.epoch, [*elastic.levels, elastic.saved], 1).left) == 0


def seal(
    stream: Stream, elastic: Elastic, progress: ConsumerProgress | None, here: Consumer
) -> dict[str, Any]:
    """The state of an elastically resumed epoch: one consumer's, or the loaded one's."""
    config = stream._config()
    if progress is None:  # no pass yet: what was loaded
        positions = elastic.positions or [
            Position(elastic.epoch, c, 0, 0) for c in elastic.saved[2]
        ]
        return _seal_rank(
            stream, config, elastic.epoch, elastic.saved[0], elastic.levels, positions
        )
    c = progress.consumer
    levels = elastic.history(c.world_size, c.num_workers)
    return S.seal(
        {
            S.K_KIND: stream.kind,
            S.K_CONFIG: config,
            S.K_SEED: stream.seed,
            S.K_EPOCH: elastic.epoch,
            S.K_START: 0,
            S.K_STEPS: progress.consumed,
            S.K_WORLD: c.world_size,
            S.K_RANK: c.rank,
            S.K_EXTRA: {
                "worker": c.worker,
                "num_workers": c.num_workers,
                "segment": progress.segment,
                "offset": progress.offset,
                "levels": _plain_levels(levels),
            },
        }
    )


def _seal_rank(
    stream: Stream,
    config: dict[str, Any],
    epoch: int,
    world: int,
    levels: Sequence[Level],
    positions: Sequence[Position],
) -> dict[str, Any]:
    return S.seal(
        {
            S.K_KIND: stream.kind,
            S.K_CONFIG: config,
            S.K_SEED: stream.seed,
            S.K_EPOCH: epoch,
            S.K_START: 0,
            S.K_STEPS: sum(p.consumed for p in positions),
            S.K_WORLD: world,
            S.K_RANK: stream.rank if world == stream.num_replicas else 0,
            S.K_EXTRA: {
                "num_workers": len(positions),
                "workers": [[p.consumed, p.segment, p.offset] for p in positions],
                "levels": _plain_levels(levels),
            },
        }
    )


def loader_state(
    stream: Stream,
    elastic: Elastic,
    batches: int,
    batch_size: int,
    drop_last: bool,
    num_workers: int,
) -> dict[str, Any]:
    """The rank's state after the loop took ``batches`` batches of an elastic pass.

    Raises:
        ConfigError: more batches than the pass holds.
    """
    count = max(1, num_workers)
    levels = elastic.history(stream.num_replicas, count)
    view = View(stream, elastic.epoch, levels, stream.num_replicas)
    consumers = [Consumer(stream.rank, stream.num_replicas, w, count) for w in range(count)]
    start = [elastic.start(c).consumed for c in consumers]
    left = [view.count(c) - b for c, b in zip(consumers, start, strict=True)]
    whole = [n // batch_size if drop_last else -(-n // batch_size) for n in left]
    if batches > sum(whole):
        raise ConfigError(
            f"batches={batches} but the current pass holds {sum(whole)} batches of "
            f"batch_size={batch_size} on this rank; count the batches the loop took since "
            "the `for` over this pass started"
        )
    given = batches_per_worker(whole, batches)
    positions = []
    for c, b, g, n in zip(consumers, start, given, left, strict=True):
        consumed = b + min(g * batch_size, n)
        segment, offset = 0, 0
        if stream.mode == "shard":
            segment, offset = position_in(view.segments(c), consumed)
        positions.append(Position(elastic.epoch, consumed, segment, offset))
    config = stream._config()
    if num_workers == 0:
        progress = ConsumerProgress(elastic.epoch, consumers[0], positions[0].consumed, 0, 0)
        progress.segment, progress.offset = positions[0].segment, positions[0].offset
        return seal(stream, elastic, progress, consumers[0])
    return _seal_rank(stream, config, elastic.epoch, stream.num_replicas, levels, positions)
