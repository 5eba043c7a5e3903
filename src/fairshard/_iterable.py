"""``ShardedIterable``: one stream split over ranks x DataLoader workers.

An ``IterableDataset`` cannot take a sampler, so the split has to happen
inside ``__iter__``. This wrapper does it once, correctly: every consumer
(a DataLoader worker of a rank) reads a disjoint part, the parts cover the
stream, every rank yields the same number of items under ``drop``/``pad``,
and ``len()`` exists exactly when it is known. See ``_iterable_layout`` for
who reads what, and docs/streams-and-splits.md for the user guide.

NOTE (state): ``torchdata``'s ``StatefulDataLoader`` calls ``state_dict()``
on the dataset copy inside each worker and hands each worker its own state
back on resume. The state is the library's sealed sampler state; ``steps``
counts the items this consumer yielded in the epoch, and ``extra`` names the
worker and, in shard mode, the segment and offset reached, so resuming skips
whole segments without opening them.

NOTE (when the epoch is fixed): as for samplers, the epoch is bound when
``iter()`` is called. DataLoader workers receive a copy of the dataset when
``iter(loader)`` starts them, so ``set_epoch`` must come before it; with
``persistent_workers=True`` the workers keep the copy of the first epoch and
never see a later ``set_epoch`` (shard mode would repeat its order).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Literal, TypeVar

import numpy as np
import torch.utils.data as tud
from numpy.typing import NDArray

from . import _state as S
from ._context import resolve_world
from ._errors import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    StateDictError,
    check_choice,
    check_int,
    warn,
)
from ._iterable_layout import (
    POLICIES,
    Consumer,
    Policy,
    Segment,
    item_count,
    item_positions,
    rank_totals,
    shard_count,
    shard_order,
    shard_segments,
)
from ._seeding import resolve_seed

__all__ = ["ShardedIterable"]

T = TypeVar("T")
Mode = Literal["item", "shard"]


def _random_access(obj: object) -> bool:
    """True for lists, tuples, arrays and map-style datasets: indexable and sized."""
    if isinstance(obj, tud.IterableDataset | str | bytes | dict):
        return False
    return hasattr(obj, "__getitem__") and hasattr(obj, "__len__")


def _advance(it: Iterator[Any], n: int) -> int:
    """Consume up to ``n`` items of ``it`` at C speed; return how many there were."""
    counter = itertools.count()
    deque(zip(itertools.islice(it, n), counter, strict=False), maxlen=0)
    return next(counter)


class _Progress:
    """How far one consumer got in one epoch."""

    __slots__ = ("consumed", "consumer", "epoch", "offset", "segment")

    def __init__(self, epoch: int, consumer: Consumer, consumed: int, segment: int, offset: int):
        self.epoch, self.consumer, self.consumed = epoch, consumer, consumed
        self.segment, self.offset = segment, offset


class ShardedIterable(tud.IterableDataset[T], Generic[T]):
    """Split a stream over ranks x DataLoader workers: no duplicates, no gaps.

    Args:
        source: Item mode: a re-iterable of items (each ``iter(source)`` starts
            the stream again), or a sized, indexable source (list, array,
            map-style dataset) that is then read by index. Shard mode: a
            sequence of shards; each is opened with ``open_shard`` (default:
            iterated as it is).
        mode: ``"item"``: consumer ``(rank, worker)`` takes every
            ``R * W``-th item from ``rank + R * worker``. ``"shard"``: whole
            shards go to ranks, in an order shuffled per epoch.
        total: Item mode: number of items in the stream, when known and the
            source is not sized. Gives ``len()`` and is checked at the end of
            every pass.
        shard_sizes: Shard mode: number of items of each shard. Needed for
            ``drop``/``pad`` and for ``len()``; checked as shards are read.
        open_shard: Shard mode: ``open_shard(shard)`` returns the shard's
            items (an iterable, or an indexable sequence to allow skipping by
            index). Use it for file paths.
        policy: Equal counts per rank: ``"drop"`` the tail so every rank gets
            the shortest share, ``"pad"`` every rank to the longest share by
            repeating items (item mode: from the head of the stream; shard
            mode: from the head of the rank's own stream), or ``"uneven"``:
            every item exactly once, ranks may differ (evaluation, or training
            wrapped in ``fairshard.stop_together``).
        shuffle_shards: Shard mode: permute the shard order every epoch.
        seed: Root seed of the shard order; ``None`` agrees on one.
        num_replicas: World size; detected when ``None``.
        rank: This process's rank; detected when ``None``.

    Raises:
        ConfigError: invalid values (the message names the fix).
        ConfigTypeError: a one-shot iterator as source, or wrong types.
    """

    kind = "ShardedIterable"

    def __init__(
        self,
        source: Iterable[T] | Sequence[Any],
        *,
        mode: Mode = "item",
        total: int | None = None,
        shard_sizes: Sequence[int] | None = None,
        open_shard: Callable[[Any], Iterable[T]] | None = None,
        policy: Policy = "drop",
        shuffle_shards: bool = True,
        seed: int | None = 0,
        num_replicas: int | None = None,
        rank: int | None = None,
    ) -> None:
        world = resolve_world(num_replicas, rank)
        self.num_replicas: int = world.world_size
        self.rank: int = world.rank
        self.seed: int = resolve_seed(seed)
        self.mode: Mode = check_choice("mode", mode, ("item", "shard"))  # type: ignore[assignment]
        self.policy: Policy = check_choice("policy", policy, POLICIES)  # type: ignore[assignment]
        if not isinstance(shuffle_shards, bool):
            raise ConfigTypeError(f"shuffle_shards must be a bool, got {shuffle_shards!r}")
        self.shuffle_shards = shuffle_shards
        self.source = source
        self.open_shard = open_shard
        self.epoch = 0
        self._progress: _Progress | None = None
        self._resume: tuple[int, int, int, int] | None = None  # epoch, consumed, segment, offset
        # (epoch, consumer) of the last complete pass in this process
        self._completed: tuple[int, Consumer] | None = None
        self._warned_repeat = False
        if not hasattr(source, "__iter__") and not _random_access(source):
            raise ConfigTypeError(
                f"source must be iterable, got {type(source).__name__}; pass a list, an "
                "IterableDataset or an object whose __iter__ opens the stream"
            )
        if isinstance(source, Iterator):
            raise ConfigTypeError(
                f"source is a one-shot iterator ({type(source).__name__}): every worker and "
                "every epoch must start the stream again; pass a re-iterable (a list, an "
                "IterableDataset, or an object whose __iter__ opens the stream)"
            )
        self.sizes: NDArray[np.int64] | None = None
        self.total: int | None = None
        if self.mode == "item":
            self._init_items(total, shard_sizes, open_shard)
        else:
            self._init_shards(total, shard_sizes)

    # ------------------------------------------------------------ validation
    def _init_items(self, total: Any, shard_sizes: Any, open_shard: Any) -> None:
        if shard_sizes is not None or open_shard is not None:
            raise ConfigError(
                "shard_sizes and open_shard apply to mode='shard' only; pass mode='shard' "
                "with a list of shards, or total= for the length of an item stream"
            )
        if _random_access(self.source):
            n = len(self.source)  # type: ignore[arg-type]
            if total is not None and check_int("total", total, minimum=0) != n:
                raise ConfigError(
                    f"total={total} but the source has len()={n}; omit total for a sized source"
                )
            total = n
        if total is not None:
            self.total = check_int("total", total, minimum=0, fix="count the stream's items")
            self._check_length(self.total)

    def _init_shards(self, total: Any, shard_sizes: Any) -> None:
        if total is not None:
            raise ConfigError(
                "total applies to mode='item'; in shard mode pass shard_sizes (items per shard)"
            )
        if not isinstance(self.source, Sequence) or isinstance(self.source, str | bytes):
            raise ConfigTypeError(
                f"in shard mode source must be a sequence of shards (a list of shards or of "
                f"file paths), got {type(self.source).__name__}"
            )
        if len(self.source) == 0:
            raise ConfigError("source has no shards; pass at least one shard")
        if shard_sizes is not None:
            sizes = [check_int("shard_sizes[i]", s, minimum=0) for s in shard_sizes]
            if len(sizes) != len(self.source):
                raise ConfigError(
                    f"shard_sizes has {len(sizes)} entries for {len(self.source)} shards; "
                    "give one size per shard, in the same order"
                )
            self.sizes = np.asarray(sizes, dtype=np.int64)
            self._check_length(int(self.sizes.sum()))
            if self.policy == "pad" and len(self.source) < self.num_replicas:
                raise ConfigError(
                    f"policy='pad' needs at least one shard per rank, got {len(self.source)} "
                    f"shards for num_replicas={self.num_replicas}; split the data into more "
                    "shards or use mode='item'"
                )
        elif self.policy != "uneven":
            raise ConfigError(
                f"policy={self.policy!r} in shard mode needs shard_sizes (items per shard) to "
                "give every rank the same count; pass shard_sizes, or policy='uneven' and wrap "
                "the training loop's DataLoader in fairshard.stop_together(loader)"
            )
        if len(self.source) < self.num_replicas:
            warn(
                f"ShardedIterable: {len(self.source)} shards for num_replicas="
                f"{self.num_replicas}: some ranks get no shard; use more, smaller shards",
                DegenerateConfigWarning,
            )

    def _check_length(self, total: int) -> None:
        if total == 0:
            raise ConfigError(
                "the source has no items (total=0); check the data path or filter, a "
                "distributed job cannot train on an empty stream"
            )
        if self.mode == "item" and self.policy == "drop" and total < self.num_replicas:
            raise ConfigError(
                f"policy='drop' leaves every rank empty: {total} items for num_replicas="
                f"{self.num_replicas}; use policy='pad' or 'uneven'"
            )

    # ----------------------------------------------------------------- sizes
    def _consumer(self) -> Consumer:
        info = tud.get_worker_info()
        if info is None:
            return Consumer(self.rank, self.num_replicas)
        return Consumer(self.rank, self.num_replicas, info.id, info.num_workers)

    def _order(self, epoch: int) -> NDArray[np.int64]:
        return shard_order(len(self.source), self.seed, epoch, self.shuffle_shards)  # type: ignore[arg-type]

    def _rank_count(self, epoch: int) -> int | None:
        if self.mode == "item":
            if self.total is None:
                return None
            return item_count(self.total, self.num_replicas, self.rank, self.policy)
        if self.sizes is None:
            return None
        totals = rank_totals(self._order(epoch), self.sizes, self.num_replicas)
        return shard_count(totals, self.rank, self.policy)

    def __len__(self) -> int:
        """Exact number of items this rank yields per epoch, over all its workers.

        Raises:
            TypeError: the length is not known (an item stream without
                ``total``, or shards without ``shard_sizes``): never a guess.
        """
        count = self._rank_count(self.epoch)
        if count is None:
            what = "total=" if self.mode == "item" else "shard_sizes="
            raise TypeError(
                f"ShardedIterable over a stream of unknown length has no len(); pass {what} "
                "to get an exact one"
            )
        return count

    # ---------------------------------------------------------------- epochs
    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next pass (the shard order); call it before ``iter()``."""
        self.epoch = check_int("epoch", epoch, minimum=0)
        self._completed = None

    def _epoch_for_pass(self, consumer: Consumer) -> int:
        if (
            self._completed == (self.epoch, consumer)
            and self.mode == "shard"
            and self.shuffle_shards
            and not self._warned_repeat
        ):
            self._warned_repeat = True
            warn(
                f"ShardedIterable: starting another pass over epoch {self.epoch}, which was "
                "already completed, so the shard order repeats. Call dataset.set_epoch(epoch) "
                "before each epoch.",
                DegenerateConfigWarning,
            )
        return self.epoch

    # ------------------------------------------------------------- iteration
    def __iter__(self) -> Iterator[T]:
        consumer = self._consumer()
        epoch = self._epoch_for_pass(consumer)
        consumed = segment = offset = 0
        if self._resume is not None and self._resume[0] == epoch:
            _, consumed, segment, offset = self._resume
        self._resume = None
        progress = _Progress(epoch, consumer, consumed, segment, offset)
        self._progress = progress
        if self.mode == "shard":
            return self._shards(progress)
        if self.total is not None and _random_access(self.source):
            return self._indexed(progress)
        return self._streamed(progress)

    def _finish(self, progress: _Progress) -> None:
        self._completed = (progress.epoch, progress.consumer)

    def _indexed(self, progress: _Progress) -> Iterator[T]:
        total = self.total
        assert total is not None
        source: Any = self.source
        positions = item_positions(total, progress.consumer, self.policy)
        for p in positions[progress.consumed :]:
            item = source[p % total]
            progress.consumed += 1
            yield item
        self._finish(progress)

    def _streamed(self, progress: _Progress) -> Iterator[T]:
        c = progress.consumer
        width, policy = c.world_size, self.policy
        it = iter(self.source)
        head: list[Any] = []  # row 0, kept for padding
        row = 0  # index of the next row the stream delivers
        target = c.worker + c.num_workers * progress.consumed  # next row this consumer takes
        seen = 0
        while True:
            if row < target and not (row == 0 and policy == "pad"):
                want = (target - row) * width
                got = _advance(it, want)
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
        self._check_stream_end(seen, it)
        self._finish(progress)

    def _check_stream_end(self, seen: int, it: Iterator[Any]) -> None:
        if seen == 0:
            raise ConfigError(
                "source yielded no items: a distributed job cannot train on an empty stream; "
                "check the data path or filter"
            )
        if self.total is not None and seen != self.total:
            raise ConfigError(
                f"source yielded {seen} items but total={self.total}; pass the stream's true "
                "length (len() promised total-based counts)"
            )
        if self.policy == "drop" and seen < self.num_replicas:
            raise ConfigError(
                f"policy='drop' left every rank empty: the stream has {seen} items for "
                f"num_replicas={self.num_replicas}; use policy='pad' or 'uneven'"
            )

    def _segments(self, epoch: int, consumer: Consumer) -> list[Segment]:
        if self.policy == "pad" and self.sizes is not None:
            totals = rank_totals(self._order(epoch), self.sizes, consumer.world_size)
            if min(totals) == 0:
                empty = [r for r, t in enumerate(totals) if t == 0]
                raise ConfigError(
                    f"policy='pad' cannot pad ranks {empty}: their shards hold no items in "
                    f"epoch {epoch}; use policy='drop' or more, non-empty shards"
                )
        return shard_segments(self._order(epoch), self.sizes, consumer, self.policy)

    def _open(self, shard: int) -> Any:
        raw = self.source[shard]  # type: ignore[index]
        return raw if self.open_shard is None else self.open_shard(raw)

    def _shards(self, progress: _Progress) -> Iterator[T]:
        segments = self._segments(progress.epoch, progress.consumer)
        for index in range(progress.segment, len(segments)):
            shard, start, stop = segments[index]
            skip = progress.offset if index == progress.segment else 0
            progress.segment, progress.offset = index, skip
            data = self._open(shard)
            if _random_access(data):
                self._check_size(shard, len(data))
                end = len(data) if stop is None else stop
                for i in range(start + skip, end):
                    item = data[i]
                    progress.consumed += 1
                    progress.offset += 1
                    yield item
                continue
            it = iter(data)
            if _advance(it, start + skip) < start + skip:  # fast-forward: not indexable
                self._short_shard(shard, stop)
                continue
            for item in itertools.islice(it, None if stop is None else stop - start - skip):
                progress.consumed += 1
                progress.offset += 1
                yield item
            if stop is not None and progress.offset < stop - start:
                self._short_shard(shard, stop)
        progress.segment, progress.offset = len(segments), 0
        self._finish(progress)

    def _check_size(self, shard: int, length: int) -> None:
        if self.sizes is not None and length != int(self.sizes[shard]):
            raise ConfigError(
                f"shard {shard} has {length} items but shard_sizes[{shard}]="
                f"{int(self.sizes[shard])}; pass the true sizes"
            )

    def _short_shard(self, shard: int, stop: int | None) -> None:
        if stop is not None:
            raise ConfigError(
                f"shard {shard} ended before item {stop} but shard_sizes[{shard}]="
                f"{int(self.sizes[shard]) if self.sizes is not None else None}; pass the "
                "true sizes"
            )

    # ----------------------------------------------------------------- state
    def _config(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "policy": self.policy,
            "total": self.total,
            "num_shards": len(self.source) if self.mode == "shard" else None,  # type: ignore[arg-type]
            "shard_sizes": None if self.sizes is None else S.digest(self.sizes),
            "shuffle_shards": self.shuffle_shards,
        }

    def state_dict(self) -> dict[str, Any]:
        """This consumer's place in the stream, as the library's sealed state.

        Called by ``StatefulDataLoader`` inside each worker; it is cheap.
        """
        consumer = self._consumer()
        progress = self._progress
        if self._resume is not None and self._resume[0] == self.epoch:
            epoch, consumed, segment, offset = self._resume
        elif progress is not None and progress.epoch == self.epoch:
            epoch, consumed = progress.epoch, progress.consumed
            segment, offset, consumer = progress.segment, progress.offset, progress.consumer
        else:
            epoch, consumed, segment, offset = self.epoch, 0, 0, 0
        return S.seal(
            {
                S.K_KIND: self.kind,
                S.K_CONFIG: self._config(),
                S.K_SEED: self.seed,
                S.K_EPOCH: epoch,
                S.K_START: 0,
                S.K_STEPS: consumed,
                S.K_WORLD: self.num_replicas,
                S.K_RANK: self.rank,
                S.K_EXTRA: {
                    "worker": consumer.worker,
                    "num_workers": consumer.num_workers,
                    "segment": segment,
                    "offset": offset,
                },
            }
        )

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Resume: the next ``iter()`` continues the saved epoch after what was consumed.

        Raises:
            StateDictError: foreign or tampered state, another config or seed,
                or another consumer (rank, world size, worker or worker count).
        """
        state = S.unseal(state_dict, self.kind)
        S.check_config(state[S.K_CONFIG], self._config())
        if state[S.K_SEED] != self.seed:
            raise StateDictError(
                f"state_dict was saved with seed={state[S.K_SEED]} but this dataset has "
                f"seed={self.seed}; build it with seed={state[S.K_SEED]} to resume"
            )
        extra = state[S.K_EXTRA]
        keys = ("worker", "num_workers", "segment", "offset")
        if sorted(extra) != sorted(keys) or not all(
            isinstance(extra[k], int) and extra[k] >= 0 for k in keys
        ):
            raise StateDictError(f"state_dict['extra'] must hold the ints {keys}, got {extra!r}")
        here = self._consumer()
        saved = Consumer(
            state[S.K_RANK], state[S.K_WORLD], extra["worker"], extra["num_workers"]
        )
        if saved != here:
            raise StateDictError(
                f"state_dict was saved by {saved} but this process is {here}; a stream resumes "
                "only with the same num_replicas, rank and DataLoader num_workers"
            )
        self.epoch = state[S.K_EPOCH]
        self._resume = (state[S.K_EPOCH], state[S.K_STEPS], extra["segment"], extra["offset"])
        self._progress = None
        self._completed = None
