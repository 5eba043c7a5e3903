"""``ShardedIterable``: one stream split over ranks x DataLoader workers.

An ``IterableDataset`` cannot take a sampler, so the split has to happen
inside ``__iter__``. This wrapper does it once, correctly: every consumer
(a DataLoader worker of a rank) reads a disjoint part, the parts cover the
stream, every rank yields the same number of items under ``drop``/``pad``,
and ``len()`` exists exactly when it is known. See ``_streams.layout`` for
who reads what, and docs/streams-and-splits.md for the user guide.

The class binds the parts together: ``_streams.source`` checks what it is
given, ``_streams.read`` walks the data, ``_streams.iterable_state`` (the
state half of the class) saves and loads the resume state with
``_streams.state``, which seals and checks it (its NOTE explains what the
state holds).

NOTE (when the epoch is fixed): as for samplers, the epoch is bound when
``iter()`` is called. DataLoader workers receive a copy of the dataset when
``iter(loader)`` starts them, so ``set_epoch`` must come before it; with
``persistent_workers=True`` the workers keep the copy of the first epoch and
never see a later ``set_epoch`` (shard mode would repeat its order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Literal, TypeVar

import numpy as np
import torch.utils.data as tud
from numpy.typing import NDArray

from .._core.partition import TAILS, Tail
from .._core.registry import Registered
from .._distributed.world import check_not_local_rank, resolve_seed, resolve_world
from .._errors import (
    ConfigError,
    ConfigTypeError,
    check_choice,
    check_int,
    warn,
)
from . import elastic as E
from .iterable_state import IterableState
from .layout import (
    Consumer,
    Segment,
    item_count,
    rank_totals,
    shard_count,
    shard_order,
    shard_segments,
)
from .read import read_indexed, read_shards, read_streamed
from .shuffle import shuffled, window_start
from .source import check_source, item_total, random_access, shard_sizes_array
from .state import ConsumerProgress, Position

__all__ = ["ShardedIterable"]

T = TypeVar("T")
Mode = Literal["item", "shard"]
MODES: tuple[Mode, ...] = ("item", "shard")


class ShardedIterable(Registered, IterableState, tud.IterableDataset[T], Generic[T]):
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
        tail: Equal counts per rank: ``"drop"`` the tail so every rank gets
            the shortest share, ``"pad"`` every rank to the longest share by
            repeating items (item mode: from the head of the stream; shard
            mode: from the head of the rank's own stream), or ``"uneven"``:
            every item exactly once, ranks may differ (evaluation, or training
            wrapped in ``fairshard.stop_together``).
        shuffle_shards: Shard mode: permute the shard order every epoch.
        shuffle_buffer: Items per window of each consumer's deterministic
            shuffle buffer (0: off). Every window of that many items is
            yielded in an order keyed by ``(seed, epoch)``; a state resumes
            exactly (see ``_streams.shuffle``), on the same world size and
            ``num_workers``.
        policy: Deprecated name of ``tail`` (it is the tail policy every
            other family calls ``tail``); warns and is removed in 1.0.
        seed: Root seed of the shard order; ``None`` agrees on one.
        num_replicas: World size; detected when ``None``.
        rank: This process's rank; detected when ``None``.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``):
            the world is its size and this process's rank in it.

    Raises:
        ConfigError: invalid values (the message names the fix).
        ConfigTypeError: a one-shot iterator as source, or wrong types.
    """

    kind = "ShardedIterable"
    _repeats = "the shard order"
    _role = "dataset"

    def __init__(
        self,
        source: Iterable[T] | Sequence[Any],
        *,
        mode: Mode = "item",
        total: int | None = None,
        shard_sizes: Sequence[int] | None = None,
        open_shard: Callable[[Any], Iterable[T]] | None = None,
        tail: Tail = "drop",
        shuffle_shards: bool = True,
        shuffle_buffer: int = 0,
        policy: Tail | None = None,
        seed: int | None = 0,
        num_replicas: int | None = None,
        rank: int | None = None,
        group: Any = None,
    ) -> None:
        world = resolve_world(num_replicas, rank, group)
        self.num_replicas: int = world.world_size
        self.rank: int = world.rank
        self._group = world.group  # the data-parallel group; never in the state
        self.seed: int = resolve_seed(seed, world)
        self.mode: Mode = check_choice("mode", mode, MODES)
        if policy is not None:
            warn(
                f"ShardedIterable(policy={policy!r}) is deprecated; write tail={policy!r} "
                "(the same tail policy every other fairshard family calls tail)",
                DeprecationWarning,
            )
            tail = policy
        self.tail: Tail = check_choice("tail", tail, TAILS)
        if not isinstance(shuffle_shards, bool):
            raise ConfigTypeError(f"shuffle_shards must be a bool, got {shuffle_shards!r}")
        self.shuffle_shards = shuffle_shards
        self.shuffle_buffer = check_int("shuffle_buffer", shuffle_buffer, minimum=0)
        self.source = source
        self.open_shard = open_shard
        self._init_epochs()
        self._progress: ConsumerProgress | None = None
        self._resume: Position | None = None
        # A whole rank's state (plain DataLoader): (epoch, one position per worker)
        self._resume_workers: tuple[int, list[Position]] | None = None
        # (epoch, consumer) of the last complete pass in this process
        self._completed: tuple[int, Consumer] | None = None
        self._warned_repeat = False
        # An epoch resumed on another world size or num_workers (see _streams.elastic)
        self._elastic: E.Elastic | None = None
        self._resume_by: Consumer | None = None  # who saved ``_resume`` (its consumer)
        # Where the current pass started, when that was a resume point (see _abandoned)
        self._origin: Position | None = None
        check_source(source)
        self.sizes: NDArray[np.int64] | None = None
        self.total: int | None = None
        if self.mode == "item":
            self.total = item_total(
                source, total, shard_sizes, open_shard, self.tail, self.num_replicas
            )
        else:
            self.sizes = shard_sizes_array(source, total, shard_sizes, self.tail, self.num_replicas)
            self._check_every_epoch()

    @property
    def policy(self) -> Tail:
        """Deprecated alias of :attr:`tail`."""
        return self.tail

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
            return item_count(self.total, self.num_replicas, self.rank, self.tail)
        if self.sizes is None:
            return None
        totals = rank_totals(self._order(epoch), self.sizes, self.num_replicas)
        self._check_totals(totals, epoch)
        return shard_count(totals, self.rank, self.tail)

    def _check_totals(self, totals: list[int], epoch: int) -> None:
        """Refuse an epoch in which a rank's shards are all empty under drop or pad.

        ``drop`` would cut every rank to 0 items and ``pad`` has nothing to
        repeat on the empty rank; both would be silently wrong.
        """
        if self.tail == "uneven" or min(totals) > 0 or max(totals) == 0:
            return
        empty = [r for r, t in enumerate(totals) if t == 0]
        if self.tail == "pad":
            raise ConfigError(
                f"tail='pad' cannot pad ranks {empty}: their shards hold no items in "
                f"epoch {epoch}; use tail='drop' or more, non-empty shards"
            )
        raise ConfigError(
            f"tail='drop' gives every rank 0 items in epoch {epoch}: ranks {empty} get only "
            "empty shards; use more (or non-empty) shards, fewer ranks, or tail='uneven' "
            "with fairshard.stop_together"
        )

    def _check_every_epoch(self) -> None:
        """Decide at construction that no epoch can give a rank only empty shards.

        NOTE: the shard order is reshuffled every epoch, so checking epoch 0
        alone would let a later epoch fail mid-training. A rank takes every
        ``R``-th shard of the order, at least ``S // R`` of the ``S`` shards; a
        shuffle can give one rank only empty shards exactly when there are at
        least that many empty shards. Without shuffling the order is fixed and
        epoch 0 decides. Unknown sizes cannot be checked up front (they are
        checked as shards are read).
        """
        if self.sizes is None or self.tail == "uneven":
            return
        self._check_totals(rank_totals(self._order(0), self.sizes, self.num_replicas), 0)
        if not self.shuffle_shards:
            return
        num_shards = len(self.sizes)
        empty = int(np.count_nonzero(self.sizes == 0))
        fewest = num_shards // self.num_replicas
        if empty and empty >= fewest and empty < num_shards:
            raise ConfigError(
                f"shard_sizes has {empty} empty shards of {num_shards}; with shuffle_shards=True "
                f"and num_replicas={self.num_replicas} a rank may take as few as {fewest} "
                f"shards, so some epoch would give a rank only empty shards, which "
                f"tail={self.tail!r} cannot honour; remove the empty shards from source, or "
                "pass shuffle_shards=False, or tail='uneven' with fairshard.stop_together"
            )

    def __len__(self) -> int:
        """Exact number of items this rank yields per epoch, over all its workers.

        Raises:
            TypeError: the length is not known (an item stream without
                ``total``, or shards without ``shard_sizes``): never a guess.
        """
        elastic = self._elastic
        if elastic is not None and elastic.epoch == self.epoch:
            return E.view_rank_count(self, elastic)
        count = self._rank_count(self.epoch)
        if count is None:
            what = "total=" if self.mode == "item" else "shard_sizes="
            raise TypeError(
                f"ShardedIterable over a stream of unknown length has no len(); pass {what} "
                "to get an exact one"
            )
        return count

    # ---------------------------------------------------------------- epochs
    # set_epoch and the repeat warning: EpochRules (one implementation with the samplers)
    def _epoch_for_pass(self, consumer: Consumer, resumed: bool = False) -> int:
        repeat = not self._fresh and not resumed and self._completed == (self.epoch, consumer)
        if repeat and self.mode == "shard" and self.shuffle_shards:  # item mode: same order
            self._warn_repeat(self.epoch)
        self._fresh = False
        return self.epoch

    # ------------------------------------------------------------- iteration
    def __iter__(self) -> Iterator[T]:
        check_not_local_rank(self.rank, self.num_replicas)  # this process reading this share
        consumer = self._consumer()
        resume = self._resume if self._resume is not None else self._abandoned(consumer)
        epoch = self._epoch_for_pass(consumer, resumed=resume is not None)
        consumed = segment = offset = 0
        self._other_num_workers(consumer.num_workers)
        if resume is not None and resume.epoch == epoch:
            _, consumed, segment, offset = resume
        elif self._resume_workers is not None and self._resume_workers[0] == epoch:
            _, consumed, segment, offset = self._worker_position(consumer)
        self._resume = None
        self._origin = Position(epoch, consumed, segment, offset) if consumed else None
        elastic = self._elastic
        if elastic is not None and elastic.epoch == epoch:
            at = elastic.start(consumer)
            self._progress = ConsumerProgress(epoch, consumer, at.consumed, 0, 0)
            return E.read_view(self, elastic, self._progress)
        progress = ConsumerProgress(epoch, consumer, consumed, segment, offset)
        self._progress = progress
        if self.shuffle_buffer:
            start = window_start(consumed, self.shuffle_buffer)
            inner = ConsumerProgress(epoch, consumer, start, segment, offset)
            return shuffled(self._read(inner), inner, progress, self.shuffle_buffer, self.seed)
        return self._read(progress)

    def _read(self, progress: ConsumerProgress) -> Iterator[T]:
        if self.mode == "shard":
            return self._shards(progress)
        # Item mode returns the reader's iterator itself (C speed, no wrapper):
        # completion is tracked for shard mode's repeated-epoch warning, and for a
        # resumed pass (whether it ran out decides what the next pass resumes).
        if self.total is not None and random_access(self.source):
            items = read_indexed(self.source, self.total, self.tail, progress)
        else:
            items = read_streamed(self.source, self.total, self.tail, progress)
        return items if self._origin is None else self._finished(items, progress)

    def _finished(self, items: Iterator[T], progress: ConsumerProgress) -> Iterator[T]:
        """Yield ``items``; once they are exhausted, record the pass as complete."""
        yield from items
        self._completed = (progress.epoch, progress.consumer)

    def _segments(self, epoch: int, consumer: Consumer) -> list[Segment]:
        if self.sizes is not None:
            self._check_totals(
                rank_totals(self._order(epoch), self.sizes, consumer.world_size), epoch
            )
        return shard_segments(self._order(epoch), self.sizes, consumer, self.tail)

    def _open(self, shard: int) -> Any:
        raw = self.source[shard]  # type: ignore[index]
        return raw if self.open_shard is None else self.open_shard(raw)

    def _shards(self, progress: ConsumerProgress) -> Iterator[T]:
        segments = self._segments(progress.epoch, progress.consumer)
        yield from self._finished(read_shards(segments, self._open, self.sizes, progress), progress)
