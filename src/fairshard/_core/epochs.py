"""The epoch rules of every fairshard sampler and stream, written once.

``PlannedSampler`` and ``ShardedIterable`` both derive from ``EpochRules``;
the rules are:

* ``set_epoch(epoch)`` picks the epoch of the next pass (PyTorch's meaning)
  and calls the ``_on_epoch_change`` hook (a family applies staged inputs
  there, never in the middle of a pass);
* a pass that starts over an epoch this object already completed, with no
  ``set_epoch`` or ``load_state_dict`` since, repeats its order: it warns
  once (``_warn_repeat``), naming the fix;
* a loaded state that ends its epoch ``e`` while the object already sits in
  a later epoch (``keeps_later_epoch``): see the NOTE;
* a pass that starts at the end of a loaded epoch yields nothing and says
  why (``_warn_empty``; not under torchdata's loaders, which restore such
  states themselves and move on);
* a resumed pass left before it ran out (a probe ``next(iter(loader))``)
  leaves the resume point for the next pass; one that ran out finished the
  epoch;
* a pass that began from a loaded state and is left with items it never
  handed out when ``set_epoch`` moves to another epoch lost them: it warns
  once per loaded state (``_warn_abandoned``), naming how many and the fix.

NOTE (the later epoch, or a rollback): two loaders load a finished epoch's
state into an object that is already past it, and mean opposite things.
torchdata's ``StatefulDataLoader`` restores its sampler lazily, at the
``iter()`` after the user's ``set_epoch(e + 1)``: the user asked for the
next epoch and has not started it, so the later epoch is kept.
``torchdata.nodes``' ``Loader.load_state_dict`` (and a user who rolls back
on purpose) loads the state into a live object that has already iterated
the later epoch: that is a rollback, and the saved point is restored
(iterating it yields nothing; the loader then moves on, as it does after
that epoch's end). The rule that is right for both: keep the later epoch
exactly when nothing of it has been handed out yet.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from .._errors import DegenerateConfigWarning, check_int, warn

__all__ = ["EpochRules", "ResumePoint"]


class ResumePoint(NamedTuple):
    """Where the next pass of a loaded (or abandoned) resumed epoch starts."""

    epoch: int
    #: First plan position of the partition the state was saved on.
    start: int
    #: Local steps (items, or batches) this rank had consumed of that partition.
    steps: int
    #: Steps of the epoch the loaded state recorded before that partition (an elastic
    #: resume re-partitions what is left, a finished epoch leaves nothing): counted by
    #: ``len()``, which is the whole epoch's (``_core.sampler_state``'s NOTE on len).
    before: int = 0


class EpochRules:
    """The epoch bookkeeping shared by samplers and streams (module docstring)."""

    kind: ClassVar[str]
    #: What a repeated pass repeats, for the warning (a stream says "the shard order").
    _repeats: ClassVar[str] = "the same order"
    #: The fix the repeat warning names besides ``set_epoch``.
    _repeat_fix: ClassVar[str] = ""
    #: How the warning names the object (``sampler``, ``dataset``).
    _role: ClassVar[str] = "sampler"
    #: The fix the empty-pass warning names besides ``set_epoch``.
    _empty_fix: ClassVar[str] = ""

    def _init_epochs(self) -> None:
        self.epoch = 0
        self._fresh = True  # set_epoch / load_state_dict since the last pass began
        self._warned_repeat = False
        self._warned_empty = False  # reset by every load_state_dict
        self._warned_abandoned = False  # reset by every load_state_dict

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next pass (as in PyTorch); call it before ``iter()``."""
        epoch = check_int("epoch", epoch, minimum=0)
        self._check_late_epoch(epoch)
        if epoch != self.epoch:
            self._check_abandoned()
        self.epoch = epoch
        self._fresh = True
        self._on_epoch_change()

    def _check_late_epoch(self, epoch: int) -> None:
        """Hook: refuse an epoch set after a loader began the pass it would change."""

    def _on_epoch_change(self) -> None:
        """Hook: the epoch of the next pass was set (``set_epoch``, ``auto_epoch``, a load)."""

    def _check_abandoned(self) -> None:
        """Hook: the epoch is about to change; warn if a resumed pass of it was cut short."""

    def _warn_abandoned(self, epoch: int, unread: int, length: int, unit: str) -> None:
        """Warn (once a load) that a pass begun from a loaded state left ``unread`` behind."""
        if self.__dict__.get("_warned_abandoned", False):
            return
        self._warned_abandoned = True
        warn(
            f"{self.kind}: epoch {epoch} was resumed from a loaded state, and its pass "
            f"ended with {unread} of the epoch's {length} {unit} on this rank never read by "
            "the loop: they are lost to this epoch. len() is the whole epoch's, the steps "
            f"the state recorded included ({self._role}.remaining counts what is left), so a "
            "loop that ends the epoch when its restored step count reaches len(loader) "
            "reads everything, provided the state was loaded before the loop read len(). "
            "Load it before: under Lightning the ExactResume callback does (torchdata's "
            "StatefulDataLoader restores the sampler at iter(), after Lightning read len(), "
            "which falls short after a resume on more ranks); elsewhere read the pass to its "
            "end before set_epoch.",
            DegenerateConfigWarning,
        )

    def _warn_repeat(self, epoch: int) -> None:
        """Warn (once per object) that a pass repeats the completed ``epoch``."""
        if self._warned_repeat:
            return
        self._warned_repeat = True
        warn(
            f"{self.kind}: starting another pass over epoch {epoch}, which was already "
            f"completed, so this pass repeats {self._repeats}. Call "
            f"{self._role}.set_epoch(epoch) before each epoch{self._repeat_fix}.",
            DegenerateConfigWarning,
        )

    def _warn_empty(self, epoch: int) -> None:
        """Say why a pass that starts at the end of a loaded epoch yields nothing (once a load)."""
        if self._warned_empty:
            return
        self._warned_empty = True
        warn(
            f"{self.kind}: this pass over epoch {epoch} yields nothing "
            f"({self._role}.remaining == 0): "
            f"the state loaded was saved at the end of epoch {epoch}. A checkpoint taken "
            f"after epoch {epoch} resumes at epoch {epoch + 1}: start the epoch loop there "
            f"({self._role}.set_epoch({epoch + 1}) before iterating){self._empty_fix}.",
            DegenerateConfigWarning,
        )

    def keeps_later_epoch(self, saved_epoch: int, complete: bool, started: bool) -> bool:
        """Whether loading a state of ``saved_epoch`` keeps the current, later epoch.

        Args:
            saved_epoch: The epoch the state was saved in.
            complete: The state is at the end of that epoch.
            started: This object has handed out items of its current epoch.
        """
        return complete and self.epoch > saved_epoch and not started
