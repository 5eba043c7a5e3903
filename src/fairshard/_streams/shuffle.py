"""A deterministic shuffle buffer for ``ShardedIterable`` that resumes exactly.

NOTE (windows, not a sliding buffer): a consumer's stream is cut into
consecutive windows of ``size`` items; each window is read whole into the
buffer and yielded in a keyed permutation of its positions
(``StreamId.SHUFFLE_BUFFER``, sub-stream ``(window << 24) + consumer offset``),
so the order is a pure function of ``(seed, epoch)``, the consumer and the
data -- never of timing or process randomness. The memory is the same as a
sliding buffer of ``size``; an item moves at most ``size - 1`` places (a
sliding buffer has an unbounded, geometric tail), and the shard order
(``shuffle_shards``) does the long-range mixing. In exchange the state is
three ints: the items yielded ``t``, and where the current window began in
the underlying stream (shard segment and offset). Resuming reads the
current window again -- at most ``size`` items, from its start -- and
skips the ``t % size`` already yielded: nothing is lost or repeated, unlike
a sliding buffer, whose contents are lost at every resume.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._random.permutation import ROUNDS, KeyedPermutation
from .._random.seeding import StreamId, stream_words
from .layout import Consumer
from .state import ConsumerProgress

__all__ = ["shuffled", "window_start"]


def window_start(consumed: int, size: int) -> int:
    """First item of the window that holds item ``consumed``."""
    return consumed // size * size


def window_order(size: int, seed: int, epoch: int, consumer: Consumer, window: int) -> list[int]:
    """The order in which a window of ``size`` items is yielded (a permutation of its positions).

    Example:
        >>> sorted(window_order(5, 0, 0, Consumer(0, 1), 3))
        [0, 1, 2, 3, 4]
    """
    keys = stream_words(
        StreamId.SHUFFLE_BUFFER, epoch, seed, ROUNDS, sub_id=(window << 24) + consumer.offset
    )
    order: list[int] = KeyedPermutation(size, keys).take(np.arange(size, dtype=np.int64)).tolist()
    return order


def shuffled(
    items: Iterator[Any],
    inner: ConsumerProgress,
    front: ConsumerProgress,
    size: int,
    seed: int,
) -> Iterator[Any]:
    """Yield ``items`` through the windowed buffer.

    Args:
        items: The consumer's underlying items, read from the start of the
            window that holds item ``front.consumed`` (``inner`` tracks them).
        inner: The underlying reader's progress.
        front: What the consumer yielded: ``consumed`` counts the shuffled
            items handed out, ``segment``/``offset`` name where the current
            window began (what a state saves).
        size: Items per window.
        seed: The root seed.
    """
    skip = front.consumed - window_start(front.consumed, size)
    window = front.consumed // size
    while True:
        buffer = list(itertools.islice(items, size))
        if not buffer:
            return
        after = (inner.segment, inner.offset)  # where the next window starts
        order = window_order(len(buffer), seed, front.epoch, front.consumer, window)
        last = len(buffer) - 1
        for index in range(skip, len(buffer)):
            front.consumed += 1
            if index == last:  # a state taken now resumes at the next window
                front.segment, front.offset = after
            yield buffer[order[index]]
        skip = 0
        window += 1
        if len(buffer) < size:
            return
