"""Where each DataLoader worker of a rank stands, computed from what the loop took.

NOTE (a rank's state for a plain DataLoader): with a plain ``DataLoader``
the workers read copies of the dataset and the main process sees only the
batches, so the state is computed from what the loop took
(``fairshard.loader_state_dict``): the loader yields the workers' batches
round robin, skipping exhausted workers, so ``k`` batches fix how many each
worker gave. That needs each worker's item count, hence a stream of known
length (``total=``, ``shard_sizes=``). Such a state holds every worker's
position (``extra`` = ``{"num_workers": W, "workers": [[consumed, segment,
offset], ...]}``, ``steps`` their sum); loaded in the main process, each
worker's copy picks its own entry at ``iter()``.

Also here: whether a saved state read its epoch to the end, so that a state
loaded lazily by ``StatefulDataLoader`` after the user's ``set_epoch(e + 1)``
does not drag the stream back to epoch ``e``.
"""

from __future__ import annotations

from typing import Any, Protocol

from .._errors import ConfigError, StateDictError
from .layout import Consumer, Policy, Segment, item_positions
from .state import Position

__all__ = [
    "batches_per_worker",
    "complete",
    "consumer_count",
    "loader_positions",
    "position_in",
    "worker_position",
]


class Stream(Protocol):
    """What these functions read of a ``ShardedIterable``."""

    @property
    def mode(self) -> str: ...

    @property
    def policy(self) -> Policy: ...

    @property
    def total(self) -> int | None: ...

    @property
    def sizes(self) -> Any: ...

    @property
    def epoch(self) -> int: ...

    @property
    def rank(self) -> int: ...

    @property
    def num_replicas(self) -> int: ...

    def _segments(self, epoch: int, consumer: Consumer) -> list[Segment]: ...


def batches_per_worker(batches_each: list[int], taken: int) -> list[int]:
    """How many batches each worker gave when the loader yielded ``taken`` batches.

    A ``DataLoader`` over an ``IterableDataset`` yields its workers' batches
    round robin, skipping workers that are exhausted.

    Example:
        >>> batches_per_worker([3, 1, 3], 5)
        [2, 1, 2]
    """
    given = [0] * len(batches_each)
    left = taken
    while left > 0:
        active = [w for w, n in enumerate(batches_each) if n > given[w]]
        if not active:
            break
        rounds = min(left // len(active), min(batches_each[w] - given[w] for w in active))
        if rounds == 0:
            for w in active[:left]:
                given[w] += 1
            break
        for w in active:
            given[w] += rounds
        left -= rounds * len(active)
    return given


def position_in(segments: list[tuple[int, int, int | None]], consumed: int) -> tuple[int, int]:
    """``(segment, offset)`` after the first ``consumed`` items of ``segments`` (known sizes)."""
    for index, (_, start, stop) in enumerate(segments):
        length = 0 if stop is None else stop - start
        if consumed < length:
            return index, consumed
        consumed -= length
    return len(segments), 0


def worker_position(positions: list[Position], consumer: Consumer) -> Position:
    """``consumer``'s entry of a whole rank's state.

    Raises:
        StateDictError: the state was saved with another ``num_workers``.
    """
    if consumer.num_workers != len(positions):
        raise StateDictError(
            f"state_dict was saved with DataLoader num_workers={len(positions)} but this "
            f"DataLoader has num_workers={consumer.num_workers}; a stream resumes only "
            "with the same num_workers"
        )
    return positions[consumer.worker]


def consumer_count(stream: Stream, consumer: Consumer) -> int:
    """Items ``consumer`` reads in the stream's current epoch; needs known lengths.

    Raises:
        ConfigError: the stream's length is unknown.
    """
    if stream.mode == "item" and stream.total is not None:
        return len(item_positions(stream.total, consumer, stream.policy))
    if stream.mode == "shard" and stream.sizes is not None:
        segments = stream._segments(stream.epoch, consumer)
        return sum(int(stop) - start for _, start, stop in segments if stop is not None)
    what = "total=" if stream.mode == "item" else "shard_sizes="
    raise ConfigError(
        f"loader_state_dict needs the stream's length to know what each DataLoader "
        f"worker read; pass {what} to ShardedIterable, or checkpoint with torchdata's "
        "StatefulDataLoader (which asks each worker), or use num_workers=0 and "
        "dataset.state_dict()"
    )


def loader_positions(
    stream: Stream,
    batches: int,
    batch_size: int,
    drop_last: bool,
    num_workers: int,
    base: list[int] | None,
) -> list[Position]:
    """Each worker's position once the loop took ``batches`` batches of the current pass.

    Args:
        stream: The dataset in the main process.
        batches: Batches the loop took since the pass started.
        batch_size: The loader's batch size (1 when it does not batch).
        drop_last: The loader's ``drop_last`` (a worker's last short batch).
        num_workers: The loader's ``num_workers`` (0: the main process reads).
        base: Items each worker had consumed when the pass started (a resume
            point), or ``None`` for the start of the epoch.

    Raises:
        ConfigError: unknown lengths, or more batches than the pass holds.
    """
    count = max(1, num_workers)
    consumers = [Consumer(stream.rank, stream.num_replicas, w, count) for w in range(count)]
    if num_workers == 0:
        consumers = [Consumer(stream.rank, stream.num_replicas)]
    start = [0] * count if base is None else base
    left = [consumer_count(stream, c) - b for c, b in zip(consumers, start, strict=True)]
    whole = [n // batch_size if drop_last else -(-n // batch_size) for n in left]
    if batches > sum(whole):
        raise ConfigError(
            f"batches={batches} but the current pass holds {sum(whole)} batches of "
            f"batch_size={batch_size} on this rank; count the batches the loop took since "
            "the `for` over this pass started"
        )
    given = batches_per_worker(whole, batches)
    positions = []
    for consumer, b, g, n in zip(consumers, start, given, left, strict=True):
        consumed = b + min(g * batch_size, n)
        segment, offset = 0, 0
        if stream.mode == "shard":
            segment, offset = position_in(stream._segments(stream.epoch, consumer), consumed)
        positions.append(Position(stream.epoch, consumed, segment, offset))
    return positions


def complete(stream: Stream, at: Position | tuple[int, list[Position]], consumer: Consumer) -> bool:
    """Whether a saved state read its epoch to the end (``False`` when that is unknown)."""
    if not isinstance(at, Position):
        count = len(at[1])
        return all(
            complete(stream, p, Consumer(stream.rank, stream.num_replicas, w, count))
            for w, p in enumerate(at[1])
        )
    if stream.mode == "shard":
        return at.segment >= len(stream._segments(at.epoch, consumer))
    if stream.total is not None:
        return at.consumed >= len(item_positions(stream.total, consumer, stream.policy))
    return False
