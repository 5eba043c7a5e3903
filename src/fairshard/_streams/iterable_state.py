"""What a ``ShardedIterable`` saves and resumes: the state half of the class.

``IterableState`` is a mixin of ``ShardedIterable`` (``_streams.sharded_iterable``)
alone, at a real boundary: the class reads the stream; this half takes the
state of a consumer or a whole rank (``state_dict``, the loader protocol's
``loader_state``), loads one (``load_state_dict``, handing a change of
shape to ``_streams.elastic``) and says where a resumed pass that was left
early starts again (``_abandoned``). The declarations in the class name
what it reads of ``ShardedIterable`` for the type checker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._core.epochs import EpochRules
from .._core.partition import Tail
from .._core.resume import LoaderView, refuse_out_of_order
from .._errors import ConfigError
from . import elastic as E
from .layout import Consumer, Segment
from .resume import complete, loader_positions, position_in, worker_position
from .shuffle import window_start
from .state import ConsumerProgress, Position, seal_state, seal_workers, state_config, unseal_state

__all__ = ["IterableState"]


class IterableState(EpochRules):
    """``state_dict``, ``loader_state`` and ``load_state_dict`` of ``ShardedIterable``."""

    # What ``ShardedIterable`` sets (its ``__init__``) and defines (reading the stream).
    num_replicas: int
    rank: int
    seed: int
    mode: str
    tail: Tail
    total: int | None
    sizes: NDArray[np.int64] | None
    source: Iterable[Any] | Sequence[Any]
    shuffle_shards: bool
    shuffle_buffer: int
    _progress: ConsumerProgress | None
    _resume: Position | None
    _resume_workers: tuple[int, list[Position]] | None
    _completed: tuple[int, Consumer] | None
    _elastic: E.Elastic | None
    _resume_by: Consumer | None
    _origin: Position | None

    if TYPE_CHECKING:

        @property
        def policy(self) -> Tail: ...

        def _consumer(self) -> Consumer: ...

        def _order(self, epoch: int) -> NDArray[np.int64]: ...

        def _open(self, shard: int) -> Any: ...

        def _segments(self, epoch: int, consumer: Consumer) -> list[Segment]: ...

    def _abandoned(self, consumer: Consumer) -> Position | None:
        """The start of this consumer's resumed pass, when it was left before its end.

        As for samplers (``PlannedSampler._pending_resume``): a probe
        ``next(iter(loader))`` after ``load_state_dict`` must not cost the
        resume point; the next pass starts where the resumed one did.
        """
        origin, progress = self._origin, self._progress
        if origin is None or progress is None or origin.epoch != self.epoch:
            return None
        if progress.epoch != origin.epoch or progress.consumer != consumer:
            return None
        if self._completed == (progress.epoch, consumer):
            return None  # the resumed pass ran out: the epoch is done
        return origin

    def _check_abandoned(self) -> None:
        """Warn when a pass begun from a loaded state left items unread (``EpochRules``).

        Seen where the pass ran: in this process, one consumer for the whole
        rank (``num_workers=0``), on the shape it was saved on and with a
        known length; a worker's copy reports nothing to the main process.
        """
        progress, origin = self._progress, self._origin
        if progress is None or origin is None or self._elastic is not None:
            return
        if progress.consumer.num_workers > 1 or self._abandoned(progress.consumer) is None:
            return
        try:
            length = len(self)  # type: ignore[arg-type]
        except TypeError:
            return  # a stream of unknown length
        unread = length - progress.consumed
        if unread > 0:
            self._warn_abandoned(self.epoch, unread, length, "items")

    # ----------------------------------------------------------------- state
    def _config(self) -> dict[str, Any]:
        num_shards = len(self.source) if self.mode == "shard" else None  # type: ignore[arg-type]
        config = state_config(
            self.mode, self.tail, self.total, num_shards, self.sizes, self.shuffle_shards
        )
        if self.shuffle_buffer:
            config["shuffle_buffer"] = self.shuffle_buffer
        return config

    def state_dict(self) -> dict[str, Any]:
        """This consumer's place in the stream, as the library's sealed state.

        Called by ``StatefulDataLoader`` inside each worker; it is cheap.
        """
        consumer = self._consumer()
        progress = self._progress
        elastic = self._elastic
        if elastic is not None and elastic.epoch == self.epoch:
            live = progress if progress is not None and progress.epoch == self.epoch else None
            return E.seal(self, elastic, live, consumer)
        if self._resume is not None and self._resume[0] == self.epoch:
            at = self._resume
        elif progress is not None and progress.epoch == self.epoch:
            at = Position(progress.epoch, progress.consumed, progress.segment, progress.offset)
            consumer = progress.consumer
        else:
            at = Position(self.epoch, 0, 0, 0)
        return seal_state(
            self.kind, self._config(), self.seed, self.num_replicas, self.rank, consumer, at
        )

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Any = None) -> None:
        """Resume: the next ``iter()`` continues the saved epoch after what was consumed.

        Takes a state from ``state_dict()`` (one consumer: what
        ``StatefulDataLoader`` saves per worker) or from
        ``fairshard.loader_state_dict`` (a whole rank: each DataLoader
        worker's copy picks its own position at ``iter()``). A rank's state
        saved on another world size or ``num_workers`` finishes the epoch
        exactly on this shape where the stream can be read by position
        (see ``_streams.elastic``).

        ``migrate`` is the samplers' resume on changed data (one state
        protocol); a stream refuses it, see ``_refuse_migrate``.

        Raises:
            StateDictError: foreign or tampered state, another config or seed,
                or another shape (rank, world size, worker count) that this
                stream cannot resume exactly (the message names the fix).
            ConfigError: ``migrate`` given.
        """
        if migrate is not None:
            self._refuse_migrate(state_dict, migrate)
        consumer = self._consumer()
        progress = self._progress
        started = (
            progress is not None
            and progress.epoch == self.epoch
            and progress.consumed > progress.first
        )
        elastic = E.elastic_resume(self, state_dict, consumer)
        self._progress = None
        self._completed = None
        self._elastic = None
        self._origin = None
        self._fresh = True
        self._warned_abandoned = False
        if isinstance(elastic, tuple):  # another rank's state of the same world size
            self.epoch, self._resume, self._resume_workers = elastic[0], None, elastic
            return
        if elastic is not None:  # another world size, rank or num_workers
            self._resume = self._resume_workers = None
            if not self.keeps_later_epoch(elastic.epoch, E.complete(self, elastic), started):
                self.epoch, self._elastic = elastic.epoch, elastic
            return
        at = unseal_state(state_dict, self.kind, self._config(), self.seed, consumer)
        epoch = at.epoch if isinstance(at, Position) else at[0]
        keep = self.keeps_later_epoch(epoch, complete(self, at, consumer), started)
        if keep:  # see _core.epochs: a lazy restore after set_epoch(e + 1)
            self._resume = self._resume_workers = None
        elif isinstance(at, Position):
            self.epoch, self._resume, self._resume_workers = at.epoch, at, None
            self._resume_by = consumer
        else:
            self.epoch, self._resume, self._resume_workers = at[0], None, at

    def _refuse_migrate(self, state_dict: Any, migrate: Any) -> None:
        """A stream cannot resume mid-epoch on changed data: say so and what to do.

        NOTE: the samplers' ``migrate=`` re-plans the rest of an epoch from
        plan positions. A stream's epoch is its items (or shards) dealt to
        consumers as they are read, possibly from files that changed, so what
        a rank consumed cannot be mapped onto new data exactly; a quiet
        approximation would repeat or lose items. The exact routes: finish
        the epoch on the saved data, then build the stream on the new data
        and ``set_epoch`` the next epoch (an epoch's end carries nothing
        else), or use a map-style sampler over the data, which migrates.
        """
        saved = state_dict.get("epoch") if isinstance(state_dict, dict) else None
        epoch = f"epoch {saved}" if isinstance(saved, int) else "the saved epoch"
        raise ConfigError(
            f"{self.kind} cannot resume on changed data (migrate={migrate!r}): a stream's "
            "consumed items cannot be mapped onto new items or shards exactly. Finish "
            f"{epoch} on the data it was saved with (load the state without migrate), then "
            "build the stream on the new data and call set_epoch with the next epoch; or "
            "read the data through a map-style sampler (fairshard.DistributedSampler, "
            "WeightedSampler, ...), whose load_state_dict takes migrate=fairshard.DataChange"
        )

    def _window_segment(self, worker: int, num_workers: int, consumed: int) -> tuple[int, int]:
        consumer = Consumer(self.rank, self.num_replicas, worker, max(1, num_workers))
        if num_workers == 0:
            consumer = Consumer(self.rank, self.num_replicas)
        start = window_start(consumed, self.shuffle_buffer)
        return position_in(self._segments(self.epoch, consumer), start)

    def _other_num_workers(self, num_workers: int) -> None:
        """A state of this rank loaded for another ``num_workers``: resume it elastically.

        A state of one consumer loaded in the main process (``num_workers=0``),
        or a whole rank's state, may be read by a DataLoader with another
        number of workers: each worker's copy (and ``_loader_state`` in the
        main process) then finishes the epoch on the new shape.
        """
        here = Consumer(self.rank, self.num_replicas, 0, num_workers)
        saved: list[Position] | None = None
        if self._resume is not None and self._resume.epoch == self.epoch:
            if self._resume_by is not None and self._resume_by.num_workers != num_workers:
                if self._resume_by.num_workers != 1:
                    raise E.StateDictError(
                        f"this dataset holds the state of {self._resume_by}, one "
                        "DataLoader worker of its rank, but is read with num_workers="
                        f"{num_workers}; save the whole rank with "
                        "fairshard.loader_state_dict(loader, batches=k)"
                    )
                saved, self._resume = [self._resume], None
        elif (
            self._resume_workers is not None
            and self._resume_workers[0] == self.epoch
            and len(self._resume_workers[1]) != num_workers
        ):
            saved, self._resume_workers = self._resume_workers[1], None
        if saved is not None:
            E.check_workers_fix(self, len(saved), here)
            self._elastic = E.elastic_from_workers(self.epoch, self.num_replicas, saved)

    def _worker_position(self, consumer: Consumer) -> Position:
        assert self._resume_workers is not None
        return worker_position(self._resume_workers[1], consumer)

    def loader_state(self, batches: int, loader: LoaderView) -> dict[str, Any]:
        """The rank's state after the loop took ``batches`` batches of the current pass.

        The resume protocol of ``fairshard.loader_state_dict`` (``_core.resume``);
        the arithmetic is ``_streams.resume``'s.

        Raises:
            ConfigError: the loader yields out of order (``in_order=False``)
                with workers and the loop took part of the pass.
        """
        batch_size, drop_last, num_workers = loader.batch_size, loader.drop_last, loader.num_workers
        if num_workers and not loader.in_order and batches > 0:
            raise refuse_out_of_order(self.kind, batches, "batches, mid-pass", num_workers)
        size = 1 if batch_size is None else batch_size
        self._other_num_workers(max(1, num_workers))
        elastic = self._elastic
        if elastic is not None and elastic.epoch == self.epoch:
            return E.loader_state(self, elastic, batches, size, drop_last, num_workers)
        base: list[int] | None = None
        if self._resume_workers is not None and self._resume_workers[0] == self.epoch:
            base = [p.consumed for p in self._resume_workers[1]]
        elif self._resume is not None and self._resume.epoch == self.epoch:
            base = [self._resume.consumed]
        elif num_workers == 0 and self._progress is not None:
            base = [self._progress.first]
        positions = loader_positions(self, batches, size, drop_last, num_workers, base)
        if self.shuffle_buffer and self.mode == "shard":  # a state names its window's start
            positions = [
                p._replace(segment=g, offset=o)
                for w, p in enumerate(positions)
                for g, o in [self._window_segment(w, num_workers, p.consumed)]
            ]
        args = (self.kind, self._config(), self.seed, self.num_replicas, self.rank)
        if num_workers == 0:
            return seal_state(*args, self._consumer(), positions[0])
        return seal_workers(*args, self.epoch, positions)
