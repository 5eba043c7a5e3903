"""What a fairshard sampler saves and resumes: the state half of ``PlannedSampler``.

``SamplerState`` is a mixin of ``PlannedSampler`` (``_core.base``) alone, at
a real boundary: the base plans and iterates; this half says in which epoch
and where the next pass starts (``_next_pass``, ``_pending_resume``), takes
the state (``state_dict``, the loader protocol's ``loader_state``) and loads
it (``load_state_dict``, switching to the draw a state names:
``_core.base``'s NOTE on draws). It reads the cursor and the hooks the base
owns; the declarations in the class name them for the type checker.

NOTE (what a state counts): the cursor counts what the sampler handed out.
That is what the loop consumed with ``num_workers=0`` and under a loader
that snapshots the sampler per batch (``StatefulDataLoader``), but not
under a plain multi-worker ``DataLoader``, which prefetches: there the loop
says what it took (``state_dict(consumed=k)`` or
``fairshard.loader_state_dict``), and a bare ``state_dict()`` that would
overcount raises (see ``resume``).

NOTE (len): ``len()`` is the epoch's, constant through it, as PyTorch's
samplers and torchdata's keep it: after ``load_state_dict`` too, it counts
the steps the state records as taken (``ResumePoint.before`` and
``steps``) plus those left, while the resumed pass yields only what is
left (``remaining``). Every framework that restores its own batch counter
(Lightning's loop, accelerate's and the HF Trainer's step counts) ends the
epoch when that counter reaches ``len(loader)``; a ``len()`` of what is
left ended a resumed epoch that many steps early. What a state records is
the steps of its own partition: after an elastic resume, a state saved
later in that epoch no longer counts the steps taken before the
re-partition (the backstop of ``_check_abandoned`` warns where a loop
then stops early).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

from .._errors import ConfigError, StateDictError
from . import state as S
from .cursor import Cursor
from .epochs import EpochRules, ResumePoint
from .migrate import Change
from .migrating import K_MIGRATED, Migrating
from .partition import Layout, Partition, Tail
from .plans import Plan
from .resume import (
    LoaderView,
    check_consumed,
    finished,
    held_refusal,
    loaded_by_torchdata,
    loop_took,
)

__all__ = ["SamplerState"]

#: Where a loaded end-of-epoch state left its epoch, until the next pass or set_epoch.
_BOUNDARY = "_fairshard_boundary"


class SamplerState(Migrating, EpochRules):
    """``state_dict``, ``loader_state`` and ``load_state_dict`` of ``PlannedSampler``."""

    # What ``PlannedSampler`` sets (its ``__init__``) and defines (its hooks).
    _DRAWS: ClassVar[tuple[int, ...]]
    num_replicas: int
    rank: int
    seed: int
    layout: Layout
    tail: Tail
    _cursor: Cursor | None
    _resume: ResumePoint | None
    _draw: int
    auto_epoch: bool
    #: A batch sampler yields batches (the unit the warnings count in).
    _yields_batches: ClassVar[bool] = False

    if TYPE_CHECKING:

        def __len__(self) -> int: ...

        def plan(self, epoch: int | None = None) -> Plan: ...

        def forget_plans(self) -> None: ...

        def partition(self, epoch: int | None = None) -> Partition: ...

        def full_config(self) -> dict[str, Any]: ...

        def _load_config(self) -> dict[str, Any]: ...

        def _encoded_extra_state(self) -> tuple[dict[str, Any], bytes | None]: ...

        def _load_extra_state(self, extra: dict[str, Any]) -> None: ...

        def _known_plan_length(self) -> int | None: ...

    # ------------------------------------------------------- the next pass
    def _pending_resume(self) -> ResumePoint | None:
        """Where the next pass of the current epoch starts, when not at its beginning.

        A loaded state's point, or -- once a resumed pass was abandoned
        before it ran out (a probe ``next(iter(loader))``, a loop that left
        early, a loader that calls ``iter()`` twice or discards a restored
        iterator) -- that pass's own starting point again: a new pass over
        the epoch starts where the resumed epoch did, as a new pass over an
        epoch not resumed starts at its beginning. The resume point is not
        lost to an abandoned pass. A pass that ran out (the consumer saw its
        end) finished the epoch: the next pass over it is a repeat (it warns).
        """
        resume = self._resume
        if resume is not None:
            return resume if resume.epoch == self.epoch else None
        cursor = self._cursor
        if cursor is None or cursor.epoch != self.epoch:
            return None
        if cursor.first == 0 and cursor.partition.start == 0:
            return None  # not a resumed pass: the next one starts at the beginning anyway
        if finished(cursor.driver, cursor.exhausted):
            return None  # the resumed pass ran out: the epoch is done
        return ResumePoint(cursor.epoch, cursor.partition.start, cursor.first, cursor.before)

    def _check_late_epoch(self, epoch: int) -> None:
        """Refuse ``set_epoch`` when loader workers already prefetch another epoch's pass.

        NOTE (why): a pass is bound to its epoch at its first item. A
        ``DataLoader`` with workers pulls items as soon as its iterator is
        made, so an iterator made before ``set_epoch`` -- Lightning makes it
        before its own ``set_epoch`` when it restarts a run, a loop that calls
        ``iter(loader)`` first -- trains the epoch it was made at. While that
        iterator has yielded no batch yet the epoch it would train is known to
        be the wrong one: refuse, rather than train the other epoch's order.
        """
        cursor = self._cursor
        if cursor is None or cursor.epoch == epoch or cursor.exhausted:
            return
        driver = cursor.driver
        iterator = driver.ref() if driver is not None else None
        if iterator is None or driver is None or driver.num_workers == 0:
            return
        if getattr(iterator, "_shutdown", False):  # dropped: its prefetched items are gone
            return
        if getattr(iterator, "_num_yielded", 1) != 0 or cursor.steps <= cursor.first:
            return
        raise ConfigError(
            f"{self.kind}.set_epoch({epoch}) came after a DataLoader with "
            f"num_workers={driver.num_workers} made its iterator, whose workers already "
            f"prefetch epoch {cursor.epoch}: that pass would train epoch {cursor.epoch}'s "
            f"order as epoch {epoch}. Call set_epoch before iter(loader) (the `for` line). "
            "Lightning does this when it restarts from a checkpoint taken at an epoch's end "
            "with a StatefulDataLoader: use fairshard.integrations.lightning.ExactResume "
            "with a plain DataLoader instead"
        )

    def _resumed(self, epoch: int) -> ResumePoint | None:
        """The pending resume point of ``epoch``, if the next pass over it starts there."""
        resume = self._pending_resume()
        return resume if resume is not None and resume.epoch == epoch else None

    def _epoch_length(self, epoch: int) -> int:
        """``len()`` of ``epoch``: the whole epoch's, steps already taken included (NOTE on len)."""
        resume = self._resumed(epoch)
        before = 0 if resume is None else resume.before
        return before + self.partition(epoch).num_items(self.rank)

    def _next_left(self) -> int:
        """Items (batches) the next ``iter()`` yields: what is left of its epoch."""
        epoch, _ = self._next_pass()
        resume = self._resumed(epoch)
        return self.partition(epoch).num_items(self.rank) - (0 if resume is None else resume.steps)

    @property
    def remaining(self) -> int:
        """Items (batches, for a batch sampler) of this epoch not handed out yet on this rank.

        During a pass, what it has still to hand out (a ``DataLoader``'s
        workers may hold some already handed out); 0 once it handed out
        everything, until ``set_epoch`` picks the next epoch (with
        ``auto_epoch``, the next epoch's count at once). Otherwise what the
        next ``iter()`` yields: ``len(sampler)``
        less the steps a loaded state records as taken. ``len(sampler)``
        stays the whole epoch's (``docs/resume.md``).
        """
        cursor = self._cursor
        if self._resume is None and cursor is not None and cursor.epoch == self.epoch:
            left = cursor.num_items - cursor.steps
            if left > 0 or not self.auto_epoch:
                return max(0, left)
        return self._next_left()

    def _check_abandoned(self) -> None:
        """Warn when a pass begun from a loaded state left items the loop never read.

        Called by ``set_epoch`` when it changes the epoch: that pass is over.
        Never read: not handed out by the sampler, or fetched by a live
        multi-worker loader that gave the loop fewer batches
        (``resume.loop_took``). A new ``iter()`` over the same epoch loses
        nothing (it starts again at the resume point), nor does a pass that
        was not resumed.
        """
        cursor = self._cursor
        if self._resume is not None or cursor is None or cursor.epoch != self.epoch:
            return
        if cursor.first == 0 and cursor.partition.start == 0 and cursor.before == 0:
            return  # not a resumed pass
        handed_out = cursor.steps - cursor.first
        unread = cursor.num_items - cursor.first - loop_took(cursor.driver, handed_out, self)
        if unread > 0:
            unit = "batches" if self._yields_batches else "items"
            self._warn_abandoned(cursor.epoch, unread, cursor.before + cursor.num_items, unit)

    def _next_pass(self) -> tuple[int, bool]:
        """``(epoch, repeat)`` of the next ``iter()``, without changing anything.

        ``repeat``: the pass would start over an epoch already completed.
        With ``auto_epoch`` such a pass -- or a resumed epoch with nothing
        left -- moves on to the next epoch instead (and ``repeat`` is False).
        """
        epoch = self.epoch
        cursor = self._cursor
        resume = self._pending_resume()
        if resume is not None:
            left = self.partition(epoch).num_items(self.rank) - resume.steps
            return (epoch + 1, False) if self.auto_epoch and left <= 0 else (epoch, False)
        repeat = not self._fresh and cursor is not None and cursor.epoch == epoch
        repeat = repeat and cursor is not None and finished(cursor.driver, cursor.complete)
        return (epoch + 1, False) if repeat and self.auto_epoch else (epoch, repeat)

    def _epoch_for_pass(self) -> int:
        epoch, repeat = self._next_pass()
        if epoch != self.epoch:  # auto_epoch moves on, as after a full pass
            self._resume = None
            self.epoch = epoch
            self._on_epoch_change()
        elif repeat:
            self._warn_repeat(self.epoch)
        self._fresh = False
        return self.epoch

    # ------------------------------------------------------------------ state
    def _pass_items(self) -> int:
        """Items of the current pass (what is left of the epoch when it started)."""
        cursor = self._cursor
        if self._resume is None and cursor is not None and cursor.epoch == self.epoch:
            return cursor.num_items - cursor.first
        return self._next_left()

    def state_dict(self, consumed: int | None = None) -> dict[str, Any]:
        """Plain, versioned state: where this rank is in which epoch.

        Taken at any time: before, during or after a pass. Save rank 0's
        state (all ranks take equal steps); it loads on any rank and, for the
        strided layout, on any world size.

        Args:
            consumed: Items (batches, for a batch sampler) the training loop
                took from the current pass, counted since its ``iter()``.
                Needed mid-epoch under a ``DataLoader`` with
                ``num_workers > 0``, whose workers prefetch ahead of the
                loop; ``None`` counts what the sampler handed out, which is
                exact with ``num_workers=0``, and is what
                ``StatefulDataLoader`` records when it snapshots the sampler.

        Raises:
            ConfigError: ``consumed`` is more than the pass handed out; or
                ``consumed`` is ``None`` while a multi-worker ``DataLoader``
                (``StatefulDataLoader`` included, when the call is not its
                own snapshot) holds prefetched items of this pass the loop
                has not taken, or while a loader wrapper that fetches ahead
                (Ray Train's) holds a batch of it; or the loader yields
                batches out of order (``in_order=False``) mid-pass.
        """
        return self._state(consumed, sys._getframe(1), in_order=True)

    def _state(self, consumed: int | None, caller: Any, in_order: bool) -> dict[str, Any]:
        cursor = self._cursor
        if self._resume is not None and self._resume.epoch == self.epoch:
            epoch, start, steps, _ = self._resume
            check_consumed(consumed, 0)
        elif cursor is not None and cursor.epoch == self.epoch:
            epoch, start = cursor.epoch, cursor.partition.start
            refused = held_refusal(self, self.kind, cursor) if consumed is None else None
            if refused is not None:
                raise refused
            steps = cursor.taken(consumed, self.kind, caller, in_order)
        else:
            epoch, start, steps = self.epoch, 0, 0
            check_consumed(consumed, 0)
        sealer = self.__dict__.get("_sealer")
        if sealer is None:
            sealer = self.__dict__["_sealer"] = S.Sealer()
        extra, extra_bytes = self._encoded_extra_state()
        migrated = self._migration_extra(epoch)
        if migrated:
            extra, extra_bytes = {**extra, **migrated}, None
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

    def loader_state(self, batches: int, loader: LoaderView) -> dict[str, Any]:
        """The state after the loop took ``batches`` batches of ``loader`` this pass.

        The resume protocol of ``fairshard.loader_state_dict`` (``_core.resume``).

        Raises:
            ConfigError: ``batches`` is more than the pass holds, or the
                loader yields out of order mid-pass.
        """
        items = self._pass_items()
        size = loader.items_per_batch
        most = -(-items // size)
        if batches > most:
            raise ConfigError(
                f"batches={batches} but the current pass holds {items} item(s), at most {most} "
                f"batch(es) of {size}; count the batches the loop took since the `for` over "
                "this pass started"
            )
        consumed = min(batches * size, items)
        in_order = loader.in_order or loader.num_workers == 0
        return self._state(consumed, None, in_order)

    def _saved_plan_length(self, epoch: int) -> int:
        """Plan length of a saved epoch; built only when the config does not fix it."""
        known = self._fixed_plan_length()
        if known is not None:
            return known
        try:
            return len(self.plan(epoch))
        except ConfigError as exc:
            raise StateDictError(f"state_dict['epoch']={epoch} cannot be planned: {exc}") from None

    def _started(self) -> bool:
        """Whether the current epoch has handed out items (``EpochRules.keeps_later_epoch``)."""
        cursor = self._cursor
        return cursor is not None and cursor.epoch == self.epoch and cursor.steps > cursor.first

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Change | None = None) -> None:
        """Resume from ``state_dict``: the next ``iter()`` continues that epoch.

        A state of a finished epoch ``e`` loaded while the sampler is already
        set to a later epoch it has not started (``StatefulDataLoader``
        restores lazily, after the user's ``set_epoch(e + 1)``) keeps that
        epoch; loaded into a sampler that has iterated a later epoch
        (``torchdata.nodes``' ``Loader.load_state_dict``, a rollback) it
        restores the saved point. See ``_core.epochs``.

        A state saved by an earlier draw of the family's plan switches the
        sampler to that draw (``_core.base``'s NOTE on draws); a state it refuses
        leaves the draw as it was.

        Args:
            state_dict: A state of this family.
            migrate: The declared change when the data changed since the
                state was saved (``DataChange``; ``MixtureChange`` for a
                mixture): what any rank took of the saved epoch stays taken,
                removed items are never yielded, appended ones join the rest
                of the epoch, and every rank takes equal steps, on any world
                size (``_core.migrating``, docs/changes.md). Without it a
                state of other data is refused, naming this fix.

        Raises:
            StateDictError: the state is foreign, tampered, from another
                version, or was saved under a different config (the message
                names the field; an unknown draw fails as ``draw``).
            ConfigError: ``migrate`` does not lead from the state's data to
                this sampler's, or this configuration cannot migrate (the
                message says why and what to do instead).
        """
        caller = sys._getframe(1)
        if migrate is not None:
            state_dict = self._migrated_state(state_dict, migrate)
        else:
            self._refuse_changed_data(state_dict)
        config = state_dict.get(S.K_CONFIG) if isinstance(state_dict, dict) else None
        saved = config.get("draw", 1) if isinstance(config, dict) else self._draw
        previous = self._draw
        if saved in self._DRAWS and saved != previous:
            self._draw = saved
            self.forget_plans()
        try:
            self._load_state(state_dict, boundary=not loaded_by_torchdata(caller))
        except BaseException:
            if self._draw != previous:
                self._draw = previous
                self.forget_plans()
            raise

    def _load_state(self, state_dict: dict[str, Any], boundary: bool = True) -> None:
        """``load_state_dict`` in the draw the state names.

        ``boundary``: a state at the end of its epoch is the start of the next
        one (see ``load_state_dict``); not for torchdata's loaders, which
        restore a finished epoch themselves.
        """
        state = S.unseal(state_dict, self.kind)
        S.check_config(state[S.K_CONFIG], self._load_config())
        if state[S.K_SEED] != self.seed:
            raise StateDictError(
                f"state_dict was saved with seed={state[S.K_SEED]} but this sampler has "
                f"seed={self.seed}; build the sampler with seed={state[S.K_SEED]} to resume"
            )
        epoch, saved_start, saved_steps = state[S.K_EPOCH], state[S.K_START], state[S.K_STEPS]
        previous = self._migration
        try:
            self._install_migration(state)  # a migrated epoch's plan is its rest
            start, steps, complete = S.resume_point(
                state,
                self._saved_plan_length(epoch),
                self.layout,
                self.tail,
                self.num_replicas,
                self.rank,
            )
            # Everything is checked; the extra state checks its own part and commits first.
            extra = dict(state[S.K_EXTRA])
            extra.pop(K_MIGRATED, None)
            self._load_extra_state(extra)
        except BaseException:
            self._set_migration(previous)
            raise
        keep = self.keeps_later_epoch(epoch, complete, self._started())
        self._cursor = None
        self._fresh = True
        self._warned_empty = False
        self.__dict__.pop(_BOUNDARY, None)
        self._warned_abandoned = False
        # Re-partitioned (another world size) or finished: the saved steps come before.
        before = saved_steps - steps if start != saved_start else 0
        if keep:
            self._resume = None
            if boundary:  # a later set_epoch(epoch) re-announces the finished epoch
                self.__dict__[_BOUNDARY] = ResumePoint(epoch, start, steps, before)
        elif complete and boundary:
            # NOTE (the end of an epoch is the next one's start): a snapshot taken after
            # the last step of epoch e resumes at epoch e + 1, whatever the loop does
            # first (the DDP tutorial probes next(iter(loader)) before its set_epoch). A
            # resume loop that re-announces the finished epoch (set_epoch(e)) gets its
            # end back: an empty pass, which says why, and nothing of e again.
            self.epoch = epoch + 1
            self._resume = None
            self.__dict__[_BOUNDARY] = ResumePoint(epoch, start, steps, before)
        else:
            self.epoch = epoch
            self._resume = ResumePoint(epoch, start, steps, before)
        self._on_epoch_change()

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next pass (as in PyTorch); call it before ``iter()``.

        The first ``set_epoch(e)`` after loading a state saved at the end of
        epoch ``e`` (which resumes at ``e + 1``) selects the end of ``e``:
        nothing of it is yielded again.
        """
        boundary = self.__dict__.pop(_BOUNDARY, None)
        super().set_epoch(epoch)
        if boundary is not None and self.epoch == boundary.epoch:
            self._resume = boundary
