"""Reading one consumer's part of a stream: by index, by streaming, or shard by shard.

The readers are pure generators over the source: ``ShardedIterable`` decides
who the consumer is and where it starts (``_iterable_layout`` says which
positions are its own); these walk the data, advance the consumer's
``Progress`` item by item (so ``state_dict()`` is exact at any point), and
check as they read that the data matches the lengths promised at
construction.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError
from .layout import Policy, Segment, item_positions
from .source import random_access
from .state import Progress

__all__ = ["advance", "read_indexed", "read_shards", "read_streamed"]


def advance(it: Iterator[Any], n: int) -> int:
    """Consume up to ``n`` items of ``it`` at C speed; return how many there were."""
    counter = itertools.count()
    deque(zip(itertools.islice(it, n), counter, strict=False), maxlen=0)
    return next(counter)


def read_indexed(source: Any, total: int, policy: Policy, progress: Progress) -> Iterator[Any]:
    """Item mode over a sized, indexable source: read this consumer's positions by index."""
    positions = item_positions(total, progress.consumer, policy)
    for p in positions[progress.consumed :]:
        item = source[p % total]
        progress.consumed += 1
        yield item


def read_streamed(
    source: Iterable[Any], total: int | None, policy: Policy, progress: Progress
) -> Iterator[Any]:
    """Item mode over a stream: read it row by row, keep this consumer's column.

    A row holds one item per rank; consumer ``(rank, worker)`` takes column
    ``rank`` of every ``num_workers``-th row from row ``worker``, discarding
    the rows in between (and, on resume, those already read) at C speed.
    Under ``pad`` row 0 is always read: it supplies the repeated items.

    Raises:
        ConfigError: the stream is empty, disagrees with ``total``, or is too
            short for ``drop`` to give any rank an item.
    """
    c = progress.consumer
    width = c.world_size
    it = iter(source)
    head: list[Any] = []  # row 0, kept for padding
    row = 0  # index of the next row the stream delivers
    target = c.worker + c.num_workers * progress.consumed  # next row this consumer takes
    seen = 0
    while True:
        if row < target and not (row == 0 and policy == "pad"):
            want = (target - row) * width
            got = advance(it, want)
            seen += got
            if got < want:
                break
            row = target
            continue
        items = list(itertools.islice(it, width))
        seen += len(items)
        if row == 0:
            head = items
        if not items:
            break
        if row == target:
            target += c.num_workers
            if c.rank < len(items):
                if len(items) == width or policy != "drop":
                    progress.consumed += 1
                    yield items[c.rank]
            elif policy == "pad":
                progress.consumed += 1
                yield head[(row * width + c.rank) % seen]
        if len(items) < width:
            break
        row += 1
    _check_stream_end(seen, total, policy, width)


def _check_stream_end(seen: int, total: int | None, policy: Policy, num_replicas: int) -> None:
    if seen == 0:
        raise ConfigError(
            "source yielded no items: a distributed job cannot train on an empty stream; "
            "check the data path or filter"
        )
    if total is not None and seen != total:
        raise ConfigError(
            f"source yielded {seen} items but total={total}; pass the stream's true "
            "length (len() promised total-based counts)"
        )
    if policy == "drop" and seen < num_replicas:
        raise ConfigError(
            f"tail='drop' left every rank empty: the stream has {seen} items for "
            f"num_replicas={num_replicas}; use tail='pad' or 'uneven'"
        )


def read_shards(
    segments: list[Segment],
    open_shard: Callable[[int], Any],
    sizes: NDArray[np.int64] | None,
    progress: Progress,
) -> Iterator[Any]:
    """Shard mode: read this consumer's segments, resuming at its segment and offset.

    ``open_shard(shard)`` returns the shard's data; an indexable one is read
    by index (and its length checked against ``sizes``), any other is
    iterated, fast-forwarding past the items before the segment.

    Raises:
        ConfigError: a shard's length disagrees with ``sizes``.
    """
    for index in range(progress.segment, len(segments)):
        shard, start, stop = segments[index]
        skip = progress.offset if index == progress.segment else 0
        progress.segment, progress.offset = index, skip
        data = open_shard(shard)
        if random_access(data):
            _check_size(sizes, shard, len(data))
            end = len(data) if stop is None else stop
            for i in range(start + skip, end):
                item = data[i]
                progress.consumed += 1
                progress.offset += 1
                yield item
            continue
        it = iter(data)
        if advance(it, start + skip) < start + skip:  # fast-forward: not indexable
            _short_shard(sizes, shard, stop)
            continue
        for item in itertools.islice(it, None if stop is None else stop - start - skip):
            progress.consumed += 1
            progress.offset += 1
            yield item
        if stop is not None and progress.offset < stop - start:
            _short_shard(sizes, shard, stop)
    progress.segment, progress.offset = len(segments), 0


def _check_size(sizes: NDArray[np.int64] | None, shard: int, length: int) -> None:
    if sizes is not None and length != int(sizes[shard]):
        raise ConfigError(
            f"shard {shard} has {length} items but shard_sizes[{shard}]="
            f"{int(sizes[shard])}; pass the true sizes"
        )


def _short_shard(sizes: NDArray[np.int64] | None, shard: int, stop: int | None) -> None:
    if stop is not None:
        raise ConfigError(
            f"shard {shard} ended before item {stop} but shard_sizes[{shard}]="
            f"{int(sizes[shard]) if sizes is not None else None}; pass the "
            "true sizes"
        )
