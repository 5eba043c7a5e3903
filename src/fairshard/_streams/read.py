"""Reading one consumer's part of a stream: by index, by streaming, or shard by shard.

The readers are pure generators over the source: ``ShardedIterable`` decides
who the consumer is and where it starts (``_iterable_layout`` says which
positions are its own); these walk the data, advance the consumer's
``ConsumerProgress`` item by item (so ``state_dict()`` is exact at any point), and
check as they read that the data matches the lengths promised at
construction.
"""

from __future__ import annotations

import itertools
import operator
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.partition import Tail
from .._errors import ConfigError
from .layout import Segment, item_positions
from .source import random_access
from .state import ConsumerProgress

__all__ = ["advance", "read_indexed", "read_shards", "read_streamed"]

_BLOCK = 1 << 16  # stream items per block when the length is unknown
_SKIP_MAX = 32  # largest stride at which a list is stepped through rather than indexed


def advance(it: Iterator[Any], n: int) -> int:
    """Consume up to ``n`` items of ``it`` at C speed; return how many there were."""
    counter = itertools.count()
    deque(zip(itertools.islice(it, n), counter, strict=False), maxlen=0)
    return next(counter)


def _split(total: int, consumer: Any, policy: Tail, consumed: int) -> tuple[range, range]:
    """This consumer's remaining positions: those inside the stream, those past it (pad)."""
    positions = item_positions(total, consumer, policy)[consumed:]
    inside = len(range(positions.start, min(positions.stop, total), positions.step))
    return positions[:inside], positions[inside:]


def read_indexed(
    source: Any, total: int, policy: Tail, progress: ConsumerProgress
) -> Iterator[Any]:
    """Item mode over a sized, indexable source: read this consumer's positions by index.

    NOTE (speed): the items come from ``map(source.__getitem__, positions)``
    with the positions a ``range`` iterator the progress tracks (no Python
    code per item) -- or, for a list or tuple and a small stride, from an
    ``islice`` of its own iterator, like the plain recipe; the at most one
    padded position past the end follows.
    """
    inside, past = _split(total, progress.consumer, policy, progress.consumed)
    items: Iterator[Any]
    if type(source) in (list, tuple) and inside.step <= _SKIP_MAX:
        # Small strides: step through the list's own iterator (the recipe's
        # islice), counted from its length hint.
        live = iter(source)
        progress.track(live, len(source), inside.start, inside.step)
        items = itertools.islice(live, inside.start, inside.stop, inside.step)
    else:
        positions = iter(inside)
        progress.track(positions, len(inside))
        items = map(source.__getitem__, positions)
    if not past:
        return items
    return itertools.chain(items, _read_past(source, total, past, progress))


def _read_past(source: Any, total: int, past: range, progress: ConsumerProgress) -> Iterator[Any]:
    for p in past:  # pad: positions past the end repeat the head
        item = source[p % total]
        progress.consumed += 1
        yield item


def read_streamed(
    source: Iterable[Any], total: int | None, policy: Tail, progress: ConsumerProgress
) -> Iterator[Any]:
    """Item mode over a stream: this consumer's every ``stride``-th item.

    With a known ``total`` the items are an ``itertools.islice`` of the
    stream -- the plain recipe, at C speed -- whose progress is tracked
    without Python code per item; then the rest of the stream is counted
    to check ``total``. Under ``pad`` the head of the stream (one item per
    rank) is kept first: positions past the end repeat it. Without a total
    the stream is read row by row (``_read_rows``).

    Raises:
        ConfigError: the stream is empty, disagrees with ``total``, or is too
            short for ``drop`` to give any rank an item.
    """
    if total is None:
        return _read_rows(source, policy, progress)
    return _read_islice(source, total, policy, progress)


def _read_islice(
    source: Iterable[Any], total: int, policy: Tail, progress: ConsumerProgress
) -> Iterator[Any]:
    # A chain of C iterators: Python code runs once per piece, not per item.
    return itertools.chain.from_iterable(_islice_pieces(source, total, policy, progress))


def _islice_pieces(
    source: Iterable[Any], total: int, policy: Tail, progress: ConsumerProgress
) -> Iterator[Iterable[Any]]:
    inside, past = _split(total, progress.consumer, policy, progress.consumed)
    it = iter(source)
    head = list(itertools.islice(it, min(total, progress.consumer.world_size))) if past else []
    pulled = len(head)
    early = len(range(inside.start, min(inside.stop, pulled), inside.step))
    if early:  # positions inside the head already read (at most one)
        yield _counted([head[p] for p in inside[:early]], progress)
    rest = inside[early:]
    if rest:
        counter = itertools.repeat(True, len(rest))  # selectors with a length hint
        progress.track(counter, len(rest))
        window = itertools.islice(it, rest.start - pulled, rest[-1] + 1 - pulled, rest.step)
        yield itertools.compress(window, counter)
        if operator.length_hint(counter):  # the stream ended before total
            seen = advance(iter(source), sys.maxsize)  # count it again for the message
            _check_stream_end(seen, total, policy, 0)
            raise ConfigError(
                f"source ended after fewer than total={total} items in this pass (it yields "
                f"{seen} when read again); a stream must yield the same items every pass"
            )
        pulled = rest[-1] + 1
    _check_stream_end(pulled + advance(it, sys.maxsize), total, policy, 0)
    if past:
        yield _counted([head[p % total] for p in past], progress)


def _counted(items: list[Any], progress: ConsumerProgress) -> Iterator[Any]:
    for item in items:
        progress.consumed += 1
        yield item


def _read_rows(source: Iterable[Any], policy: Tail, progress: ConsumerProgress) -> Iterator[Any]:
    """Item mode over a stream of unknown length, read in blocks of whole strides.

    A block holds a multiple of ``stride`` items, so this consumer's items
    are ``block[offset::stride]`` (list slicing, C speed); only the last,
    short block needs the tail rule: under ``drop`` an item of the last,
    incomplete row is left out, under ``pad`` the positions past the end
    repeat the head of the stream (one item per rank, kept from the start).
    """
    return itertools.chain.from_iterable(_row_blocks(source, policy, progress))


def _row_blocks(
    source: Iterable[Any], policy: Tail, progress: ConsumerProgress
) -> Iterator[Iterator[Any]]:
    c = progress.consumer
    width, stride, offset = c.world_size, c.stride, c.offset
    group = max(1, _BLOCK // stride) * stride  # items per block
    it = iter(source)
    head = list(itertools.islice(it, width)) if policy == "pad" else []
    base = progress.consumed * stride  # first stream position not yet passed (resume)
    carry = head if base == 0 else []
    seen = len(head)
    if base > seen:
        seen += advance(it, base - seen)
    while seen >= base:
        block = carry + list(itertools.islice(it, group - len(carry)))
        carry = []
        seen = base + len(block)
        mine = block[offset::stride]
        if len(block) == group:
            yield _tracked(mine, progress)
            base += group
            continue
        if policy == "drop":  # only items of complete rows of `width`
            mine = mine[: len(range(base + offset, seen // width * width, stride))]
        elif policy == "pad" and seen:
            rows_end = -(-seen // width) * width
            mine += [head[p % seen] for p in range(base + offset, rows_end, stride) if p >= seen]
        yield _tracked(mine, progress)
        break
    _check_stream_end(seen, None, policy, width)


def _tracked(items: list[Any], progress: ConsumerProgress) -> Iterator[Any]:
    live = iter(items)
    progress.track(live, len(items))
    return live


def _check_stream_end(seen: int, total: int | None, policy: Tail, num_replicas: int) -> None:
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
    progress: ConsumerProgress,
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
