"""The base every fairshard sampler derives from: plan, partition, cursor.

Subclasses supply three things -- ``_config()`` (what the plan depends on),
``_build_plan(epoch)`` and, optionally, ``_extra_state()`` /
``_load_extra_state()`` for learned state. The base owns everything else:
rank and world size, seeds, epochs, iteration in vectorized chunks, exact
``len()``, ``state_dict``/``load_state_dict`` and elastic resume.

NOTE (iteration speed): ``__iter__`` returns an ``itertools.chain`` over
list iterators of chunk results, so each item costs what iterating a Python
list costs. Progress is read, when a state is asked for, from the live list
iterator's ``__length_hint__`` -- no per-item bookkeeping.

NOTE (when the epoch is fixed): the epoch and plan are bound when ``iter()``
is called, not at the first ``next()``. A ``DataLoader`` calls ``iter()`` on
the sampler when its own iterator is created and workers start prefetching
right away, so ``set_epoch`` must come *before* ``iter(loader)`` (the
``for batch in loader`` line); a later call only affects the next epoch.

NOTE (what a state counts): the cursor counts what the sampler handed out.
That is what the loop consumed with ``num_workers=0`` and under a loader
that snapshots the sampler per batch (``StatefulDataLoader``), but not
under a plain multi-worker ``DataLoader``, which prefetches: there the loop
says what it took (``state_dict(consumed=k)`` or
``fairshard.loader_state_dict``), and a bare ``state_dict()`` that would
overcount raises (see ``resume``).
"""

from __future__ import annotations

import itertools
import os
import sys
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, Generic, TypeVar

from torch.utils.data import Sampler

from .._distributed.world import resolve_seed, resolve_world
from .._errors import ConfigError, DegenerateConfigWarning, StateDictError, check_int, warn
from . import state as S
from .cursor import Cursor, checked_init
from .partition import LAYOUTS, TAILS, Layout, Partition, Tail
from .plan_share import shared_plan
from .plans import Plan
from .registry import Registered
from .resume import check_consumed, discarded, find_driver

__all__ = ["PlannedSampler", "VERIFY_ENV"]

T = TypeVar("T")

#: Environment variable that turns on ``fairshard.verify`` at every epoch start.
VERIFY_ENV = "FAIRSHARD_VERIFY"

_FIRST_CHUNK = 256


class PlannedSampler(Registered, Sampler[T], Generic[T], register=False):
    """Base class of fairshard samplers (see the module docstring).

    Args:
        num_replicas: World size; detected when ``None``.
        rank: This process's rank; detected when ``None``.
        seed: Root seed shared by all ranks; ``None`` agrees on one (rank 0's
            random seed when a process group exists, else 0).
        layout: ``"strided"`` or ``"blocked"`` (see ``Partition``).
        tail: ``"pad"``, ``"drop"`` or ``"uneven"`` (see ``Partition``).
        auto_epoch: Advance the epoch by itself after each complete pass.
    """

    kind: ClassVar[str] = "PlannedSampler"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Run ``_check_constructed`` once the outermost ``__init__`` has finished."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.__init__ = checked_init(init)  # type: ignore[method-assign]

    def __init__(
        self,
        *,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        layout: Layout = "strided",
        tail: Tail = "pad",
        auto_epoch: bool = False,
    ) -> None:
        world = resolve_world(num_replicas, rank)
        self.num_replicas: int = world.world_size
        self.rank: int = world.rank
        self.seed: int = resolve_seed(seed, world)
        if layout not in LAYOUTS:
            raise ConfigError(f"layout must be one of {LAYOUTS}, got layout={layout!r}")
        if tail not in TAILS:
            raise ConfigError(f"tail must be one of {TAILS}, got tail={tail!r}")
        if not isinstance(auto_epoch, bool):
            raise ConfigError(f"auto_epoch must be a bool, got auto_epoch={auto_epoch!r}")
        self.layout: Layout = layout
        self.tail: Tail = tail
        self.auto_epoch = auto_epoch
        self.epoch = 0
        self._cursor: Cursor | None = None
        self._resume: tuple[int, int, int] | None = None  # (epoch, start, steps)
        self._fresh = True  # set_epoch / load_state_dict since the last pass
        self._warned_repeat = False
        self._plan_cache: tuple[int, Plan] | None = None

    # ----------------------------------------------------------- subclass API
    @abstractmethod
    def _config(self) -> dict[str, Any]:
        """Plain values the plan depends on (besides seed and epoch)."""

    @abstractmethod
    def _build_plan(self, epoch: int) -> Plan:
        """The global plan for ``epoch``."""

    def _extra_state(self) -> dict[str, Any]:
        """Learned state to save beside the cursor (default: none)."""
        return {}

    def _encoded_extra_state(self) -> tuple[dict[str, Any], bytes | None]:
        """``(extra, its canonical bytes)`` for a subclass that keeps the bytes (default ``None``).

        A snapshot hashes ``extra`` at every call; a large learned state that
        changes only between epochs returns its kept bytes here
        (``digest.encode(extra)``, exactly).
        """
        return self._extra_state(), None

    def _load_extra_state(self, extra: dict[str, Any]) -> None:
        """Restore what ``_extra_state`` returned (default: expects nothing)."""
        if extra:
            raise StateDictError(
                f"state_dict['extra'] has entries {sorted(extra)} a {self.kind} never saves"
            )

    def _check_source(self) -> None:
        """Hook: raise if the data source changed since construction."""

    def _shares_plan(self) -> bool:
        """Hook: whether the plan is materialized and named by ``_config()`` (default: no).

        Such a plan is built once per node and mapped by its ranks
        (``_core/plan_share.py``); the plan ``_build_plan`` returns must then
        be a registered :class:`~fairshard._core.plans.SharedPlan` type.
        """
        return False

    def _known_plan_length(self) -> int | None:
        """Hook: the plan length of every epoch when the config fixes it (else ``None``).

        Lets a ``tail='drop'`` configuration that leaves every rank empty fail
        at construction instead of at the first ``len()`` or ``iter()``.
        """
        return None

    def _check_constructed(self) -> None:
        total = self._known_plan_length()
        if total is not None:
            self._check_drop(total, None)

    def _check_drop(self, total: int, epoch: int | None) -> None:
        if self.tail == "drop" and 0 < total < self.num_replicas:
            when = "" if epoch is None else f" (epoch {epoch})"
            raise ConfigError(
                f"{self.kind}: tail='drop' with {total} plan items{when} on "
                f"num_replicas={self.num_replicas} ranks gives every rank 0 steps; use "
                "tail='pad' (recycles items), fewer ranks, or more data"
            )

    # ------------------------------------------------------------------ plans
    def plan(self, epoch: int | None = None) -> Plan:
        """The global plan of ``epoch`` (default: the current epoch), cached per epoch."""
        epoch = self.epoch if epoch is None else check_int("epoch", epoch, minimum=0)
        cached = self._plan_cache
        if cached is not None and cached[0] == epoch:
            return cached[1]
        if self._shares_plan():
            key = {"kind": self.kind, "config": self._config(), "seed": self.seed, "epoch": epoch}
            plan = shared_plan(key, lambda: self._build_plan(epoch))
        else:
            plan = self._build_plan(epoch)
        self._plan_cache = (epoch, plan)
        return plan

    def forget_plans(self) -> None:
        """Drop the cached plan: a subclass calls it when its plan inputs change (new weights)."""
        self._plan_cache = None

    def pass_epoch(self) -> int:
        """The epoch the live (or next) pass iterates: the cursor's while a pass runs."""
        cursor = self._cursor
        return self.epoch if cursor is None else cursor.epoch

    def partition(self, epoch: int | None = None) -> Partition:
        """This epoch's partition (honouring a pending resume)."""
        epoch = self.epoch if epoch is None else epoch
        start = 0
        if self._resume is not None and self._resume[0] == epoch:
            start = self._resume[1]
        total = len(self.plan(epoch))
        if start == 0:
            self._check_drop(total, epoch)
        return Partition(total, self.num_replicas, self.layout, self.tail, start)

    def full_config(self) -> dict[str, Any]:
        """Everything the plan and partition depend on, as plain values."""
        return {**self._config(), "layout": self.layout, "tail": self.tail}

    # ----------------------------------------------------------------- epochs
    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next pass (as in PyTorch); call it before ``iter()``."""
        self.epoch = check_int("epoch", epoch, minimum=0)
        self._fresh = True

    def _resumed_steps(self, epoch: int) -> int:
        resume = self._resume
        return resume[2] if resume is not None and resume[0] == epoch else 0

    def _next_pass(self) -> tuple[int, bool]:
        """``(epoch, repeat)`` of the next ``iter()``, without changing anything.

        ``repeat``: the pass would start over an epoch already completed.
        With ``auto_epoch`` such a pass -- or a resumed epoch with nothing
        left -- moves on to the next epoch instead (and ``repeat`` is False).
        """
        epoch = self.epoch
        cursor = self._cursor
        if self._resume is not None and self._resume[0] == epoch:
            left = self.partition(epoch).num_items(self.rank) - self._resume[2]
            return (epoch + 1, False) if self.auto_epoch and left <= 0 else (epoch, False)
        repeat = not self._fresh and cursor is not None and cursor.epoch == epoch
        repeat = repeat and cursor is not None and cursor.complete and not discarded(cursor.driver)
        return (epoch + 1, False) if repeat and self.auto_epoch else (epoch, repeat)

    def _epoch_for_pass(self) -> int:
        epoch, repeat = self._next_pass()
        if epoch != self.epoch:  # auto_epoch moves on, as after a full pass
            self._resume = None
            self.epoch = epoch
        elif repeat and not self._warned_repeat:
            self._warned_repeat = True
            warn(
                f"{self.kind}: starting another pass over epoch {self.epoch}, which was "
                "already completed, so this pass repeats the same order. Call "
                "sampler.set_epoch(epoch) before each epoch, or build the sampler with "
                "auto_epoch=True.",
                DegenerateConfigWarning,
            )
        self._fresh = False
        return self.epoch

    # -------------------------------------------------------------- iteration
    def __len__(self) -> int:
        """Exact number of items the next ``iter()`` yields on this rank.

        A full epoch's share, or what is left of it after ``load_state_dict``;
        with ``auto_epoch``, of the epoch that ``iter()`` will move on to.
        """
        epoch, _ = self._next_pass()
        return max(0, self.partition(epoch).num_items(self.rank) - self._resumed_steps(epoch))

    def __iter__(self) -> Iterator[T]:
        self._check_source()
        cursor = self._cursor
        if (
            self._resume is None
            and cursor is not None
            and cursor.epoch == self.epoch
            and cursor.steps == cursor.first
            and (cursor.first > 0 or cursor.partition.start > 0)
        ):
            # A resumed pass that handed out nothing is replaced by this one, which
            # starts at the same point: a DataLoader with workers calls iter() on its
            # batch sampler twice before drawing (in __init__ and in _reset).
            self._resume = (cursor.epoch, cursor.partition.start, cursor.first)
        epoch = self._epoch_for_pass()
        if os.environ.get(VERIFY_ENV, "") not in ("", "0"):
            from .._distributed.verify import verify_epoch

            verify_epoch(self)
        plan = self.plan(epoch)
        partition = self.partition(epoch)
        num_items = partition.num_items(self.rank)
        begin = 0
        if self._resume is not None and self._resume[0] == epoch:
            begin = min(self._resume[2], num_items)
        self._resume = None
        cursor = Cursor(epoch, partition, begin, num_items)
        cursor.driver = find_driver(sys._getframe(1))
        self._cursor = cursor
        return itertools.chain.from_iterable(self._chunks(plan, cursor))

    def _chunks(self, plan: Plan, cursor: Cursor) -> Iterator[Iterator[T]]:
        max_chunk = plan.max_chunk
        size = min(_FIRST_CHUNK, max_chunk)
        begin, end_all = cursor.chunk_begin, cursor.num_items
        while begin < end_all:
            end = min(end_all, begin + size)
            values = plan.items(cursor.partition.positions(self.rank, begin, end))
            live = iter(values)
            cursor.chunk_begin, cursor.chunk_len, cursor.live = begin, len(values), live
            yield live
            begin, size = end, min(size * 2, max_chunk)

    # ------------------------------------------------------------------ state
    def _pass_items(self) -> int:
        """Items of the current pass (what is left of the epoch when it started)."""
        cursor = self._cursor
        if self._resume is None and cursor is not None and cursor.epoch == self.epoch:
            return cursor.num_items - cursor.first
        return len(self)

    def state_dict(self, consumed: int | None = None) -> dict[str, Any]:
        """Plain, versioned state: where this rank is in which epoch.

        Taken at any time: before, during or after a pass. Save rank 0's
        state (all ranks take equal steps); it loads on any rank and, for the
        strided layout, on any world size.

        Args:
            consumed: Items (batches, for a batch sampler) the training loop
                took from the current pass, counted since its ``iter()``.
                Needed mid-epoch under a plain ``DataLoader`` with
                ``num_workers > 0``, whose workers prefetch ahead of the
                loop; ``None`` counts what the sampler handed out, which is
                exact with ``num_workers=0`` and under ``StatefulDataLoader``.

        Raises:
            ConfigError: ``consumed`` is more than the pass handed out; or
                ``consumed`` is ``None`` while a multi-worker ``DataLoader``
                holds prefetched items of this pass the loop has not taken.
        """
        cursor = self._cursor
        if self._resume is not None and self._resume[0] == self.epoch:
            epoch, start, steps = self._resume
            check_consumed(consumed, 0)
        elif cursor is not None and cursor.epoch == self.epoch:
            epoch, start, steps = (
                cursor.epoch,
                cursor.partition.start,
                cursor.taken(consumed, self.kind),
            )
        else:
            epoch, start, steps = self.epoch, 0, 0
            check_consumed(consumed, 0)
        sealer = self.__dict__.get("_sealer")
        if sealer is None:
            sealer = self.__dict__["_sealer"] = S.Sealer()
        extra, extra_bytes = self._encoded_extra_state()
        return sealer.seal(
            self.kind,
            self.full_config(),
            self.seed,
            epoch,
            start,
            steps,
            self.num_replicas,
            self.rank,
            extra,
            extra_bytes,
        )

    def _saved_plan_length(self, epoch: int) -> int:
        """Plan length of a saved epoch; built only when the config does not fix it."""
        known = self._known_plan_length()
        if known is not None:
            return known
        try:
            return len(self.plan(epoch))
        except ConfigError as exc:
            raise StateDictError(f"state_dict['epoch']={epoch} cannot be planned: {exc}") from None

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Resume from ``state_dict``: the next ``iter()`` continues that epoch.

        Raises:
            StateDictError: the state is foreign, tampered, from another
                version, or was saved under a different config (the message
                names the field).
        """
        state = S.unseal(state_dict, self.kind)
        S.check_config(state[S.K_CONFIG], self.full_config())
        if state[S.K_SEED] != self.seed:
            raise StateDictError(
                f"state_dict was saved with seed={state[S.K_SEED]} but this sampler has "
                f"seed={self.seed}; build the sampler with seed={state[S.K_SEED]} to resume"
            )
        self._load_extra_state(dict(state[S.K_EXTRA]))
        epoch = state[S.K_EPOCH]
        start, steps, complete = S.resume_point(
            state,
            self._saved_plan_length(epoch),
            self.layout,
            self.tail,
            self.num_replicas,
            self.rank,
        )
        if complete and self.epoch > epoch:
            # The epoch is complete and set_epoch already moved past it: keep that
            # epoch. StatefulDataLoader loads its sampler lazily, at the iter() after
            # the user's set_epoch(epoch + 1); replaying the saved epoch would be wrong.
            self._resume = None
            self._cursor = None
            self._fresh = True
            return
        self.epoch = epoch
        self._resume = (epoch, start, steps)
        self._cursor = None
        self._fresh = True
