"""The base every fairshard sampler derives from: plan, partition, cursor.

A family writes the two hooks of ``REQUIRED_HOOKS`` -- ``_config()`` (what
the plan depends on) and ``_build_plan(epoch)`` -- and may write those of
``OPTIONAL_HOOKS`` (learned state, a source check, a fixed plan length, the
epoch change, the config a loaded state must match); docs/architecture.md
lists them. The base owns everything else: rank and world size, seeds,
epochs (``EpochRules``, shared with the streams), iteration in vectorized
chunks, exact ``len()``, ``state_dict``/``load_state_dict``, elastic resume
and the loader protocol of ``fairshard.loader_state_dict``.

NOTE (draws): a family whose plan algorithm changed keeps the old one for
the states it saved: ``_DRAWS`` lists its algorithms, oldest first, and
``_draw_config()`` (which its ``_config`` includes) records a draw after
the first as ``draw``. A new sampler plans with the last; a state saved by
an earlier draw (draw 1's states have no field) switches the sampler to
that draw, which it keeps, so a resumed run ends the epochs it started with
the plans it started with.

NOTE (iteration speed): ``__iter__`` returns an ``itertools.chain`` over
list iterators of chunk results, so each item costs what iterating a Python
list costs. Progress is read, when a state is asked for, from the live list
iterator's ``__length_hint__`` -- no per-item bookkeeping.

NOTE (when the epoch is fixed): the epoch and plan are bound when the
pass's first item is asked for, not when ``iter()`` is called: frameworks
make the sampler's iterator before they set the epoch (torchdata's
``BatchSampler`` at ``iter(loader)``, Lightning before its ``set_epoch`` on
a restart, accelerate when it asks a stateful loader for its state). A
``DataLoader`` with workers asks for items as soon as its iterator is made,
so there ``set_epoch`` must still come before ``iter(loader)`` (the ``for
batch in loader`` line); a ``set_epoch`` that comes after the workers began
another epoch's pass is refused (``SamplerState._check_late_epoch``).

What a sampler saves and resumes (``state_dict``, ``loader_state``,
``load_state_dict`` and where the next pass starts) is ``_core.sampler_state``.
"""

from __future__ import annotations

import itertools
import os
import sys
import weakref
from abc import abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

import torch.distributed
from torch.utils.data import Sampler

from .._distributed.collectives import process_group_active
from .._distributed.world import check_not_local_rank, resolve_seed, resolve_world
from .._errors import ConfigError, StateDictError, check_int
from .cursor import Cursor, checked_init
from .epochs import ResumePoint
from .migrating import Migrating
from .partition import LAYOUTS, TAILS, Layout, Partition, Tail
from .plan_share import shared_plan
from .plans import Plan
from .registry import Registered
from .resume import driven_by_lightning, find_driver, loaded_by_torchdata
from .sampler_state import SamplerState

__all__ = ["PlannedSampler", "VERIFY_ENV"]

#: sampler -> weak references to what ``forget_plans`` tells (``_watch_plans``).
_PLAN_WATCHERS: weakref.WeakKeyDictionary[Any, list[weakref.WeakMethod[Any]]] = (
    weakref.WeakKeyDictionary()
)

T = TypeVar("T")
P = TypeVar("P", bound=Plan)

#: Environment variable that turns on ``fairshard.verify`` at every epoch start.
VERIFY_ENV = "FAIRSHARD_VERIFY"

_FIRST_CHUNK = 256


class PlannedSampler(Registered, SamplerState, Sampler[T], Generic[T, P], register=False):
    """Base class of fairshard samplers (see the module docstring).

    Generic over its items ``T`` and its plan type ``P``: ``plan()`` returns
    the family's own plan class, with no narrowing at the caller.

    Args:
        num_replicas: World size; detected when ``None``.
        rank: This process's rank; detected when ``None``.
        seed: Root seed shared by all ranks; ``None`` agrees on one (rank 0's
            random seed when a process group exists, else 0).
        layout: ``"strided"`` or ``"blocked"`` (see ``Partition``).
        tail: ``"pad"``, ``"drop"`` or ``"uneven"`` (see ``Partition``).
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (a ``ProcessGroup`` or ``DeviceMesh``,
            e.g. ``mesh["dp"]``): the world is its size and this process's rank
            in it, and fairshard's collectives run in it (docs/parallelism.md).
    """

    kind: ClassVar[str] = "PlannedSampler"
    _repeat_fix = ", or build the sampler with auto_epoch=True"
    _empty_fix = ", or build the sampler with auto_epoch=True, which moves on by itself"

    #: The hooks every family writes (abstract here).
    REQUIRED_HOOKS: ClassVar[tuple[str, ...]] = ("_config", "_build_plan")
    #: The hooks a family may write; each has a default here.
    OPTIONAL_HOOKS: ClassVar[tuple[str, ...]] = (
        "_extra_state",
        "_load_extra_state",
        "_check_source",
        "_known_plan_length",
        "_on_epoch_change",
        "_load_config",
        "_shares_plan",
        "_migration_refusal",
        "_check_migration",
        "_consumed_record",
    )
    #: The hooks a family that resumes on changed data (sets ``_data_keys``)
    #: writes; no default fits, so the base has none and a family that sets
    #: ``_data_keys`` without them is refused when its class is defined.
    MIGRATION_HOOKS: ClassVar[tuple[str, ...]] = Migrating._required_hooks

    #: Set by a ``StepSampler`` that chains the plans: epochs have no tail then,
    #: so a family must not warn about padding or dropping one, and a plan
    #: laid out for the world size (``order="locality"``'s lanes) lays itself
    #: out for none.
    _endless: bool = False
    #: Why a ``StepSampler`` must not chain this sampler's plans (they are laid
    #: out for the world size, which an endless stream's plans must not be),
    #: or ``None``: the ``StepSampler`` raises it as a ``ConfigError``.
    _endless_refusal: str | None = None
    #: Counts ``forget_plans`` calls: a reader that evaluated plans ahead re-reads them.
    _plan_version: int = 0
    #: The family folds what it learned into its plans at ``set_epoch`` (an
    #: endless stream, which never calls it, refuses such a family).
    _learns_at_epoch: bool = False
    #: ``(epoch, position)`` the latest plan change starts at, for a sampler whose
    #: plans change during training (``None``: they never do).
    changed_from: tuple[int, int] | None = None
    #: The family's plan algorithms, oldest first (the module NOTE on draws).
    _DRAWS: ClassVar[tuple[int, ...]] = (1,)

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
        group: Any = None,
    ) -> None:
        world = resolve_world(num_replicas, rank, group)
        self.num_replicas: int = world.world_size
        self.rank: int = world.rank
        self._group = world.group  # the data-parallel group; never in the state or config
        # Built with no launcher environment, no process group, nothing explicit.
        self._world_guessed: bool = world.source == "single process"
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
        self._init_epochs()
        self._cursor: Cursor | None = None
        self._resume: ResumePoint | None = None
        self._plan_cache: tuple[int, P] | None = None
        self._draw: int = self._DRAWS[-1]

    # ------------------------------------------------- hooks a family writes
    @abstractmethod
    def _config(self) -> dict[str, Any]:
        """Plain values the plan depends on (besides seed and epoch)."""

    @abstractmethod
    def _build_plan(self, epoch: int) -> P:
        """The global plan for ``epoch``."""

    # ------------------------------------------------ hooks a family may write
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

    def _on_epoch_change(self) -> None:
        """Hook: the epoch of the next pass was set (apply staged plan inputs here).

        Called by ``set_epoch``, by ``auto_epoch`` after a complete pass, and
        by a ``load_state_dict`` that succeeded; a family that changes its
        plan inputs here calls ``forget_plans``.
        """

    def _load_config(self) -> dict[str, Any]:
        """Hook: the config a loaded state must match (default: ``full_config()``).

        The config the sampler will have once the load succeeded -- a family
        whose ``_on_epoch_change`` applies staged inputs reports them here.
        """
        return self.full_config()

    # --------------------------------------------------------- construction
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
    def plan(self, epoch: int | None = None) -> P:
        """The global plan of ``epoch`` (default: the current epoch), cached per epoch."""
        epoch = self.epoch if epoch is None else check_int("epoch", epoch, minimum=0)
        cached = self._plan_cache
        if cached is not None and cached[0] == epoch:
            return cached[1]
        migrated = self._migrated_plan(epoch)
        if migrated is not None:  # the rest of an epoch resumed on changed data
            plan: P = migrated  # type: ignore[assignment]  # the family's _rest_plan returns a P
        elif self._shares_plan():
            key = {"kind": self.kind, "config": self._config(), "seed": self.seed, "epoch": epoch}
            plan = shared_plan(key, lambda: self._build_plan(epoch))
        else:
            plan = self._build_plan(epoch)
        self._plan_cache = (epoch, plan)
        return plan

    def forget_plans(self) -> None:
        """Drop the cached plan: a subclass calls it when its plan inputs change (new weights).

        Readers that evaluated plans ahead (``_watch_plans``) are told at once.
        """
        self._plan_cache = None
        self._plan_version += 1
        for ref in list(_PLAN_WATCHERS.get(self, ())):
            watcher = ref()
            if watcher is not None:
                watcher()

    def _watch_plans(self, watcher: Callable[[], None]) -> None:
        """Call the bound method ``watcher`` whenever ``forget_plans`` runs (held weakly).

        NOTE (outside the sampler): the watchers live in a module-level weak
        table, not on the sampler, so a copied or pickled sampler carries none.
        """
        refs = _PLAN_WATCHERS.setdefault(self, [])
        refs[:] = [r for r in refs if r() is not None]
        refs.append(weakref.WeakMethod(watcher))

    def pass_epoch(self) -> int:
        """The epoch the live (or next) pass iterates: the cursor's while a pass runs."""
        cursor = self._cursor
        return self.epoch if cursor is None else cursor.epoch

    def partition(self, epoch: int | None = None) -> Partition:
        """This epoch's partition (honouring a pending resume)."""
        epoch = self.epoch if epoch is None else epoch
        start = 0
        resume = self._pending_resume()
        if resume is not None and resume.epoch == epoch:
            start = resume.start
        total = len(self.plan(epoch))
        if start == 0:
            self._check_drop(total, epoch)
        return Partition(total, self.num_replicas, self.layout, self.tail, start)

    def _draw_config(self) -> dict[str, Any]:
        """``{"draw": d}`` past the first draw, else empty: a family's ``_config`` adds it."""
        return {"draw": self._draw} if self._draw != 1 else {}

    def full_config(self) -> dict[str, Any]:
        """Everything the plan and partition depend on, as plain values."""
        return {**self._config(), "layout": self.layout, "tail": self.tail}

    # -------------------------------------------------------------- iteration
    def __len__(self) -> int:
        """Exact number of items of this rank's epoch: constant through the epoch.

        A full epoch's share, also after ``load_state_dict`` in the middle
        of it: the steps the state records as taken plus those left, as
        PyTorch's samplers and torchdata keep ``len()`` (a framework that
        restores its own step counter ends the epoch at ``len()``). The
        resumed pass yields what is left: ``remaining``. With
        ``auto_epoch``, the epoch that ``iter()`` will move on to.
        """
        epoch, _ = self._next_pass()
        return self._epoch_length(epoch)

    def _check_world(self) -> None:
        """Raise if the sampler guessed one process and a larger process group runs now.

        NOTE (why): a sampler built before the launcher started the other
        processes (Lightning's ``python script.py`` with ``devices=2``
        builds module-level loaders in the parent before it spawns) took
        the whole dataset as its share; iterating it on every rank would
        train on every sample ``W`` times an epoch, silently. Only a
        sampler whose world was *guessed* is checked, once per pass, with
        no collective.
        """
        if not getattr(self, "_world_guessed", False) or not process_group_active():
            return
        world = int(torch.distributed.get_world_size())
        if world > 1:
            raise ConfigError(
                f"the {self.kind} was built before the processes were started: it found no "
                "launcher environment and no process group, took num_replicas=1, and a "
                f"process group of world_size={world} runs now, so every rank would iterate "
                "the whole dataset. Build the sampler after the processes start (with "
                "Lightning: inside LightningModule.train_dataloader() or a LightningDataModule) "
                "or pass num_replicas= and rank= explicitly"
            )

    def __iter__(self) -> Iterator[T]:
        self._check_source()
        check_not_local_rank(self.rank, self.num_replicas)  # this process reading this share
        self._check_world()
        if os.environ.get(VERIFY_ENV, "") not in ("", "0"):  # a collective: at iter(), as before
            from .._distributed.verify import verify_epoch

            verify_epoch(self)
        # chain pulls the first chunk, and so binds the pass, at the first item.
        return itertools.chain.from_iterable(self._bound_chunks(sys._getframe(1)))

    def _bound_chunks(self, caller: Any) -> Iterator[Iterator[T]]:
        """One pass's chunks, the pass bound to its epoch and resume point at its first item.

        NOTE (why at the first item, not at ``iter()``): frameworks create
        the sampler's iterator before they set the epoch. torchdata's
        ``BatchSampler`` calls ``iter(sampler)`` when the loader's iterator
        is made, and Lightning makes it (to restore a ``StatefulDataLoader``)
        before its ``set_epoch``; a pass bound at ``iter()`` then trained the
        previous epoch's order again, silently. PyTorch's samplers read the
        epoch when ``__iter__`` runs; here it is read when the loop asks for
        the first item, after every ``set_epoch`` and ``load_state_dict``
        the framework makes in between.
        """
        self._resume = self._pending_resume()
        epoch = self._epoch_for_pass()
        plan = self.plan(epoch)
        partition = self.partition(epoch)
        num_items = partition.num_items(self.rank)
        begin = 0
        resume = self._resume
        if resume is not None and resume.epoch == epoch:
            begin = min(resume.steps, num_items)
        self._resume = None
        at_end = partition.start == partition.total > 0  # a loaded state ended the epoch
        if at_end and begin >= num_items and driven_by_lightning():
            # NOTE (why refused): Lightning restored from a checkpoint taken at the last
            # batch of an epoch, with loader workers, makes the restored loader's iterator
            # -- the end of the saved epoch, nothing left -- and trains it as the next
            # epoch: that epoch would be lost whole (tests/seams/, the "last" cells).
            raise ConfigError(
                f"{self.kind}: Lightning resumed from a checkpoint taken after the last batch "
                f"of epoch {epoch} and before the epoch's end, and counts this pass as epoch "
                f"{epoch + 1}, but the restored loader is at the end of epoch {epoch}: epoch "
                f"{epoch + 1} would be skipped. Resume a plain DataLoader with "
                "fairshard.integrations.lightning.ExactResume, or take the checkpoint at the "
                "epoch's end (ModelCheckpoint(save_on_train_epoch_end=True))"
            )
        if at_end and not loaded_by_torchdata(caller):
            self._warn_empty(epoch)
        cursor = Cursor(epoch, partition, begin, num_items)
        if resume is not None and resume.epoch == epoch:
            cursor.before = resume.before
        cursor.driver = find_driver(caller)
        self._cursor = cursor
        yield from self._chunks(plan, cursor)

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
        cursor.exhausted = True
